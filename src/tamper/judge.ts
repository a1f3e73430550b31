// The tamper layer over a change: the lines it adds to production code, the
// rules of each file's language, the allow rows of the base side, one verdict.
// The scanner's module loads beside the diff (nearly every change with
// production code needs it); the allow rows (YAML) load only when a line is
// hit.
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../mixing/check.js';
import { configBool } from '../git/repo.js';
import { addedLines } from './added.js';
import { ALLOW_FILE } from '../config/tamper-ids.js';
import type { Hit } from './hits.js';
import { langOf } from './lang.js';
import type { Classify } from '../zones/classify.js';

export interface JudgedHit extends Hit {
  /** Where the allow row that lets it stand is, when one does. */
  allowed_by?: string;
}

export interface TamperVerdict {
  mode: Config['tamper']['mode'];
  /** Every hit, allowed or not. */
  hits: JudgedHit[];
  /** Refusals (empty in warn mode). */
  violations: Violation[];
  /** Hits that stand, as lines for stderr in warn mode. */
  warnings: string[];
  /** Files scanned. */
  files: number;
}

export interface TamperRange {
  /** The base side (commit or tree); null for a history with nothing before it. */
  from: string | null;
  /** The tip; null for the index. */
  to: string | null;
  /** Where the allow rows are read from (the base side); null: none. */
  judgeRev: string | null;
}

export async function judgeTamper(repo: Repo, config: Config, range: TamperRange, zones?: Classify | Promise<Classify>): Promise<TamperVerdict> {
  const mode = config.tamper.mode;
  const none: TamperVerdict = { mode, hits: [], violations: [], warnings: [], files: 0 };
  if (mode === 'off') return none;
  // The diff and the scanner start at once, while the zones are still being read.
  const diffing = addedLines(repo, range.from, range.to);
  const scanner = import('./hits.js');
  for (const p of [diffing, scanner]) p.catch(() => { /* thrown below, where it is awaited */ });
  const classify = await (zones ?? classifierFor(repo, config));
  const added = (await diffing).filter((a) => classify(a.path) === 'src' && langOf(a.path) !== null);
  if (!added.length) return none;
  const { hitsIn } = await scanner;
  const disabled = new Set(config.tamper.rules.disable);
  const found = added.flatMap((a) => hitsIn(a.path, a.text, langOf(a.path)!, a.lines, disabled));
  let hits: JudgedHit[] = [];
  if (found.length) {
    const { allowAt, allowedBy } = await import('./allow.js');
    const rows = await allowAt(repo, range.judgeRev, await configBool(repo, 'core.ignorecase'));
    hits = found.map((h) => {
      const row = allowedBy(rows, h);
      return row ? { ...h, allowed_by: row.where } : h;
    });
  }
  const standing = hits.filter((h) => !h.allowed_by);
  const verdict: TamperVerdict = { mode, hits, violations: [], warnings: [], files: added.length };
  if (mode === 'warn') verdict.warnings = standing.map((h) => `tamper warning [${h.rule}] ${h.path}:${h.line}: ${h.text} (${h.why})`);
  else verdict.violations = toViolations(standing, range);
  return verdict;
}

/** One violation per rule: what it guards against, each line, the two ways forward. */
function toViolations(hits: Hit[], range: TamperRange): Violation[] {
  const byRule = new Map<string, Hit[]>();
  for (const h of hits) byRule.set(h.rule, [...(byRule.get(h.rule) ?? []), h]);
  return [...byRule].map(([rule, list]) => ({
    rule: 'tamper',
    paths: [...new Set(list.map((h) => h.path))],
    message: `[${rule}] production code that ${list[0].why}`,
    detail: list.map((h) => ({ path: h.path, note: `line ${h.line}: ${h.text}` })),
    fix: [
      'change the code so it fixes the behaviour instead of steering the test run; or, when a person has',
      `reviewed the line and it must stay, an owner adds a row to ${ALLOW_FILE} in its own commit,`,
      `merged before this change (\`patchwarden tamper ${range.to === null ? '--staged' : '--range BASE..TIP'} --allow-line\` prints the row).`,
    ].join('\n'),
  }));
}

/**
 * Where a pushed ref's change starts on a server: the ref's old value (what
 * the ref gains over it), else its merge-base with the judging branch; null
 * (everything is new) for a history that shares nothing with it.
 */
export async function pushBase(repo: Repo, old: string | null, tip: string, judgeRev: string | null): Promise<string | null> {
  if (old) return old;
  if (!judgeRev) return null;
  const r = await repo.run(['merge-base', judgeRev, tip], { okCodes: [1] });
  return r.stdout.toString('utf8').trim() || null;
}

export type Settled = { verdict: TamperVerdict } | { error: unknown };

/**
 * pre-receive: starts the layer on every pushed ref at once, while the rest of
 * the push is still being read; each settles to its verdict or its error
 * (thrown where it is used, so nothing fails unseen).
 */
export function tamperPush(repo: Repo, config: Config, judgeRev: string | null, updates: { old: string; new: string; ref: string }[], zones: Promise<Classify>): Map<string, Promise<Settled>> {
  const zero = (id: string) => /^0+$/.test(id);
  return new Map(updates.filter((u) => !zero(u.new)).map((u) => [u.ref, (async () => {
    const to = `${u.new}^{commit}`;
    return judgeTamper(repo, config, { from: await pushBase(repo, zero(u.old) ? null : u.old, to, judgeRev), to, judgeRev }, zones);
  })().then((verdict) => ({ verdict }), (error: unknown) => ({ error }))]));
}
