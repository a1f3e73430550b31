// Which paths a commit, the index or a range changes. Renames are never
// detected (--no-renames): a rename is its old and its new path, whatever the
// user's diff.renames says, and both count.
import type { Repo } from './repo.js';
import { emptyTree } from './repo.js';
import { splitNul } from './run.js';

export interface Change {
  /** A added, D deleted, M modified (content or mode), T type changed. */
  status: string;
  path: string;
}

const diffFlags = ['-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none', '--name-status'];

/** The staged set: the index git hands the hook against HEAD. */
export async function stagedChanges(repo: Repo): Promise<Change[]> {
  const head = await repo.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { okCodes: [1] });
  const base = head.code === 0 ? head.stdout.toString('utf8').trim() : await emptyTree(repo);
  const out = await repo.run(['diff-index', '--cached', ...diffFlags, base, '--']);
  return parseNameStatus(splitNul(out.stdout));
}

function parseNameStatus(fields: string[]): Change[] {
  const changes: Change[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changes.push({ status: fields[i], path: fields[i + 1] });
  return changes;
}

/**
 * The changes of many commits from one `git diff-tree --stdin` process. A root
 * commit lists every file; a merge lists the paths it changed against all of
 * its parents (what the merge itself wrote, `-c`).
 */
export async function commitChanges(repo: Repo, commits: string[]): Promise<Map<string, Change[]>> {
  const result = new Map<string, Change[]>(commits.map((c) => [c, []]));
  if (!commits.length) return result;
  const out = await repo.run(['diff-tree', '--stdin', '-r', '--root', '-c', ...diffFlags], { input: commits.join('\n') + '\n' });
  let current: Change[] | undefined;
  const fields = splitNul(out.stdout);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    // A header names the commit; otherwise a status and its path follow.
    if (result.has(f)) current = result.get(f);
    else current?.push({ status: f, path: fields[++i] });
  }
  return result;
}

/** Commits of `from..to`, oldest first. */
export async function rangeCommits(repo: Repo, from: string | null, to: string, extra: string[] = []): Promise<string[]> {
  const args = ['rev-list', '--reverse', to, ...(from ? ['--not', from] : []), ...extra];
  const out = await repo.text(args);
  return out ? out.split('\n') : [];
}

export interface RawChange extends Change {
  /** Mode and blob id on each side; '000000' and zeros where the path is absent. */
  oldMode: string;
  oldOid: string;
  newMode: string;
  newOid: string;
}

/** Every path that differs between two trees, with both sides' modes and blob ids. */
export async function treeDiff(repo: Repo, from: string, to: string): Promise<RawChange[]> {
  const out = await repo.run(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none', '--full-index', from, to, '--']);
  const fields = splitNul(out.stdout);
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldOid, newOid, status] = fields[i].replace(/^:/, '').split(' ');
    changes.push({ status, path: fields[i + 1], oldMode, oldOid, newMode, newOid });
  }
  return changes;
}
