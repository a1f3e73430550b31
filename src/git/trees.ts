// Trees written from a tree and a set of changes, without touching the index
// or the working tree: through a temporary index of their own; trees of
// given entries, and commits of a tree.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ABSENT, type RawChange } from './raw-diff.js';
import type { Repo } from './repo.js';
import type { TreeEntry } from './objects.js';

/** The id of the tree a commit (or tag, or tree) `rev` names; an error when it names none. */
export async function treeOf(repo: Repo, rev: string): Promise<string> {
  return repo.text(['rev-parse', '--verify', '--end-of-options', `${rev}^{tree}`]);
}

/**
 * The tree `base` (null: the empty tree) with each of `changes` taken at its
 * new side (added, changed, removed; any mode: files, links, submodule
 * pointers), as a git object. The temporary index goes in `scratch`.
 */
export async function treeWith(
  repo: Repo,
  base: string | null,
  changes: Pick<RawChange, 'path' | 'newMode' | 'newOid'>[],
  scratch = tmpdir(),
): Promise<string> {
  if (base && !changes.length) return treeOf(repo, base);
  const tmp = await mkdtemp(path.join(scratch, 'patchwarden-index-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
    await repo.run(base ? ['read-tree', base] : ['read-tree', '--empty'], { env });
    // Mode 0 takes a path out of the index.
    const info = changes.map((c) => `${c.newMode === ABSENT ? '0' : c.newMode} ${c.newOid}\t${c.path}\0`);
    if (info.length) await repo.run(['update-index', '-z', '--index-info'], { env, input: info.join('') });
    return await repo.text(['write-tree'], { env });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** A tree of exactly `entries` (paths without a slash; a `tree` entry is a tree object), as a git object. */
export async function makeTree(repo: Repo, entries: TreeEntry[]): Promise<string> {
  return repo.text(['mktree', '-z'], {
    input: entries.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.path}\0`).join(''),
  });
}

/** A commit of `tree` on `parents` (none: a root commit), by the identity and dates `env` sets. */
export async function commitTree(
  repo: Repo,
  tree: string,
  parents: string[],
  message: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return repo.text(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message], { env });
}
