// `patchwarden tamper`: the tamper layer on the index, one commit or a range.
import { parse } from '../common/args.js';
import { emit, violationsOutcome } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { judgingConfig } from '../config/judging.js';
import { configOf, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { commitParentAndFile } from '../git/objects.js';
import { CONFIG_FILE } from '../zones/names.js';
import { commitOrNull, commitsOrNull, mergeBase, repoAt } from '../git/repo.js';
import { ALLOW_FILE } from '../config/tamper-ids.js';
import { judgeTamper, type TamperRange } from './judge.js';
import { counted } from '../common/text.js';

export const help = `usage: patchwarden tamper [--staged | --commit REV | --range A..B] [--allow-line] [--format text|json|github] [--config PATH] [-C DIR]

Reads the lines a change adds to production code (the src zone; new files
whole) and refuses code that games the test run instead of fixing the code:
ending the process or hooking its exit, loading the test framework, sniffing
the test environment, reading the caller's stack, replacing process-wide
hooks and streams, swapping a function's code, comparisons that ignore their
argument, writing report-shaped files; and production files it cannot read
(bytecode, native code, another encoding) unless an owner pinned their
sha256. Each hit names the path, the line, the rule and why (docs/tamper.md).

  --staged        the index over HEAD (default)
  --commit REV    one commit over its first parent
  --range A..B    what B adds over its merge-base with A
  --allow-line    also print, for each hit, the ${ALLOW_FILE} row an owner
                  would add after review (printed, never written)

The config (tamper.mode, tamper.rules.disable) and the allow rows come from
the base side: HEAD, the commit's parent, or A.

exit 0 clean (or tamper.mode warn/off), 1 a hit not allowed, 2 could not judge.`;

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(
    args,
    {
      staged: { type: 'boolean' },
      commit: { type: 'string' },
      range: { type: 'string' },
      'allow-line': { type: 'boolean' },
    },
    false,
  );
  if ([values.staged, values.commit, values.range].filter((v) => v !== undefined).length > 1)
    throw new UsageError('give one of --staged, --commit REV, --range A..B');
  const repo = await repoAt(common.dir);
  let range: TamperRange;
  let committed: Config | undefined;
  if (values.commit !== undefined) {
    // The parent's config comes with the commit and its parent, from the same git process.
    const { id, parent, file } = await commitParentAndFile(repo, values.commit, CONFIG_FILE);
    range = { from: parent, to: id, judgeRev: parent };
    if (parent && !common.config) committed = await configOf(parent, file);
  } else if (values.range !== undefined) {
    const m = /^(.*?)\.\.(.+)$/.exec(values.range);
    if (!m || m[1].endsWith('.')) throw new UsageError(`--range wants A..B, not ${JSON.stringify(values.range)}`);
    // Both sides from one git process.
    const [a, b] = await commitsOrNull(repo, [m[1] || 'HEAD', m[2]]);
    if (!a || !b) throw new CannotJudge(`no such commit: ${a ? m[2] : m[1] || 'HEAD'}`);
    range = { from: await mergeBase(repo, a, b), to: b, judgeRev: a };
  } else {
    const head = await commitOrNull(repo, 'HEAD');
    range = { from: head, to: null, judgeRev: head };
  }
  const config =
    committed ??
    (range.judgeRev
      ? (await judgingConfig(repo, common.config, range.judgeRev)).config
      : await loadConfig(repo, common.config));
  const verdict = await judgeTamper(repo, config, range);
  for (const w of verdict.warnings) process.stderr.write(`patchwarden: ${w}\n`);
  const outcome = violationsOutcome(
    verdict.violations,
    { mode: verdict.mode, hits: verdict.hits },
    `patchwarden: tamper ok (${counted(verdict.files, 'production file')} with added lines, ${counted(verdict.hits.length, 'hit')}${verdict.hits.some((h) => h.allowed_by) ? ', all allowed' : ''})`,
  );
  for (const h of verdict.hits.filter((x) => x.allowed_by))
    outcome.text.push(`patchwarden: allowed [${h.rule}] ${h.path}${h.line ? `:${h.line}` : ''} by ${h.allowed_by}`);
  const standing = verdict.hits.filter((h) => !h.allowed_by);
  if (values['allow-line'] && standing.length) {
    const { allowRowText } = await import('./allow.js'); // the YAML parser with it, only when asked
    outcome.text.push(
      '',
      `rows an owner may add to ${ALLOW_FILE} after review (under \`allow:\`, in a commit of their own):`,
      ...standing.map(allowRowText),
    );
    outcome.json.allow_rows = standing.map(allowRowText);
  }
  return emit(common.format, outcome);
}
