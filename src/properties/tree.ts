// Putting paths of a tree back to the old side of a diff: files the new side
// added are removed, changed and deleted ones come back at their old bytes and
// modes (a rename is both, so it is undone). The revert check uses it to build
// the judged tree and to revert the production diff; in-place mode also to set
// work in progress aside. The files are written through a throwaway index (in
// `scratch`), so neither mode ever writes the index of the tree it works in.
import { mkdtempSync, readdirSync, rmdirSync, rmSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RawChange } from '../git/changes.js';
import { runGit } from '../git/run.js';

const ABSENT = '000000';

export interface Reverted {
  path: string;
  /** What the revert did to it: restored to base, or removed (the patch added it). */
  action: 'restored' | 'removed';
}

/** The changes a revert can undo; submodule pointers are left as they are. */
export function revertable(changes: RawChange[]): RawChange[] {
  return changes.filter((c) => c.oldMode !== '160000' && c.newMode !== '160000');
}

/**
 * Writes the old side of `changes` into the tree at `root`. `env` is what git
 * needs to find that tree's repository from `root`; the throwaway index goes
 * into a fresh folder under `scratch`.
 */
export async function revertPaths(root: string, changes: RawChange[], env: NodeJS.ProcessEnv, scratch = tmpdir()): Promise<Reverted[]> {
  const done: Reverted[] = [];
  for (const c of changes.filter((c) => c.oldMode === ABSENT)) {
    rmSync(path.join(root, c.path), { force: true });
    pruneEmptyParents(root, c.path);
    done.push({ path: c.path, action: 'removed' });
  }
  const restore = changes.filter((c) => c.oldMode !== ABSENT);
  if (!restore.length) return done;
  const dir = mkdtempSync(path.join(scratch, 'patchwarden-index-'));
  try {
    const git = (args: string[], input: string) => runGit(root, args, { input, env: { ...env, GIT_INDEX_FILE: path.join(dir, 'index') } });
    await git(['update-index', '-z', '--index-info'], restore.map((c) => `${c.oldMode} ${c.oldOid}\t${c.path}\0`).join(''));
    await git(['checkout-index', '-f', '-z', '--stdin'], restore.map((c) => `${c.path}\0`).join(''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
