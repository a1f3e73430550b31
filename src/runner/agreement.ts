// Whether a test command's JUnit report agrees with its exit code. Production
// code runs inside the test process and knows where the report goes (the
// command line, PATCHWARDEN_JUNIT), so a report alone is never believed: a
// runner that exits non-zero has failed somewhere, and one that exits zero
// has no failing case to show. Pure: exit status and cases in, a reason out.
import type { TestCase } from '../junit/types.js';
import { counted } from '../common/text.js';

/** Why the report cannot be believed, or null when it agrees with the exit code. */
export function disagreement(code: number | null, signal: NodeJS.Signals | null, cases: TestCase[]): string | null {
  // An empty report would read as "nothing failed" for everything keyed by it.
  if (!cases.length) return 'its report holds no test case, though the command was expected to run some';
  const failing = cases.filter((c) => c.status === 'failed' || c.status === 'error').length;
  const exit = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited ${code}`;
  if (code !== 0 && !failing)
    return `the report disagrees with the exit code: the command ${exit} while its report shows no failing or erroring case`;
  if (code === 0 && failing)
    return `the report disagrees with the exit code: the command exited 0 while its report shows ${counted(failing, 'failing or erroring case')}`;
  return null;
}
