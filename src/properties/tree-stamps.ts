// Under revert.jobs: 2 the head run and the reverted run go at once, as the
// same user, each in a tree under the system's temporary folder: code of one
// side (a Go or Rust test binary, which no runtime guard watches, or code
// past a guard) can find the other's tree and rewrite what it builds and
// runs. So every tracked file of a run's tree is stamped (trusted-files.ts:
// inode, change time, size, mode, which no write sets back) and then checked
// against the blob the tree holds, before the command starts, and stamped
// again once it ended; a file added where the tree's own .gitignore files do
// not ignore it (a .go file in a package) counts too. The check catches a
// write made while the tree was being made (the other side may be running
// already), the stamps one made after it, restored or not. Nothing of this
// is in the runs' reach: the blob ids come from the judge's own
// `git ls-tree`, the stamps stay in memory.
//
// Where the fence holds (fence.ts) the other side cannot write, make or
// remove anything of this tree, so the blob checks and the listing of added
// files would cost a read of every file for nothing. What the kernel's write
// rights leave open is a file's metadata (chmod, utimes, extended
// attributes): a file made unreadable, or its execute bit flipped, changes
// what the run does. So the stamps stay (one lstat a file), and each file's
// type and owner bits are checked against its entry before the command.
import { createHash } from 'node:crypto';
import { constants, readlinkSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../common/regular-file.js';
import { checkoutUntracked } from '../git/files.js';
import { blobIdAs, type TreeEntry } from '../git/objects.js';
import { changedTrusted, stampTrusted, type TrustedStamps } from './trusted-files.js';

export interface TreeStamps {
  stamps: TrustedStamps;
  /** Files already unlike their blob when stamped. */
  unlike: string[];
  /** The untracked files then: the entries `revert.link` linked in, and any other counted in `unlike`; null under the fence, where none can be added. */
  untracked: Set<string> | null;
}

const LINK = '120000';
const { S_IFMT, S_IFLNK, S_IFREG } = constants;
const REGULAR = new Set(['100644', '100755']);

/**
 * Stamps every file of `entries` (a tree's, as `git ls-tree -r` lists it) in
 * the checkout at `tree`, then checks each against its blob; an untracked
 * file other than the `linked` entries is already one too many. `fenced`:
 * each checked against its entry's type and mode only.
 */
export async function stampTree(
  tree: string,
  { entries, linked }: { entries: TreeEntry[]; linked: string[] },
  env: NodeJS.ProcessEnv,
  fenced: boolean,
): Promise<TreeStamps> {
  const files = entries.filter((e) => e.type === 'blob');
  const stamps = stampTrusted(
    tree,
    files.map((e) => e.path),
  );
  if (fenced)
    return {
      stamps,
      unlike: files.filter((e) => !likeMode(stamps.get(e.path), e)).map((e) => e.path),
      untracked: null,
    };
  const untracked = new Set(checkoutUntracked(tree, env));
  const unlike = [...untracked].filter((f) => !linked.includes(f.replace(/\/$/, '')));
  for (const e of files) if (!(await likeBlob(tree, e, env))) unlike.push(e.path);
  return { stamps, unlike, untracked };
}

/** The files not as `before` found them: unlike their blob then, changed since, or added. */
export function changedTree(tree: string, before: TreeStamps, env: NodeJS.ProcessEnv): string[] {
  const untracked = before.untracked;
  const added = untracked ? checkoutUntracked(tree, env).filter((f) => !untracked.has(f)) : [];
  return [...new Set([...before.unlike, ...changedTrusted(tree, before.stamps), ...added])];
}

/** Whether the file holds its blob's bytes: a link its target, a regular file its content (through the path's filters where the bytes alone differ). */
async function likeBlob(tree: string, e: TreeEntry, env: NodeJS.ProcessEnv): Promise<boolean> {
  const file = path.join(tree, e.path);
  let bytes: Buffer | null;
  try {
    bytes =
      e.mode === LINK
        ? readlinkSync(file, { encoding: 'buffer' })
        : REGULAR.has(e.mode)
          ? readRegularFile(file, 2 ** 31)
          : null;
  } catch {
    return false; // gone, or a link where a file was
  }
  if (!bytes) return false;
  const algo = e.oid.length === 64 ? 'sha256' : 'sha1';
  const id = createHash(algo).update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  if (id === e.oid) return true;
  return e.mode !== LINK && (await blobIdAs(tree, e.path, bytes, env)) === e.oid;
}

/** Whether the stamped file is of its entry's type, readable and writable by its owner, and executable by it exactly where the entry is. */
function likeMode(stamp: string | undefined, e: TreeEntry): boolean {
  const mode = Number(stamp?.split(' ')[3]); // NaN when absent or unreachable
  if (e.mode === LINK) return (mode & S_IFMT) === S_IFLNK;
  return (mode & S_IFMT) === S_IFREG && (mode & 0o700) === (e.mode === '100755' ? 0o700 : 0o600);
}
