// Small questions about history and remotes that the enforcement points ask:
// whether the clone is shallow, what a remote holds, and commits' subjects
// for a refusal (whether one commit is an ancestor of another is repo.ts's).
import type { Repo } from './repo.js';

/** Whether this clone is shallow (its history cut off at a depth). */
export async function isShallow(repo: Repo): Promise<boolean> {
  return (await repo.text(['rev-parse', '--is-shallow-repository'])) === 'true';
}

/** The commits `tip` reaches that no remote-tracking ref of `remote` does, oldest first. */
export async function notOnRemote(repo: Repo, tip: string, remote: string): Promise<string[]> {
  const out = await repo.text(['rev-list', '--reverse', tip, '--not', `--remotes=${remote}`]);
  return out ? out.split('\n') : [];
}

/** Whether this clone has any remote-tracking ref of `remote` (it has fetched from it). */
export async function tracksRemote(repo: Repo, remote: string): Promise<boolean> {
  return Boolean(await repo.text(['for-each-ref', '--count=1', '--format=%(refname)', `refs/remotes/${remote}/`]));
}

/** Whether `remote` itself holds any ref, asked of the remote. */
export async function remoteHoldsRefs(repo: Repo, remote: string): Promise<boolean> {
  return Boolean((await repo.text(['ls-remote', '--end-of-options', remote])).trim());
}

/** The first line of each named commit's message. */
export async function subjects(repo: Repo, commits: string[]): Promise<Map<string, string>> {
  if (!commits.length) return new Map();
  const out = await repo.run(['log', '--no-walk=unsorted', '--stdin', '-z', '--format=%H %s'], {
    input: commits.join('\n') + '\n',
  });
  return new Map(
    out.stdout
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((r) => [r.slice(0, r.indexOf(' ')), r.slice(r.indexOf(' ') + 1)]),
  );
}
