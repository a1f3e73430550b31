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

export const diffFlags = ['-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none', '--name-status'];

/** The staged set: the index git hands the hook against HEAD. */
export async function stagedChanges(repo: Repo): Promise<Change[]> {
  const head = await repo.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { okCodes: [1] });
  const base = head.code === 0 ? head.stdout.toString('utf8').trim() : await emptyTree(repo);
  const out = await repo.run(['diff-index', '--cached', ...diffFlags, base, '--']);
  return parseNameStatus(splitNul(out.stdout));
}

export function parseNameStatus(fields: string[]): Change[] {
  const changes: Change[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changes.push({ status: fields[i], path: fields[i + 1] });
  return changes;
}

/** The commits a walk lists, oldest first, and the paths each one changed. */
export interface RangeChanges {
  commits: string[];
  changes: Map<string, Change[]>;
}

/**
 * Walks and diffs in one `git log` process: `revs` as rev-list takes them
 * (`TIP --not BASE`, `TIP --not --all`). A root commit lists every file; a
 * merge lists the paths it changed against all of its parents (what the merge
 * itself wrote, `-c`). Each commit's header field starts with \x01, so no
 * path can pass for one.
 */
export async function rangeChanges(repo: Repo, revs: string[]): Promise<RangeChanges> {
  const out = await repo.run(['-c', 'log.showSignature=false', 'log', '--reverse', '--format=%x01%H', '-r', '--root', '-c', ...diffFlags, ...revs, '--']);
  const commits: string[] = [];
  const changes = new Map<string, Change[]>();
  let current: Change[] = [];
  const fields = splitNul(out.stdout);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.startsWith('\x01')) {
      const id = f.slice(1);
      commits.push(id);
      changes.set(id, (current = []));
      continue;
    }
    // git puts a newline between a commit's header and its first status.
    const status = f.replace(/^\n/, '');
    if (status) current.push({ status, path: fields[++i] });
  }
  return { commits, changes };
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
