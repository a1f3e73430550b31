// Scratch's suite run: suite.command once on the scratch tree (the base plus
// the branch's oracle files plus its production diff), each failure matched
// against the base's ledger as the gate's suite layer matches it. It
// predicts the gate's suite row; it decides nothing.
import { existsSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { applyFreezes } from '../freeze/apply.js';
import { emptyLedger, readLedgerAt, soundLedger } from '../freeze/ledger.js';
import type { Repo } from '../git/repo.js';
import { readReport } from '../junit/read.js';
import { TREE_ENV } from '../properties/runenv.js';
import { trustedTree, type TrustedRange } from '../properties/trusted-tree.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand } from '../runner/command.js';
import { runEnv } from '../runner/env.js';
import { signCase, signOptions } from '../signature/sign.js';
import { checkoutSource } from '../signature/source.js';
import type { Signed } from '../signature/types.js';
import type { SuiteSeen } from './proposal.js';

/** The gate's default --suite-timeout. */
const TIMEOUT_MS = 60 * 60_000;

/** The suite on the scratch tree, or null when suite.command is not set. */
export async function scratchSuite(
  repo: Repo,
  config: Config,
  range: TrustedRange,
  base: string,
): Promise<SuiteSeen | null> {
  const command = config.suite.command;
  if (!command) return null;
  const tree = await trustedTree(repo, config, range);
  try {
    const run = await runTestCommand(command, {
      cwd: tree.dir,
      timeoutMs: TIMEOUT_MS,
      env: { ...TREE_ENV, ...runEnv(config) },
    });
    try {
      if (run.timedOut) return { cases: 0, failures: [], problem: 'the suite timed out' };
      if (!existsSync(run.junit))
        return { cases: 0, failures: [], problem: `the suite exited ${run.code} without writing its JUnit report` };
      const report = await readReport(run.junit);
      const opts = signOptions(config, false, await checkoutSource(tree.dir));
      const signed = report.cases.map((c) => signCase(c, opts)).filter((s): s is Signed => s !== null);
      // Frozen by the base's ledger, as the gate judges; proposed rows are not in it yet.
      const ledger = soundLedger(
        (await readLedgerAt(repo, config, base, range.now)) ?? emptyLedger(config.freeze.ledger),
      );
      const decisions = applyFreezes(signed, ledger, config, range.now, new Set());
      return {
        cases: report.cases.length,
        failures: decisions.map((d) => ({ name: d.name, sig: d.sig, frozen: d.passes })),
        problem: disagreement(run.code, run.signal, report.cases),
      };
    } finally {
      run.dispose();
    }
  } finally {
    await tree.remove();
  }
}
