// The trees the revert check judges. `commitWith` makes a commit of the
// base with some paths taken from head (git/trees.ts writes the tree).
// `revertPaths` puts paths of a checked-out tree back to the old side of
// a diff: files the new side added are removed, changed and deleted ones come
// back at their old bytes and modes (a rename is both, so it is undone);
// in-place mode builds its judged tree so, and sets work in progress aside.
// The files are written through a throwaway index (in `scratch`), so it never
// writes the index of the tree it works in.
import { readdirSync, rmdirSync, rmSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RawChange } from '../git/changes.js';
import { ABSENT, GITLINK } from '../git/raw-diff.js';
import { checkoutEntries } from '../git/checkout.js';
import { listTree } from '../git/objects.js';
import { commitTree, treeWith } from '../git/trees.js';
import type { Repo } from '../git/repo.js';

export interface Reverted {
  path: string;
  /** What the revert did to it: restored to base, or removed (the patch added it). */
  action: 'restored' | 'removed';
}

/** The changes `revertPaths` can undo in a working tree; submodule pointers are left as they are. */
export function revertable(changes: RawChange[]): RawChange[] {
  return changes.filter((c) => c.oldMode !== GITLINK && c.newMode !== GITLINK);
}

/** A fixed identity and date: the same inputs give the same commit, whoever runs the hook. */
const MAKER = {
  GIT_AUTHOR_NAME: 'patchwarden',
  GIT_AUTHOR_EMAIL: 'patchwarden@localhost',
  GIT_AUTHOR_DATE: '1970-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'patchwarden',
  GIT_COMMITTER_EMAIL: 'patchwarden@localhost',
  GIT_COMMITTER_DATE: '1970-01-01T00:00:00Z',
};

/** treeWith's tree as a commit on top of `onto`: where a revert check starts when some of a range's own changes count as the base's. */
export async function commitWith(repo: Repo, onto: string, changes: RawChange[], message: string): Promise<string> {
  return commitTree(repo, await treeWith(repo, onto, changes), [onto], message, MAKER);
}

/** Code files of a tree that `keep` accepts (the guard's list of the base's spec and harness). */
export async function codeFiles(repo: Repo, tree: string, keep: (file: string) => boolean): Promise<string[]> {
  return (await listTree(repo, tree)).map((e) => e.path).filter((f) => CODE.test(f) && keep(f));
}

const CODE = /\.(py|pyw|js|mjs|cjs|jsx|ts|mts|cts|tsx)$/;

/**
 * Writes the old side of `changes` into the tree at `root`. `env` is what git
 * needs to find that tree's repository from `root`; the throwaway index goes
 * into a fresh folder under `scratch`.
 */
export async function revertPaths(
  root: string,
  changes: RawChange[],
  env: NodeJS.ProcessEnv,
  scratch = tmpdir(),
): Promise<Reverted[]> {
  const done: Reverted[] = [];
  for (const c of changes.filter((c) => c.oldMode === ABSENT)) {
    rmSync(path.join(root, c.path), { force: true });
    pruneEmptyParents(root, c.path);
    done.push({ path: c.path, action: 'removed' });
  }
  const restore = changes.filter((c) => c.oldMode !== ABSENT);
  await checkoutEntries(
    root,
    restore.map((c) => ({ mode: c.oldMode, oid: c.oldOid, path: c.path })),
    env,
    scratch,
  );
  for (const c of restore) done.push({ path: c.path, action: 'restored' });
  return done;
}

/** Removes the folders a removal left empty, up to (never including) the root. */
export function pruneEmptyParents(root: string, file: string, keep: (dir: string) => boolean = () => false): void {
  for (let dir = path.posix.dirname(file); dir !== '.' && dir !== '/' && !keep(dir); dir = path.posix.dirname(dir)) {
    const full = path.join(root, dir);
    try {
      if (!lstatSync(full).isDirectory() || readdirSync(full).length) return;
      rmdirSync(full);
    } catch {
      return;
    }
  }
}
