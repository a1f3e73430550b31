// Which paths a commit, the index or a range changes. Renames are never
// detected (--no-renames): a rename is its old and its new path, whatever the
// user's diff.renames says, and both count.
import type { Repo } from './repo.js';
import { mergeChanges, type Walked } from './merges.js';
import { parseRaw, rawChange, rawFlags, type RawChange } from './raw-diff.js';
import { nulFields, splitNul } from './run.js';

export type { Change, RawChange } from './raw-diff.js';

/** The commits a walk lists, oldest first, and the paths each one changed. */
export interface RangeChanges {
  commits: string[];
  /** Each commit's changes, with the new side's mode and blob id (symlinks are judged by their target). */
  changes: Map<string, RawChange[]>;
  /** Each commit's parents. */
  parents: Map<string, string[]>;
  /** The values of the trailer asked for, for each commit whose message carries it. */
  trailers: Map<string, string[]>;
}

/**
 * Walks and diffs in one `git log` process: `revs` as rev-list takes them
 * (`TIP --not BASE`, `TIP --not --all`; with `--stdin`, the tips given in
 * `tips` come first, so `['--stdin', '--not', '--all']` walks what many tips
 * bring at once). A root commit lists every file. A
 * merge lists what it authored: every path where its tree differs from git's
 * own merge of its parents (mergeChanges, which starts from every commit's
 * diff against its first parent, listed by the same process). Each commit's
 * header field starts with \x01, so no path can pass for one. With
 * `trailer`, the same walk reads that trailer's values from each message
 * (git matches the key in any case), so a long push is not walked twice.
 * With `onCommit`, each commit is handed over once with its final changes
 * while git still walks (a merge's once they are worked out, after the walk),
 * so a caller can judge a long push as it arrives.
 */
export async function rangeChanges(
  repo: Repo,
  revs: string[],
  opts: { tips?: string[]; trailer?: string; onCommit?: (id: string, changes: RawChange[]) => void } = {},
): Promise<RangeChanges> {
  const onCommit = opts.onCommit ?? (() => {});
  // Newest first, read as git writes it: --reverse would hold every line back until the walk ends.
  const walked: Walked[] = [];
  // Each commit's diff against its first parent (a root's against nothing); a merge's is replaced below.
  const changes = new Map<string, RawChange[]>();
  const trailers = new Map<string, string[]>();
  let current: RawChange[] = [];
  let meta: string | null = null;
  // A commit's changes are whole once the next commit's header (or the end) arrives.
  const done = () => {
    const last = walked.at(-1);
    if (last && last.parents.length < 2) onCommit(last.id, current);
  };
  const onStdout = nulFields((f) => {
    if (meta !== null) {
      current.push(rawChange(meta, f));
      meta = null;
    } else if (f.startsWith('\x01')) {
      const cut = f.indexOf('\x1f');
      const [id, tree, ...parents] = f
        .slice(1, cut < 0 ? f.length : cut)
        .trim()
        .split(' ');
      done();
      walked.push({ id, tree, parents });
      changes.set(id, (current = []));
      const values =
        cut < 0
          ? []
          : f
              .slice(cut + 1)
              .split('\x1e')
              .map((v) => v.trim())
              .filter(Boolean);
      if (values.length) trailers.set(id, values);
    } else {
      // git puts a newline between a commit's header and its first entry.
      const raw = f.replace(/^\n/, '');
      if (raw) meta = raw;
    }
  });
  await repo.run(
    [
      '-c',
      'log.showSignature=false',
      'log',
      `--format=%x01%H %T %P${opts.trailer ? `%x1f%(trailers:key=${opts.trailer},valueonly,unfold,separator=%x1e)` : ''}`,
      '--diff-merges=first-parent',
      '-r',
      '--root',
      ...rawFlags,
      ...revs,
      '--',
    ],
    { onStdout, input: (opts.tips ?? []).map((t) => `${t}\n`).join('') },
  );
  done();
  walked.reverse();
  for (const [id, list] of await mergeChanges(repo, walked, changes)) {
    changes.set(id, list);
    onCommit(id, list);
  }
  return {
    commits: walked.map((c) => c.id),
    changes,
    parents: new Map(walked.map((c) => [c.id, c.parents])),
    trailers,
  };
}

/** Every path that differs between two trees, with both sides' modes and blob ids. */
export async function treeDiff(repo: Repo, from: string, to: string): Promise<RawChange[]> {
  return parseRaw(splitNul((await repo.run(['diff-tree', '-r', ...rawFlags, from, to, '--'])).stdout));
}

/** The paths the index changes against `rev`, deletions among them (no renames: both sides count). */
export async function stagedPaths(repo: Repo, rev: string): Promise<string[]> {
  return splitNul((await repo.run(['diff-index', '--cached', '-z', '--name-only', '--no-renames', rev, '--'])).stdout);
}
