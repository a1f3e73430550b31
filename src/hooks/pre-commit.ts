// `patchwarden pre-commit`: git's pre-commit hook. Everything is read from the
// index git hands the hook (GIT_INDEX_FILE) and from the commit's base side,
// never from the working tree: the config that judges is the one committed at
// HEAD (for an amend, at the amended commit's parent; on a first commit, the
// staged one). It runs on every commit, so it loads only what it uses: the
// config parser, the glob compiler and the ledger and fixture layers load when
// a commit needs them.
import { parse } from '../common/args.js';
import { emit, violationsOutcome } from '../common/output.js';
import { classifierForPaths, explicitJudge, judgeOf } from '../config/judge.js';
import { touchesFixtures } from '../fixtures/folder.js';
import { SYMLINK } from '../git/raw-diff.js';
import { readStaged } from '../git/staged.js';
import { checkStaged } from '../mixing/staged.js';
import { amendingCommit } from './amend.js';

export const help = `usage: patchwarden pre-commit [--format text|json|github] [--config PATH] [-C DIR]

The pre-commit hook. On the staged set it applies the mixing rule (production
code and oracles in separate commits), refuses a symbolic link in a zone that
points out of it, checks the freeze ledger's shape when the ledger is staged,
and verifies the fixture lock when fixtures or the lock are staged. The
config that judges is the one committed at HEAD (the staged one on a
repository's first commit), never the working tree's. An amend
(\`git commit --amend\`) is judged with the commit it amends: the index
against that commit's parent. Exit 0 lets the commit through; anything else
stops it.`;

/** The part of this hook loaded only when a commit needs it: one lazy chunk. */
const layers = () => import('./pre-commit-layers.js');

export async function run(args: string[]): Promise<number> {
  const { common } = parse(args, {}, false);
  const amend = await amendingCommit(common.dir);
  const { repo, changes, config: at } = await readStaged(common.dir, amend);
  const { config, rules } = common.config ? await explicitJudge(repo, common.config, layers) : await judgeOf(repo, at, layers);
  const paths = changes.map((c) => c.path);
  const classify = await classifierForPaths(repo, rules, paths);
  const violations = checkStaged(changes, classify, amend);
  // The link check (and its git process) loads only when a link in a zone is staged.
  if (changes.some((c) => c.newMode === SYMLINK && classify(c.path) !== null)) {
    const { stagedLinkViolations } = await layers();
    violations.push(...(await stagedLinkViolations(repo, changes, classify)));
  }
  // The ledger and fixture layers load only for a commit that reaches them.
  if (changes.some((c) => c.path === config.freeze.ledger && c.status !== 'D')) {
    const { checkLedgerAt, clockNow } = await layers();
    violations.push(...(await checkLedgerAt(repo, config, ':', clockNow())));
  }
  if (touchesFixtures(paths, config, classify)) {
    const { fixtureViolations, verifyFixtures } = await layers();
    violations.push(...fixtureViolations(await verifyFixtures(repo, config, { kind: 'index' }), config, 'the index'));
  }
  return emit(common.format, violationsOutcome(violations, {}, 'patchwarden: pre-commit ok'));
}
