// git's raw diff records (`:oldmode newmode oldoid newoid status`, then the
// path), read NUL-separated, with full object ids.
import type { Repo } from './repo.js';
import { splitNul } from './run.js';
import { CannotJudge } from '../common/errors.js';

export interface Change {
  /** A added, D deleted, M modified (content or mode), T type changed. */
  status: string;
  path: string;
}

export interface RawChange extends Change {
  /** Mode and blob id on each side; '000000' and zeros where the path is absent. */
  oldMode: string;
  oldOid: string;
  newMode: string;
  newOid: string;
}

/** The mode of a side where the path is absent (added on the new side, deleted on the old). */
export const ABSENT = '000000';
/** The mode of a symbolic link. */
export const SYMLINK = '120000';
/** The mode of a submodule pointer (gitlink). */
export const GITLINK = '160000';

/** Raw output, whole ids, no renames, no user diff drivers, submodules as they are. */
export const rawFlags = [
  '-z',
  '--raw',
  '--full-index',
  '--no-abbrev',
  '--no-renames',
  '--no-ext-diff',
  '--no-textconv',
  '--ignore-submodules=none',
];

export function rawChange(meta: string, path: string): RawChange {
  // `:MODE MODE OID OID STATUS`: modes are six digits, both ids of one length (sliced, not split: a push can hold millions).
  const n = meta.indexOf(' ', 15) - 15;
  return {
    status: meta.slice(17 + 2 * n),
    path,
    oldMode: meta.slice(1, 7),
    newMode: meta.slice(8, 14),
    oldOid: meta.slice(15, 15 + n),
    newOid: meta.slice(16 + n, 16 + 2 * n),
  };
}

/** The records of one diff's NUL-separated raw output (a record, then its path). */
export function parseRaw(fields: string[]): RawChange[] {
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changes.push(rawChange(fields[i], fields[i + 1]));
  return changes;
}

/** The differences of many pairs of trees, in order, from one `diff-tree --stdin`. */
export async function diffPairs(repo: Repo, pairs: [string, string][]): Promise<RawChange[][]> {
  if (!pairs.length) return [];
  const out = await repo.run(['diff-tree', '--stdin', '-r', ...rawFlags], {
    input: pairs.map(([a, b]) => `${a} ${b}\n`).join(''),
  });
  // Each pair's header ("A B" and a newline) runs into the field after it.
  const result: RawChange[][] = [];
  let current: RawChange[] = [];
  const fields = splitNul(out.stdout);
  const header = /^[0-9a-f]+ [0-9a-f]+\n/;
  for (let i = 0; i < fields.length; i++) {
    let f = fields[i];
    for (let h = header.exec(f); h; h = header.exec(f)) {
      f = f.slice(h[0].length);
      result.push((current = []));
    }
    if (f) current.push(rawChange(f, fields[++i]));
  }
  if (result.length !== pairs.length)
    throw new CannotJudge(`git diff-tree answered for ${result.length} of ${pairs.length} pairs of trees`);
  return result;
}
