// The environment of a property run, in one place. Git's own variables are
// cleared (a command in a temporary tree must not reach the user's
// repository); temporary files and runner caches go to the run's own root,
// so one run leaves nothing another reads (Go's build cache is the run's own
// copy of a seed only reverted runs write, buildcache.ts); and the runtime
// guards are loaded first in every Python and Node process.
import path from 'node:path';
import type { GuardSession } from './guard/session.js';

/** Git's own variables would point a command in another tree at the user's repository. */
export const TREE_ENV: NodeJS.ProcessEnv = {
  GIT_DIR: undefined,
  GIT_WORK_TREE: undefined,
  GIT_INDEX_FILE: undefined,
  GIT_PREFIX: undefined,
  GIT_COMMON_DIR: undefined,
  GIT_OBJECT_DIRECTORY: undefined,
};

/** What a run with its own temporary root `tmp` and Go build cache `gocache`, guarded by `guard`, adds to the caller's environment. */
export function propertyRunEnv(
  tmp: string,
  gocache: string,
  guard: GuardSession,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const nodeOptions = [base.NODE_OPTIONS, `--require ${JSON.stringify(guard.nodePreload)}`].filter(Boolean).join(' ');
  return {
    ...TREE_ENV,
    TMPDIR: tmp,
    XDG_CACHE_HOME: path.join(tmp, 'cache'),
    GOCACHE: gocache,
    // No bytecode written (the guard reads none from the tree's __pycache__ either).
    PYTHONDONTWRITEBYTECODE: '1',
    HYPOTHESIS_STORAGE_DIRECTORY: path.join(tmp, 'hypothesis'),
    PYTHONPATH: [guard.pythonPath, base.PYTHONPATH].filter(Boolean).join(path.delimiter),
    NODE_OPTIONS: nodeOptions,
    PATCHWARDEN_GUARD: guard.config,
    // Set by the check alone (onlyEnv), never inherited.
    PATCHWARDEN_ONLY: undefined,
  };
}

/**
 * Which side of the revert check a run is: `head` (the base plus the
 * production diff) or `base` (the diff reverted). Set last, so no config can
 * change it; a project reads it to give each side its own database and ports.
 */
export const SIDE_VARIABLE = 'PATCHWARDEN_SIDE';

export function sideEnv(side: 'head' | 'revert'): Record<string, string> {
  return { [SIDE_VARIABLE]: side === 'head' ? 'head' : 'base' };
}

/**
 * The cases a run is to run, by name (a JSON list), where the runner can be
 * told through the runtime guard (pytest's plugin deselects the rest; under
 * node:test the preload creates the rest skipped); other runners run every
 * case. The revert check names the cases a cached reverted run cannot answer
 * for, and takes only those from the run.
 */
export function onlyEnv(names: string[] | undefined): Record<string, string> {
  return names ? { PATCHWARDEN_ONLY: JSON.stringify(names) } : {};
}

/**
 * Which shard of its side a run is (K/N, shard.ts), for the runners that
 * shard themselves: `{shard}` in properties.command reads it (node
 * --test-shard, jest and vitest --shard), and the guard's pytest plugin
 * keeps only its own share of the test files. Unsplit runs are 1/1.
 */
export const SHARD_VARIABLE = 'PATCHWARDEN_SHARD';

export function shardEnv(shard: string | null): Record<string, string> {
  return { [SHARD_VARIABLE]: shard ?? '1/1' };
}
