// What commits say of themselves (authors, signatures, trailers) and which
// commits a history holds, each from one process however many are asked about.
import type { Repo } from './repo.js';
import { splitNul } from './run.js';

/**
 * One record per commit of `commits`, in their order: `format` as `git log
 * --format` takes it, one process. `allowedSigners`: the file git checks SSH
 * signatures against (for %G? and %GS).
 */
export async function commitRecords(
  repo: Repo,
  commits: string[],
  format: string,
  opts: { allowedSigners?: string } = {},
): Promise<string[]> {
  if (!commits.length) return [];
  const settings = opts.allowedSigners ? ['-c', `gpg.ssh.allowedSignersFile=${opts.allowedSigners}`] : [];
  const out = await repo.run([...settings, 'log', '--no-walk=unsorted', '--stdin', '-z', `--format=${format}`], {
    input: `${commits.join('\n')}\n`,
  });
  return splitNul(out.stdout);
}

/** The newest `max` commits of `rev`'s first-parent line that change `file`, newest first. */
export async function firstParentChanges(repo: Repo, rev: string, file: string, max: number): Promise<string[]> {
  const out = await repo.text([
    'rev-list',
    '--first-parent',
    `--max-count=${max}`,
    '--end-of-options',
    rev,
    '--',
    file,
  ]);
  return out.split('\n').filter(Boolean);
}

/**
 * The commits reachable from `tips` and from none of `exclude`: commits, or
 * options rev-list takes (`--all`, `--remotes=NAME`), which only the command
 * line carries; the tips go on stdin, where that `--not` does not reach.
 */
export async function reachableFrom(repo: Repo, tips: string[], exclude: string[]): Promise<string[]> {
  if (!tips.length) return [];
  const out = await repo.text(['rev-list', ...(exclude.length ? ['--not', ...exclude] : []), '--stdin'], {
    input: `${tips.join('\n')}\n`,
  });
  return out.split('\n').filter(Boolean);
}

/**
 * The trailers of a message file, one `Key: value` a line, read by git's own
 * trailer parser as `git log` reads a commit's (no `---` divider; comment
 * lines ignored).
 */
export async function messageTrailers(repo: Repo, file: string): Promise<string> {
  return repo.text(['interpret-trailers', '--parse', '--no-divider', file]);
}
