// The files of a working tree as git lists them: the tracked ones, and the
// untracked ones git does not ignore (what the next `git add -A` commits).
import type { Repo } from './repo.js';
import { runGitSync, splitNul } from './run.js';

const LISTED = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];

/** Tracked and untracked, not ignored, files of the repository's working tree, from its top, each once (a conflicted path is one). */
export async function workingFiles(repo: Repo): Promise<string[]> {
  return [...new Set(splitNul((await repo.run([...LISTED, '--full-name'])).stdout))];
}

/**
 * The same for the checkout at `dir` (a temporary tree among them), relative
 * to it; `env` is what git needs to find that checkout's repository from
 * there. Blocking: a trace's path is looked up where no promise can be awaited.
 */
export function checkoutFiles(dir: string, env?: NodeJS.ProcessEnv): string[] {
  return [...new Set(splitNul(runGitSync(dir, LISTED, { env }).stdout))];
}

/** The tracked files of the checkout at `dir`, relative to it (as `checkoutFiles`, without the untracked). */
export function checkoutTracked(dir: string, env?: NodeJS.ProcessEnv): string[] {
  return [...new Set(splitNul(runGitSync(dir, ['ls-files', '-z', '--cached'], { env }).stdout))];
}

/** Tracked files only, from the top. */
export async function trackedFiles(repo: Repo): Promise<string[]> {
  return [...new Set(splitNul((await repo.run(['ls-files', '-z', '--cached', '--full-name'])).stdout))];
}

/** Whether git tracks `file`, or anything under it when it is a folder (a path from the top). */
export async function isTracked(repo: Repo, file: string): Promise<boolean> {
  return (await repo.run(['ls-files', '-z', '--', `:(top,literal)${file}`])).stdout.length > 0;
}

/** Whether git's ignore rules ignore `file` by its name alone, tracked or not (a folder ends with `/`). */
export async function isIgnored(repo: Repo, file: string): Promise<boolean> {
  return (await repo.run(['check-ignore', '-q', '--no-index', '--', file], { okCodes: [1] })).code === 0;
}

/** Whether the commit `rev` tracks any file under `paths`; false when there is no such commit (an unborn HEAD). */
export async function tracksAnyAt(repo: Repo, rev: string, paths: string[]): Promise<boolean> {
  const r = await repo.run(['ls-tree', '-r', '--name-only', '-z', rev, '--', ...paths], { okCodes: [128] });
  return r.code === 0 && r.stdout.length > 0;
}
