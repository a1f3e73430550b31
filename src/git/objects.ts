// Reading trees, the index and blobs from git objects, so the same checks run
// on the index, on a commit, and in a bare repository (push quarantine too).
import { CannotJudge } from '../common/errors.js';
import { commitAndParent, type Repo } from './repo.js';
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

/** The blob of `oid` whole; an error when there is none. */
export async function readBlob(repo: Repo, oid: string): Promise<Buffer> {
  return (await repo.run(['cat-file', 'blob', oid])).stdout;
}

/** Stores `bytes` as a blob, exactly as given (no filters); its id. */
export async function writeBlob(repo: Repo, bytes: Buffer | string): Promise<string> {
  return repo.text(['hash-object', '-w', '--no-filters', '--stdin'], { input: bytes });
}

/** The blob ids of files on disk (absolute paths), of their raw bytes (no filters), stored when `write`; many per git process. */
export async function hashFiles(repo: Repo, files: string[], write: boolean): Promise<string[]> {
  const oids: string[] = [];
  for (let i = 0; i < files.length; ) {
    const chunk: string[] = [];
    let size = 0;
    while (i < files.length && size < 64_000) {
      chunk.push(files[i]);
      size += files[i].length + 1;
      i++;
    }
    const out = await repo.run(['hash-object', ...(write ? ['-w'] : []), '--no-filters', '--', ...chunk]);
    oids.push(...out.stdout.toString('utf8').trim().split('\n'));
  }
  return oids;
}

/** Whether `spec` (`REV`, `REV:PATH`, `REV^{commit}`) names an object this repository holds. */
export async function objectExists(repo: Repo, spec: string): Promise<boolean> {
  return (await repo.run(['cat-file', '-e', spec], { okCodes: [1, 128] })).code === 0;
}

/** The id of the object `spec` names (`REV:PATH` the blob or tree there), or null when it names none. */
export async function objectId(repo: Repo, spec: string): Promise<string | null> {
  const r = await repo.run(['rev-parse', '--verify', '--quiet', '--end-of-options', spec], { okCodes: [1, 128] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

/**
 * The id and type of the object each of `specs` names, in order, null where
 * it names none, from one process. A spec may not hold a newline (the batch
 * reads one a line).
 */
export async function objectsOf(repo: Repo, specs: string[]): Promise<({ oid: string; type: string } | null)[]> {
  if (!specs.length) return [];
  const out = await repo.text(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    input: specs.map((s) => `${s}\n`).join(''),
  });
  const lines = out.split('\n');
  return specs.map((_, i) => {
    // A spec git cannot find comes back as `SPEC missing` (or `ambiguous`), which a bare object id would match.
    const m = /^([0-9a-f]{40,64}) (blob|tree|commit|tag)$/.exec(lines[i] ?? '');
    return m ? { oid: m[1], type: m[2] } : null;
  });
}

/**
 * Each object `specs` names, whole, with its id and type, from one `git
 * cat-file --batch`; null where a spec names none. For a few small objects:
 * they are held in memory. A spec may not hold a line break.
 */
async function objectsWhole(
  repo: Repo,
  specs: string[],
): Promise<({ oid: string; type: string; data: Buffer } | null)[]> {
  const out = (await repo.run(['cat-file', '--batch'], { input: specs.map((s) => `${s}\n`).join('') })).stdout;
  let at = 0;
  return specs.map(() => {
    const nl = out.indexOf(0x0a, at);
    // A spec it cannot resolve is answered "SPEC missing" (or "ambiguous"), with no content.
    const m = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/.exec(out.toString('utf8', at, nl));
    at = nl + 1;
    if (!m) return null;
    const data = out.subarray(at, at + Number(m[3]));
    at += data.length + 1;
    return { oid: m[1], type: m[2], data };
  });
}

/**
 * The commit `rev` names, its first parent (null for a root commit) and the
 * bytes of `file` in that parent (null where it holds none), from one git
 * process; or an explanation that `rev` names no commit.
 */
export async function commitParentAndFile(
  repo: Repo,
  rev: string,
  file: string,
): Promise<{ id: string; parent: string | null; file: Buffer | null }> {
  if (/[\r\n]/.test(rev)) {
    const { id, parent } = await commitAndParent(repo, rev);
    return { id, parent, file: parent ? await readFileAt(repo, parent, file) : null };
  }
  const [commit, parent, blob] = await objectsWhole(repo, [
    `${rev}^{commit}`,
    `${rev}^{commit}^`,
    `${rev}^{commit}^:${file}`,
  ]);
  if (!commit) throw new CannotJudge(`no such commit: ${rev}`);
  return { id: commit.oid, parent: parent?.oid ?? null, file: blob?.type === 'blob' ? blob.data : null };
}
