// `patchwarden check`: the mixing rule on the index, a commit or a range,
// judged like the hooks judge them: by the config on the base side (HEAD for
// the index, the commit's first parent, the range's start), never by one the
// change itself or the working tree could bring. Its rules run through the
// engine, as at the enforcement points: the staged set's mixing and links,
// or a range's owners, overrides, mixing and links (CHECK_PLAN).
import { parse } from '../common/args.js';
import { emit, violationsOutcome } from '../common/output.js';
import { UsageError } from '../common/errors.js';
import { classifierFor } from '../config/classifier.js';
import { explicitJudge, judgeOf } from '../config/judge.js';
import { judgingConfig } from '../config/judging.js';
import type { Config } from '../config/schema.js';
import { commitAndParent, mergeBase, openRepo, resolveCommits, type Repo } from '../git/repo.js';
import { readStaged } from '../git/staged.js';
import { rangeChanges } from '../git/changes.js';
import { OVERRIDE_TRAILER } from '../owners/override.js';
import { fitRangeAdvice, judgedRangeAdvice, judgedReorderAdvice, stagedLanding } from '../mixing/advice.js';
import { stagedLinkViolations } from '../mixing/symlinks.js';
import { Facts } from './facts.js';
import { runPlan, type Plan } from './rule.js';
import { mixingRule } from './rules/mixing.js';
import { overrideRule } from './rules/override.js';
import { ownersRule } from './rules/owners.js';
import { symlinkRule } from './rules/symlink.js';

export const help = `usage: patchwarden check [--staged | --commit REV | --range A..B] [--format text|json|github] [--config PATH] [-C DIR]

The mixing rule: a change to production code (the src zone) may not also
change an oracle (spec, fixtures, freeze) or the guard (its config, hooks).
The config that judges is the one on the base side, as in the hooks: HEAD's
for the index (the staged one on a first commit), the first parent's for a
commit, A's for a range; --config PATH names another.

  --staged        the index, as git hands it to a hook (default)
  --commit REV    one commit
  --range A..B    every commit of A..B, and the range as a whole
                  (mix.range: allow relaxes the whole-range rule)

In commit and range modes a merge counts as changing what it authored (where
its tree differs from git's own merge of its parents). In every mode a
symbolic link in a zone may point only inside that zone. The owners rule
applies too, when configured (owners.signers, owners.agents; the signers
file is read where the config is): every commit that touches an oracle must
be owner-signed and no agent's, and owner-signed oracle commits may share a
range with production commits.

exit 0 clean, 1 refused, 2 could not judge.`;

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(
    args,
    { staged: { type: 'boolean' }, commit: { type: 'string' }, range: { type: 'string' } },
    false,
  );
  const modes = [values.staged, values.commit, values.range].filter((v) => v !== undefined);
  if (modes.length > 1) throw new UsageError('give one of --staged, --commit REV, --range A..B');
  if (values.commit === undefined && values.range === undefined) {
    const { repo, changes, merging, config: at } = await readStaged(common.dir, false);
    const compiler = () => import('../config/compile.js');
    const { config, rules } = common.config
      ? await explicitJudge(repo, common.config, compiler)
      : await judgeOf(repo, at, compiler);
    const paths = changes.map((c) => c.path);
    const facts: Facts = new Facts({
      point: 'check',
      repo,
      config,
      tip: ':',
      where: 'the index',
      paths,
      classify: () => classifierFor(repo, { rules }, { paths }),
      links: async () => stagedLinkViolations(repo, changes, await facts.classify()),
      staged: {
        changes,
        kind: merging ? 'merge' : 'commit',
        landing: async () => stagedLanding(repo, config, changes, await facts.classify()),
      },
    });
    return emit(common.format, violationsOutcome(await runPlan(facts, STAGED_PLAN)));
  }
  const repo = await openRepo(common.dir);
  if (values.commit !== undefined) {
    const { id, parent } = await commitAndParent(repo, values.commit);
    // A root commit has nothing older to be judged by.
    const base = parent ?? id;
    const { config } = await judgingConfig(repo, common.config, base);
    const { violations } = await rangeRules(repo, config, `${id}^@`, id, base);
    return emit(common.format, violationsOutcome(violations, { commits: [id] }));
  }
  const m = /^(.*?)\.\.(.+)$/.exec(values.range!);
  if (!m || m[1].endsWith('.')) throw new UsageError(`--range wants A..B, not ${JSON.stringify(values.range)}`);
  const [from, to] = await resolveCommits(repo, [m[1] || 'HEAD', m[2]]);
  const { config } = await judgingConfig(repo, common.config, from);
  const { commits, violations } = await rangeRules(repo, config, from, to, from);
  await fitRangeAdvice(
    violations,
    async (oracleTip) =>
      judgedRangeAdvice(repo, config, m[1] || 'HEAD', {
        oracleTip,
        base: await mergeBase(repo, from, to),
        head: to,
        commits,
      }),
    (oracle) => judgedReorderAdvice(repo, config, m[1] || 'HEAD', { oracle, commits }),
  );
  return emit(common.format, violationsOutcome(violations, { commits }));
}

/** The rules on the staged set: mixing, worded for a commit or a merge, and the links. */
const STAGED_PLAN: Plan = [[mixingRule, symlinkRule]];

/** The commit rules over a range, as pre-push runs them. */
const CHECK_PLAN: Plan = [[ownersRule, overrideRule, mixingRule, symlinkRule]];

/** The commit rules over `to` less `from`, the baseline and the overrides judged at `judgeRev`. */
async function rangeRules(repo: Repo, config: Config, from: string, to: string, judgeRev: string) {
  // Where the range starts at one commit, overrides and owner-signed oracle commits are admitted against it.
  const start = /^[0-9a-f]{40,64}$/.test(from) ? from : null;
  const classify = await classifierFor(repo, config);
  const facts: Facts = new Facts({
    point: 'check',
    repo,
    config,
    tip: to,
    where: to.slice(0, 12),
    classify: () => classify,
    walk: {
      read: () => rangeChanges(repo, [to, '--not', from], { trailer: OVERRIDE_TRAILER }),
      exclude: [from],
      start,
      judgeRev,
      admit: true,
    },
  });
  const violations = await runPlan(facts, CHECK_PLAN);
  return { commits: (await facts.judged())!.commits, violations };
}
