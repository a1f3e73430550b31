// Skipping a test whose runner or data is missing, so that it shows as
// skipped with its reason and never as a pass: scripts/test.mjs counts the
// marker line each skip prints (keep SKIP_MARK the same in both).
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';

const SKIP_MARK = 'patchwarden-test skipped: ';

/** Reports the running test as skipped; return right after. */
export function skip(reason: string): void {
  console.log(`${SKIP_MARK}${reason}`);
}

type Register = (name: string, fn: () => void | Promise<void>) => void;

/** `test` when nothing is missing (`missing` null); else each test registered with it reports itself skipped with the reason. */
export function testUnless(missing: string | null, register: Register = test): Register {
  return missing === null ? register : (name) => register(name, () => skip(`${name}: ${missing}`));
}

/** Why pytest cannot run here, or null when `python3 -m pytest` works. */
export const pytestMissing =
  spawnSync('python3', ['-m', 'pytest', '--version']).status === 0 ? null : 'python3 -m pytest is not installed';
