// Linked worktrees the guard adds for its own runs, and removes. Adding and
// removing one runs no hook of the user's, and removal touches only that
// worktree's own entry; and the git directory a worktree shares.
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import type { Repo } from './repo.js';
import { NO_HOOKS, runGit, runGitSync } from './run.js';

/**
 * `git worktree add` of a detached, empty checkout of `commit` at `dir`,
 * tried again when it trips over another check's entry still being written
 * (git reads every entry's files while adding one).
 */
export async function addWorktree(repo: Repo, dir: string, commit: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const r = await repo.run([...NO_HOOKS, 'worktree', 'add', '--detach', '--no-checkout', '--quiet', dir, commit], {
      okCodes: [128],
    });
    if (r.code === 0) return;
    if (attempt === 3 || !/failed to read .*worktrees\//.test(r.stderr))
      throw new CannotJudge(`git worktree add ${dir} failed: ${r.stderr.trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/** Fills the checkout at `dir` (its index and files) with `tree`; `env` is what git needs to find its repository from there. */
export async function fillWorktree(dir: string, tree: string, env: NodeJS.ProcessEnv): Promise<void> {
  await runGit(dir, ['read-tree', '--reset', '-u', tree], { env });
}

/** `git worktree remove` of `dir`, modified or not; false when git does not know it. */
export async function removeWorktree(repo: Repo, dir: string): Promise<boolean> {
  const r = await repo.run([...NO_HOOKS, 'worktree', 'remove', '--force', '--force', dir], { okCodes: [128, 1] });
  return r.code === 0;
}

/** The git directory every worktree of the checkout at `dir` shares (absolute). */
export function commonGitDir(dir: string, env?: NodeJS.ProcessEnv): string {
  return path.resolve(dir, runGitSync(dir, ['rev-parse', '--git-common-dir'], { env }).stdout.toString().trim());
}
