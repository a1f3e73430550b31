// `patchwarden pre-commit`: git's pre-commit hook. Everything is read from the
// index git hands the hook (GIT_INDEX_FILE), never from the working tree.
import { parse } from '../cli/args.js';
import { openWithConfig } from '../cli/context.js';
import { emit, violationsOutcome } from '../cli/output.js';
import { stagedChanges } from '../git/changes.js';
import { touchesFixtures } from '../fixtures/folder.js';
import { checkStaged, classifierFor } from '../mixing/check.js';

export const help = `usage: patchwarden pre-commit [--format text|json|github] [--config PATH] [-C DIR]

The pre-commit hook. On the staged set it applies the mixing rule (production
code and oracles in separate commits), checks the freeze ledger's shape when
the ledger is staged, and verifies the fixture lock when fixtures or the lock
are staged. Exit 0 lets the commit through; anything else stops it.`;

export async function run(args: string[]): Promise<number> {
  const { common } = parse(args, {}, false);
  const { repo, config } = await openWithConfig(common);
  const [classify, staged] = await Promise.all([classifierFor(repo, config), stagedChanges(repo)]);
  const violations = checkStaged(staged, classify);
  // The ledger and fixture layers load only for a commit that reaches them.
  if (staged.some((c) => c.path === config.freeze.ledger && c.status !== 'D')) {
    const [{ checkLedgerAt }, { clockNow }] = await Promise.all([import('../freeze/ledger.js'), import('../freeze/clock.js')]);
    violations.push(...(await checkLedgerAt(repo, config, ':', clockNow())));
  }
  if (touchesFixtures(staged.map((c) => c.path), config, classify)) {
    const { fixtureViolations, verifyFixtures } = await import('../fixtures/verify.js');
    violations.push(...fixtureViolations(await verifyFixtures(repo, config, { kind: 'index' }), config, 'the index'));
  }
  return emit(common.format, violationsOutcome(violations, {}, 'patchwarden: pre-commit ok'));
}
