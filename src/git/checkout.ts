// Changing a checkout: files written from git objects, the index edited, and
// a commit made the way a user makes one (`git commit`, so the user's hooks
// run and git signs it when it is set to sign).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Repo } from './repo.js';
import { runGit, splitNul } from './run.js';

/** An index entry: `mode` 0 takes the path out of the index. */
export interface IndexEntry {
  mode: string;
  oid: string;
  path: string;
}

const indexInfo = (entries: IndexEntry[]) => entries.map((e) => `${e.mode} ${e.oid}\t${e.path}\0`).join('');

/**
 * Writes each entry's blob at its path under `root` (mode and bytes as the
 * entry has them), through a throwaway index in a fresh folder under
 * `scratch`, so the index of the tree at `root` is never written. `env` is
 * what git needs to find that tree's repository from `root`.
 */
export async function checkoutEntries(
  root: string,
  entries: IndexEntry[],
  env: NodeJS.ProcessEnv,
  scratch = tmpdir(),
): Promise<void> {
  if (!entries.length) return;
  const dir = mkdtempSync(path.join(scratch, 'patchwarden-index-'));
  try {
    const git = (args: string[], input: string) =>
      runGit(root, args, { input, env: { ...env, GIT_INDEX_FILE: path.join(dir, 'index') } });
    await git(['update-index', '-z', '--index-info'], indexInfo(entries));
    await git(['checkout-index', '-f', '-z', '--stdin'], entries.map((e) => `${e.path}\0`).join(''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sets entries of the repository's index (mode 0 removes a path). */
export async function setIndexEntries(repo: Repo, entries: IndexEntry[]): Promise<void> {
  if (entries.length)
    await repo.run(['update-index', '-z', '--add', '--remove', '--index-info'], { input: indexInfo(entries) });
}

/** Writes `paths` into the working tree as the index has them. */
export async function checkoutIndex(repo: Repo, paths: string[]): Promise<void> {
  if (paths.length)
    await repo.run(['checkout-index', '-f', '-z', '--stdin'], { input: paths.map((p) => `${p}\0`).join('') });
}

/** Stages every change under `paths` (additions and removals too). */
export async function stagePaths(repo: Repo, paths: string[]): Promise<void> {
  if (paths.length) await repo.run(['add', '-A', '--', ...paths]);
}

/** Takes `paths` out of the index back to HEAD's version (the working tree is left alone). */
export async function unstage(repo: Repo, paths: string[]): Promise<void> {
  if (paths.length) await repo.run(['reset', '-q', 'HEAD', '--', ...paths], { okCodes: [1] });
}

/** Writes `file` in the index and the working tree back to what `rev` has. */
export async function checkoutAt(repo: Repo, rev: string, file: string): Promise<void> {
  await repo.run(['checkout', rev, '--', file]);
}

/** Whether the index differs from HEAD. */
export async function hasStagedChanges(repo: Repo): Promise<boolean> {
  return (await repo.run(['diff', '--cached', '--quiet'], { okCodes: [1] })).code !== 0;
}

/** Which of `paths` the working tree or the index changes against `rev`. */
export async function changedSince(repo: Repo, rev: string, paths: string[]): Promise<string[]> {
  if (!paths.length) return [];
  return splitNul((await repo.run(['diff', '-z', '--name-only', '--no-renames', rev, '--', ...paths])).stdout);
}

/** `git commit` of the index with `message`: null when made, else why git refused. */
export async function commitIndex(repo: Repo, message: string): Promise<string | null> {
  const r = await repo.run(['commit', '-q', '-m', message], { okCodes: [1] });
  return r.code === 0 ? null : r.stderr.trim() || `git commit exited ${r.code}`;
}
