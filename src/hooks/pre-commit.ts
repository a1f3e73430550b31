// `patchwarden pre-commit`: git's pre-commit hook. Everything is read from the
// index git hands the hook (GIT_INDEX_FILE) and from the commit's base side,
// never from the working tree: the config that judges is the one committed at
// HEAD (for an amend, at the amended commit's parent; on a first commit, the
// staged one). It runs on every commit, so it loads only what it uses: the
// config parser, the glob compiler and the ledger and fixture layers load when
// a commit needs them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../common/args.js';
import { emit, violationsOutcome } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { classifierFor } from '../config/classifier.js';
import { explicitJudge, judgeOrLastValid, type Judge } from '../config/judge.js';
import type { Repo } from '../git/repo.js';
import type { Violation } from '../common/verdict.js';
import { CREDIT_TRAILERS } from '../owners/signatures.js';
import { Facts } from '../judge/facts.js';
import { runPlan, startPlan, type Plan } from '../judge/rule.js';
import { fixturesRule } from '../judge/rules/fixtures.js';
import { freezeRule } from '../judge/rules/freeze.js';
import { guardFileRule } from '../judge/rules/guard-file.js';
import { mixingRule } from '../judge/rules/mixing.js';
import { ownersRule } from '../judge/rules/owners.js';
import { symlinkRule } from '../judge/rules/symlink.js';
import { tamperRule } from '../judge/rules/tamper.js';
import type { RawChange } from '../git/raw-diff.js';
import type { Classify } from '../zones/classify.js';
import { SYMLINK } from '../git/raw-diff.js';
import { readStaged } from '../git/staged.js';
import { zonedPaths } from '../zones/zoned.js';
import { amendingCommit } from './amend.js';
import { stagedInstallFolders } from './generated.js';
import { commitOwners, messageCredits, stagedIdentity } from './staged-owners.js';
import { leaveMark, takeMark, type Recheck } from './recheck-mark.js';
import { boundedTamper, MAX_BYTES, MAX_FILES } from './staged-tamper.js';

export const help = `usage: patchwarden pre-commit [--format text|json|github] [--config PATH] [-C DIR]

The pre-commit hook. On the staged set it applies the mixing rule (production
code and oracles in separate commits), refuses a symbolic link in a zone that
points out of it, runs the tamper scan on the staged production files when
they are few and small (at most ${MAX_FILES} files, ${MAX_BYTES / 1024} KiB together; above that it
says so, and pre-push scans them), checks the freeze ledger's shape when the
ledger is staged, verifies the fixture lock when fixtures or the lock are
staged, and refuses an oracle change from an identity of owners.agents (the
author or committer git is about to record; signatures are checked at push). The config that judges is the one committed at HEAD (the staged
one on a repository's first commit), never the working tree's. An amend
(\`git commit --amend\`) is judged with the commit it amends: the index
against that commit's parent. The commit that concludes a merge (MERGE_HEAD)
is judged by what its resolution authors, as a pushed merge is: the index
against git's own merge of the two sides. Exit 0 lets the commit through;
anything else stops it.`;

/** The part of this hook loaded only when a commit needs it: one lazy chunk. */
const layers = () => import('./pre-commit-layers.js');

/**
 * The judge committed on the base side; where that config does not parse, the
 * last one on HEAD's first-parent line that did, so its correction can commit.
 */
function baseJudge(repo: Repo, at: { oid: string | null; shown: string }): Promise<Judge> {
  // `HEAD:.patchwarden.yml`; a first commit's staged config (`:.patchwarden.yml`) has no history to fall back on.
  const rev = at.shown.slice(0, at.shown.lastIndexOf(':')) || null;
  return judgeOrLastValid(repo, at, rev, layers, (note) => process.stderr.write(`patchwarden: ${note}\n`));
}

/** `patchwarden pre-merge-commit`: git's hook before a merge it made on its own commits. */
export const mergeCommit = {
  help: `usage: patchwarden pre-merge-commit [--format text|json|github] [--config PATH] [-C DIR]

The pre-merge-commit hook, which git runs before the commit of a merge it
made without conflicts (a merge with conflicts is concluded by git commit,
and judged by the pre-commit hook). Such a merge authors nothing of its own,
so the mixing rule has nothing to refuse; the guard's own files it brings
(the config and the files it names) must still parse, and the ledger and
the fixture lock it brings are checked as pre-commit checks them.`,
  run: (args: string[]) => judgeIndex(args, true),
};

/** `patchwarden commit-msg FILE`: git's hook on the message of the commit being made. */
export const commitMsg = {
  help: `usage: patchwarden commit-msg FILE [--format text|json|github] [--config PATH] [-C DIR]

The commit-msg hook; FILE is the message git hands it. When the commit
touches an oracle zone, a credit trailer (Co-authored-by, Assisted-by,
Generated-by) that names an identity of owners.agents, or under
owners.trailers: strict a known coding agent that owners.assisted_by_ok does
not list, stops the commit, as the owners rule stops it at push. The config
and the staged set are the ones the pre-commit hook judges. Trailers are
hints an agent can leave out; signatures, checked at push, on the server and
in the gate, are what holds.
It runs after the whole pre-commit chain, so where the pre-commit hook
checked the fixture lock or the ledger, it checks the index again: a
formatter that ran after the guard (lint-staged, prettier) and rewrote a
fixture stops the commit here, named as such, instead of at push.`,
  run: judgeMessage,
};

/** Any mention of a credit trailer's key: a message without one runs no git process. */
const CREDIT = new RegExp(CREDIT_TRAILERS.join('|'), 'i');

async function judgeMessage(args: string[]): Promise<number> {
  const { common, positionals } = parse(args, {});
  if (positionals.length !== 1) throw new UsageError('commit-msg takes one argument: the message file git hands it');
  const file = path.resolve(positionals[0]);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CannotJudge(`cannot read the commit message: ${(err as Error).message}`, { file });
  }
  const verdict = (violations: Violation[]) =>
    emit(common.format, violationsOutcome(violations, {}, 'patchwarden: commit-msg ok'));
  const recheck = takeMark(file);
  const credited = CREDIT.test(text);
  if (!credited && !recheck.length) return verdict([]);
  const amend = await amendingCommit(common.dir);
  const { repo, changes, merging, config: at } = await readStaged(common.dir, amend);
  const { config, rules } = common.config
    ? await explicitJudge(repo, common.config, layers)
    : await baseJudge(repo, at);
  const violations = recheck.length ? await (await layers()).recheckIndex(repo, config, recheck) : [];
  const { owners } = config;
  if (!credited || (!owners.agents.length && owners.trailers !== 'strict')) return verdict(violations);
  const paths = changes.map((c) => c.path);
  const { oracle } = zonedPaths(changes, await classifierFor(repo, { rules }, { paths }));
  if (!oracle.length) return verdict(violations);
  const kind = amend ? 'amend' : merging ? 'merge' : 'commit';
  violations.push(...commitOwners(await messageCredits(repo, file), oracle, paths, owners, kind));
  return verdict(violations);
}

/** The engine's rules on the index: the guard's files first, which stop the commit; then the tamper scan, the ledger and the lock. */
const GUARD_PLAN: Plan = [[guardFileRule]];
const INDEX_PLAN: Plan = [[symlinkRule, tamperRule, freezeRule, fixturesRule]];
/** The mixing rule on the staged set and the owners rule on the commit being made (git's own merge skips both). */
const STAGED_PLAN: Plan = [[mixingRule, ownersRule]];

/** The staged links that leave their zone; the check (and its git process) loads only when a link in a zone is staged. */
async function stagedLinks(repo: Repo, changes: RawChange[], zones: Promise<Classify> | null): Promise<Violation[]> {
  const classify = await zones;
  if (!classify || !changes.some((c) => c.newMode === SYMLINK && classify(c.path) !== null)) return [];
  return (await layers()).stagedLinkViolations(repo, changes, classify);
}

/** A staged guard file that does not parse stops the commit (exit 2), saying how to restage it or leave it out. */
function stopOnGuardFiles([first, ...more]: Violation[]): void {
  if (!first) return;
  throw new CannotJudge(
    `${first.message}${more.length ? ` (and ${more.map((v) => v.message).join('; ')})` : ''}; ${first.fix}`,
  );
}

export function run(args: string[]): Promise<number> {
  return judgeIndex(args, false);
}

/** `automaticMerge`: git merged on its own (pre-merge-commit), so the index is git's merge of the two sides. */
async function judgeIndex(args: string[], automaticMerge: boolean): Promise<number> {
  const { common } = parse(args, {}, false);
  const amend = !automaticMerge && (await amendingCommit(common.dir));
  const { repo, changes, merging, config: at, base } = await readStaged(common.dir, amend);
  const { config, rules } = common.config
    ? await explicitJudge(repo, common.config, layers)
    : await baseJudge(repo, at);
  const paths = changes.map((c) => c.path);
  const kind = amend ? 'amend' : merging ? 'merge' : 'commit';
  const facts: Facts = new Facts({
    point: 'pre-commit',
    repo,
    config,
    tip: ':',
    where: 'the index',
    paths,
    guardPaths: changes.filter((c) => c.status !== 'D').map((c) => c.path),
    classify: () => classifierFor(repo, { rules }, { paths }),
    load: layers,
    // git's own merge authors nothing: what it brings was judged commit by commit, and is again on push.
    tamper: async () => (automaticMerge ? null : boundedTamper(repo, config, changes, await facts.classify(), base)),
    links: () => stagedLinks(repo, changes, automaticMerge ? null : facts.classify()),
    // An agent identity may not change an oracle: git is asked who commits only when an oracle is staged.
    // The check is small and in this bundle: the layers' chunk would cost a spec commit about 100 ms.
    owners: async () => {
      const oracle = config.owners.agents.length ? zonedPaths(changes, await facts.classify()).oracle : [];
      const who = oracle.length ? await stagedIdentity(repo) : null;
      const violations = who ? commitOwners(who, oracle, paths, config.owners, kind) : [];
      return { violations, exempt: new Set<string>(), untouched: [] };
    },
    staged: automaticMerge
      ? undefined
      : {
          changes,
          kind,
          // The split advice fits the branch and the committer: read only for a commit that mixes.
          landing: async () => (await layers()).stagedLanding(repo, config, changes, await facts.classify()),
        },
  });
  // A staged guard file that does not parse would judge every later commit: it is stopped here.
  stopOnGuardFiles(await runPlan(facts, GUARD_PLAN));
  startPlan(facts, INDEX_PLAN);
  // git's own merge authors nothing: what it brings was judged commit by commit, and is again on push.
  const violations = automaticMerge
    ? []
    : [...(await stagedInstallFolders(repo, changes)), ...(await runPlan(facts, STAGED_PLAN))];
  // The tamper scan, the ledger and the fixture lock, read (and their modules loaded) only for a commit that reaches them.
  violations.push(...(await runPlan(facts, INDEX_PLAN)));
  for (const w of facts.takeNotes()) process.stderr.write(`patchwarden: ${w}\n`);
  const recheck: Recheck[] = [];
  if (await facts.touchesLedger()) recheck.push('ledger');
  if (await facts.touchesFixtures()) recheck.push('fixtures');
  // commit-msg checks them again after the rest of the hook chain (a formatter may restage them).
  leaveMark(repo.gitDir, violations.length ? [] : recheck);
  return emit(
    common.format,
    violationsOutcome(violations, {}, `patchwarden: ${automaticMerge ? 'pre-merge-commit' : 'pre-commit'} ok`),
  );
}
