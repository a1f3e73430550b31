// Which paths a commit, the index or a range changes. Renames are never
// detected (--no-renames): a rename is its old and its new path, whatever the
// user's diff.renames says, and both count.
import type { Repo } from './repo.js';
import { emptyTree } from './repo.js';
import { CannotJudge } from '../common/errors.js';
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

/** The commits a walk lists, oldest first, and the paths each one changed. */
export interface RangeChanges {
  commits: string[];
  /** Each commit's changes, with the new side's mode and blob id (symlinks are judged by their target). */
  changes: Map<string, RawChange[]>;
}

const rawFlags = ['-z', '--raw', '--full-index', '--no-abbrev', '--no-renames', '--no-ext-diff', '--no-textconv', '--ignore-submodules=none'];

interface Merge {
  id: string;
  tree: string;
  parents: string[];
}

/**
 * Walks and diffs in one `git log` process: `revs` as rev-list takes them
 * (`TIP --not BASE`, `TIP --not --all`). A root commit lists every file. A
 * merge lists what it authored: every path where its tree differs from git's
 * own merge of its parents (mergeChanges). Each commit's header field starts
 * with \x01, so no path can pass for one.
 */
export async function rangeChanges(repo: Repo, revs: string[]): Promise<RangeChanges> {
  const out = await repo.run(['-c', 'log.showSignature=false', 'log', '--reverse', '--format=%x01%H %T %P', '-r', '--root', ...rawFlags, ...revs, '--']);
  const commits: string[] = [];
  const changes = new Map<string, RawChange[]>();
  const merges: Merge[] = [];
  let current: RawChange[] = [];
  const fields = splitNul(out.stdout);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.startsWith('\x01')) {
      const [id, tree, ...parents] = f.slice(1).trim().split(' ');
      commits.push(id);
      changes.set(id, (current = []));
      // log shows no diff for a merge without -m/-c; its own is worked out below.
      if (parents.length > 1) merges.push({ id, tree, parents });
      continue;
    }
    // git puts a newline between a commit's header and its first entry.
    const raw = f.replace(/^\n/, '');
    if (raw) current.push(rawChange(raw, fields[++i]));
  }
  for (const [id, list] of await mergeChanges(repo, merges)) changes.set(id, list);
  return { commits, changes };
}

/** How many `git merge-tree` processes run at once. */
const MERGE_JOBS = 4;

/**
 * What each merge authored. Its tree is compared with the tree git's own
 * merge of its two parents writes (`merge-tree --write-tree`, git >= 2.38):
 * an honest merge differs nowhere, while a merge that takes one side whole
 * (`commit-tree X^{tree} -p MAIN -p X`) differs wherever it undid the other
 * side. Where git cannot merge cleanly (conflicts, an octopus, unrelated
 * histories, an older git) the merge is compared with its first parent: every
 * path it brings counts as its own. All comparisons run in one diff-tree.
 */
async function mergeChanges(repo: Repo, merges: Merge[]): Promise<Map<string, RawChange[]>> {
  const result = new Map<string, RawChange[]>();
  if (!merges.length) return result;
  const bases: string[] = new Array(merges.length);
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < merges.length; k = next++) bases[k] = await mergeBaseTree(repo, merges[k]);
  };
  await Promise.all(Array.from({ length: Math.min(MERGE_JOBS, merges.length) }, worker));
  const input = merges.map((m, k) => `${bases[k]} ${m.tree}\n`).join('');
  const out = await repo.run(['diff-tree', '--stdin', '-r', ...rawFlags], { input });
  // Each pair's header ("A B" and a newline) runs into the field after it.
  let k = -1;
  let current: RawChange[] = [];
  const fields = splitNul(out.stdout);
  for (let i = 0; i < fields.length; i++) {
    let f = fields[i];
    for (let h = /^[0-9a-f]+ [0-9a-f]+\n/.exec(f); h; h = /^[0-9a-f]+ [0-9a-f]+\n/.exec(f)) {
      f = f.slice(h[0].length);
      result.set(merges[++k].id, (current = []));
    }
    if (f) current.push(rawChange(f, fields[++i]));
  }
  if (k !== merges.length - 1) throw new CannotJudge(`git diff-tree answered for ${k + 1} of ${merges.length} merges`);
  return result;
}

/** The tree a merge is judged against: git's clean merge of its parents, else its first parent's tree. */
async function mergeBaseTree(repo: Repo, m: Merge): Promise<string> {
  if (m.parents.length === 2) {
    const r = await repo.run(['merge-tree', '--write-tree', '--no-messages', m.parents[0], m.parents[1]], { okCodes: [1, 128, 129] });
    const tree = r.stdout.toString('utf8').split('\n')[0];
    if (r.code === 0 && /^[0-9a-f]{40,64}$/.test(tree)) return tree;
  }
  return repo.text(['rev-parse', '--verify', '--end-of-options', `${m.parents[0]}^{tree}`]);
}

function rawChange(meta: string, path: string): RawChange {
  const [oldMode, newMode, oldOid, newOid, status] = meta.replace(/^:/, '').split(' ');
  return { status, path, oldMode, oldOid, newMode, newOid };
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
  for (let i = 0; i + 1 < fields.length; i += 2) changes.push(rawChange(fields[i], fields[i + 1]));
  return changes;
}
