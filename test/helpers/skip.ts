// Skipping a test whose runner or data is missing, so that it shows as
// skipped with its reason and never as a pass: scripts/test.mjs counts the
// marker each skip prints, wherever it lands in a line (keep SKIP_MARK the
// same in both). A reason is of one of two kinds: plain text always skips; a
// tool .ci/run installs where it is missing (`ciInstalls`) skips only outside
// CI, since under CI=true its absence means the setup broke and the test fails.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';

const SKIP_MARK = 'patchwarden-test skipped: ';

/** Why a test cannot run here: plain text, or a tool .ci/run installs (made by `ciInstalls`). */
export type Missing = string | { ciInstalls: string };

/** The reason for a tool .ci/run installs where it is missing: under CI=true its skip fails the test. */
export const ciInstalls = (why: string): Missing => ({ ciInstalls: why });

const text = (missing: Missing): string => (typeof missing === 'string' ? missing : missing.ciInstalls);

/** Reports the running test as skipped; return right after. Under CI=true a `ciInstalls` reason throws instead. */
export function skip(missing: Missing): void {
  if (typeof missing !== 'string' && process.env.CI === 'true')
    throw new Error(`${missing.ciInstalls}, which .ci/run installs: under CI=true this skip is a failure`);
  console.log(`${SKIP_MARK}${text(missing)}`);
}

/** Null when `cmd args` runs and exits 0; else `why` (a program that is not there does not throw). */
export function missingUnless(cmd: string, args: string[], why: Missing): Missing | null {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0 ? null : why;
}

type Register = (name: string, fn: () => void | Promise<void>) => void;

/** `test` when nothing is missing (`missing` null); else each test registered with it reports itself skipped with the reason. */
export function testUnless(missing: Missing | null, register: Register = test): Register {
  if (missing === null) return register;
  const named = (name: string): Missing =>
    typeof missing === 'string' ? `${name}: ${missing}` : ciInstalls(`${name}: ${text(missing)}`);
  return (name) => register(name, () => skip(named(name)));
}

/** Why pytest cannot run here, or null when `python3 -m pytest` works. */
export const pytestMissing = missingUnless(
  'python3',
  ['-m', 'pytest', '--version'],
  ciInstalls('python3 -m pytest is not installed'),
);
