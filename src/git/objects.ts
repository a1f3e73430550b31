// Reading trees, the index and blobs from git objects, so the same checks run
// on the index, on a commit, and in a bare repository (push quarantine too).
import type { Repo } from './repo.js';
import { streamBlobs } from './blob-stream.js';
import { splitNul } from './run.js';
import { GITLINK } from './raw-diff.js';

/** Each blob's size in bytes, in the order given (NaN for one git cannot size). */
export async function blobSizes(repo: Repo, oids: string[]): Promise<number[]> {
  const out = await repo.text(['cat-file', '--batch-check=%(objectsize)'], {
    input: oids.map((o) => `${o}\n`).join(''),
  });
  return out.split('\n').filter(Boolean).map(Number);
}

export interface TreeEntry {
  mode: string;
  /** blob, tree or commit (a submodule). */
  type: string;
  oid: string;
  path: string;
}

/** Every entry of a commit's tree below `prefix` (recursive). */
export async function listTree(repo: Repo, rev: string, prefix?: string): Promise<TreeEntry[]> {
  const args = ['ls-tree', '-r', '-z', '--full-tree', rev];
  if (prefix) args.push('--', prefix);
  const out = await repo.run(args);
  return splitNul(out.stdout).map((rec) => {
    const tab = rec.indexOf('\t');
    const [mode, type, oid] = rec.slice(0, tab).split(' ');
    return { mode, type, oid, path: rec.slice(tab + 1) };
  });
}

/** Every stage-0 entry of the index below `prefix` (honours GIT_INDEX_FILE). */
export async function listIndex(repo: Repo, prefix?: string): Promise<TreeEntry[]> {
  const args = ['ls-files', '-s', '-z', '--full-name'];
  if (prefix) args.push('--', `:(top,literal)${prefix}`);
  const out = await repo.run(args);
  return splitNul(out.stdout).map((rec) => {
    const tab = rec.indexOf('\t');
    const [mode, oid] = rec.slice(0, tab).split(' ');
    return { mode, type: mode === GITLINK ? 'commit' : 'blob', oid, path: rec.slice(tab + 1) };
  });
}

/** The bytes of one file at a revision (`REV`, or `:` for the index); null if absent. */
export async function readFileAt(repo: Repo, rev: string, file: string): Promise<Buffer | null> {
  const spec = rev === ':' ? `:${file}` : `${rev}:${file}`;
  const r = await repo.run(['cat-file', 'blob', spec], { okCodes: [128] });
  return r.code === 0 ? r.stdout : null;
}

/** Reads many blobs (or other objects of `type`, e.g. commits) whole, from one `git cat-file --batch` process; a missing one is an error. */
export async function readBlobs(repo: Repo, oids: string[], type = 'blob'): Promise<Map<string, Buffer>> {
  const parts = new Map<string, Buffer[]>();
  await streamBlobs(
    repo,
    oids,
    {
      data: (oid, chunk) => {
        if (!parts.has(oid)) parts.set(oid, []);
        parts.get(oid)!.push(chunk);
      },
      end: (oid) => {
        if (!parts.has(oid)) parts.set(oid, []);
      },
    },
    type,
  );
  return new Map([...parts].map(([oid, chunks]) => [oid, Buffer.concat(chunks)]));
}
