// Under revert.jobs: 2 the head run and the reverted run go at once, each in
// the fence (fence.ts): the other side cannot write, make or remove anything
// of this tree. What the kernel's write rights leave open is a file's
// metadata (chmod, utimes, extended attributes) where no user namespace
// allows the read-only remount: a file made unreadable, or its execute bit
// flipped, changes what the run does. So every tracked file of a run's tree
// is stamped (trusted-files.ts: inode, change time, size, mode, which no
// change sets back; one lstat a file), checked against its entry's type and
// owner bits before the command starts, and stamped again once it ended.
// Nothing of this is in the runs' reach: the entries come from the judge's
// own `git ls-tree`, the stamps stay in memory.
import { constants } from 'node:fs';
import type { TreeEntry } from '../git/objects.js';
import { changedTrusted, stampTrusted, type TrustedStamps } from './trusted-files.js';

export interface TreeStamps {
  stamps: TrustedStamps;
  /** Files already of another type or mode than their entry when stamped. */
  unlike: string[];
}

const LINK = '120000';
const { S_IFMT, S_IFLNK, S_IFREG } = constants;

/** Stamps every file of `entries` (a tree's, as `git ls-tree -r` lists it) in the checkout at `tree`, each checked against its entry's type and mode. */
export function stampTree(tree: string, entries: TreeEntry[]): TreeStamps {
  const files = entries.filter((e) => e.type === 'blob');
  const stamps = stampTrusted(
    tree,
    files.map((e) => e.path),
  );
  return { stamps, unlike: files.filter((e) => !likeMode(stamps.get(e.path), e)).map((e) => e.path) };
}

/** The files not as `before` found them: unlike their entry then, or changed since. */
export function changedTree(tree: string, before: TreeStamps): string[] {
  return [...new Set([...before.unlike, ...changedTrusted(tree, before.stamps)])];
}

/** Whether the stamped file is of its entry's type, readable and writable by its owner, and executable by it exactly where the entry is. */
function likeMode(stamp: string | undefined, e: TreeEntry): boolean {
  const mode = Number(stamp?.split(' ')[3]); // NaN when absent or unreachable
  if (e.mode === LINK) return (mode & S_IFMT) === S_IFLNK;
  return (mode & S_IFMT) === S_IFREG && (mode & 0o700) === (e.mode === '100755' ? 0o700 : 0o600);
}
