// The files of a judged tree the run trusts as the base's, as they stood
// when its property command started: the spec's and harness's code, which
// the runtime guards trust by its path, and the oracle zones' files (the
// fixtures a property reads). Production code that rewrote one before it
// was read (a test file pytest imports later, the next file's process under
// node --test, a fixture's inputs) would change how the patch is judged. Each
// file's inode, change time and size, which no write can set back, are
// taken before the command and again after it: a file changed, replaced or
// removed meanwhile refuses the run, restored or not.
import { lstatSync } from 'node:fs';
import path from 'node:path';

export type TrustedStamps = Map<string, string>;

function stampOf(file: string): string {
  try {
    const st = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return st ? `${st.ino} ${st.ctimeNs} ${st.size} ${st.mode}` : 'absent';
  } catch {
    return 'unreachable'; // a folder on its path made unreadable
  }
}

/** Each of `files` (relative to `tree`) as it stands now. */
export function stampTrusted(tree: string, files: string[]): TrustedStamps {
  return new Map(files.map((f) => [f, stampOf(path.join(tree, f))]));
}

/** The files that are no longer as `before` took them. */
export function changedTrusted(tree: string, before: TrustedStamps): string[] {
  return [...before].filter(([f, was]) => stampOf(path.join(tree, f)) !== was).map(([f]) => f);
}
