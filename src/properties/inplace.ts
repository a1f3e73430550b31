// The in-place mode's safety net. Before anything in the working tree
// changes, every tracked and untracked (not ignored) file, plus every file the
// revert may overwrite even when ignored, goes into a snapshot commit under
// SNAPSHOT_REF, together with the bytes of the user's index. The snapshot is
// built with plumbing and a throwaway index; bytes are stored raw (no filters)
// and written back raw, so the round trip is exact. `restoreSnapshot` is
// idempotent: after a kill -9 at any moment, running it again finishes the job.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import type { Repo } from '../git/repo.js';
import { listTree, readBlobs, readFileAt } from '../git/objects.js';
import { splitNul } from '../git/run.js';
import { pruneEmptyParents } from './tree.js';

export const SNAPSHOT_REF = 'refs/patchwarden/snapshot';

/** Ref updates must not run the user's reference-transaction hook. */
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];
const IDENTITY = {
  GIT_AUTHOR_NAME: 'patchwarden',
  GIT_AUTHOR_EMAIL: 'patchwarden@localhost',
  GIT_COMMITTER_NAME: 'patchwarden',
  GIT_COMMITTER_EMAIL: 'patchwarden@localhost',
};

export interface SnapshotMeta {
  version: 1;
  pid: number;
  started: string;
  root: string;
  head: string;
  /** Paths the revert may write or remove (beyond the tracked and untracked files). */
  touched: string[];
  /** Whether the user had an index file. */
  index: boolean;
  /** Entries kept out of the snapshot (nested repositories, submodules). */
  skipped: string[];
}

export interface Snapshot {
  commit: string;
  meta: SnapshotMeta;
  /** The snapshot's files (path -> mode and blob id). */
  files: Map<string, { mode: string; oid: string }>;
}

function indexPath(repo: Repo): string {
  return path.join(repo.gitDir, 'index');
}

/** The snapshot a previous in-place check left, or null. */
export async function findSnapshot(repo: Repo): Promise<Snapshot | null> {
  const r = await repo.run(['rev-parse', '--verify', '--quiet', `${SNAPSHOT_REF}^{commit}`], { okCodes: [1] });
  const commit = r.stdout.toString('utf8').trim();
  if (r.code !== 0 || !commit) return null;
  const metaBlob = await readFileAt(repo, commit, 'meta.json');
  if (!metaBlob)
    throw new CannotJudge(
      `${SNAPSHOT_REF} (${commit.slice(0, 12)}) is not a patchwarden snapshot: it has no meta.json`,
    );
  const meta = JSON.parse(metaBlob.toString('utf8')) as SnapshotMeta;
  const files = new Map<string, { mode: string; oid: string }>();
  const hasTree = (await repo.run(['cat-file', '-e', `${commit}:worktree`], { okCodes: [128, 1] })).code === 0;
  if (hasTree)
    for (const e of await listTree(repo, `${commit}:worktree`)) files.set(e.path, { mode: e.mode, oid: e.oid });
  return { commit, meta, files };
}

/** True while the process that took a snapshot still runs. */
export function ownerAlive(meta: SnapshotMeta): boolean {
  return pidAlive(meta.pid);
}

/** True while another process with this pid runs. */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Tracked and untracked, not ignored, files of the working tree, each once. */
async function listWorkingFiles(repo: Repo): Promise<string[]> {
  const out = await repo.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--full-name']);
  return [...new Set(splitNul(out.stdout))];
}

type Disk = { kind: 'file'; mode: string } | { kind: 'link'; target: string } | { kind: 'other' } | null;

function onDisk(file: string): Disk {
  try {
    const st = lstatSync(file);
    if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(file) };
    if (st.isFile()) return { kind: 'file', mode: st.mode & 0o111 ? '100755' : '100644' };
    return { kind: 'other' };
  } catch {
    return null;
  }
}

/** Blob ids of files on disk, raw bytes (no filters), many per git process. */
async function hashFiles(repo: Repo, root: string, files: string[], write: boolean): Promise<string[]> {
  const oids: string[] = [];
  for (let i = 0; i < files.length; ) {
    const chunk: string[] = [];
    let size = 0;
    while (i < files.length && size < 64_000) {
      chunk.push(files[i]);
      size += files[i].length + 1;
      i++;
    }
    const out = await repo.run([
      'hash-object',
      ...(write ? ['-w'] : []),
      '--no-filters',
      '--',
      ...chunk.map((f) => path.join(root, f)),
    ]);
    oids.push(...out.stdout.toString('utf8').trim().split('\n'));
  }
  return oids;
}

async function hashBytes(repo: Repo, bytes: Buffer | string): Promise<string> {
  return await repo.text(['hash-object', '-w', '--no-filters', '--stdin'], { input: bytes });
}

/**
 * Records the working tree and the index under SNAPSHOT_REF. Refuses when a
 * snapshot is already there: another in-place check runs, or one was killed
 * and `patchwarden recover` has not run yet.
 */
export async function takeSnapshot(
  repo: Repo,
  root: string,
  head: string,
  touched: string[],
  scratch: string,
): Promise<Snapshot> {
  const existing = await findSnapshot(repo);
  if (existing) throw busy(existing);
  const paths = [...new Set([...(await listWorkingFiles(repo)), ...touched])];
  const entries: { mode: string; oid: string; path: string }[] = [];
  const regular: { path: string; mode: string }[] = [];
  const skipped: string[] = [];
  for (const p of paths) {
    const d = onDisk(path.join(root, p));
    if (!d) continue; // absent now, so absent after the restore
    if (d.kind === 'link') entries.push({ mode: '120000', oid: await hashBytes(repo, d.target), path: p });
    else if (d.kind === 'file') regular.push({ path: p, mode: d.mode });
    else skipped.push(p);
  }
  const oids = await hashFiles(
    repo,
    root,
    regular.map((r) => r.path),
    true,
  );
  regular.forEach((r, i) => {
    entries.push({ mode: r.mode, oid: oids[i], path: r.path });
  });

  const tmp = mkdtempSync(path.join(scratch, 'snapshot-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
    await repo.run(['update-index', '-z', '--add', '--index-info'], {
      env,
      input: entries.map((e) => `${e.mode} ${e.oid}\t${e.path}\0`).join(''),
    });
    const worktree = await repo.text(['write-tree'], { env });
    let hasIndex = true;
    let indexBytes: Buffer = Buffer.alloc(0);
    try {
      indexBytes = readFileSync(indexPath(repo));
    } catch {
      hasIndex = false;
    }
    const meta: SnapshotMeta = {
      version: 1,
      pid: process.pid,
      started: new Date().toISOString(),
      root,
      head,
      touched,
      index: hasIndex,
      skipped,
    };
    const top = [
      `040000 tree ${worktree}\tworktree`,
      `100644 blob ${await hashBytes(repo, JSON.stringify(meta, null, 2) + '\n')}\tmeta.json`,
      ...(hasIndex ? [`100644 blob ${await hashBytes(repo, indexBytes)}\tindex`] : []),
    ];
    const tree = await repo.text(['mktree', '-z'], { input: top.map((l) => l + '\0').join('') });
    const commit = await repo.text(
      ['commit-tree', tree, '-m', `patchwarden in-place revert check snapshot (pid ${process.pid})`],
      { env: IDENTITY },
    );
    // An empty old value: the ref must not exist yet, so two checks cannot both own it.
    const made = await repo.run([...NO_HOOKS, 'update-ref', '-m', 'patchwarden snapshot', SNAPSHOT_REF, commit, ''], {
      okCodes: [128, 1],
    });
    if (made.code !== 0) {
      const other = await findSnapshot(repo);
      throw other ? busy(other) : new CannotJudge(`cannot write ${SNAPSHOT_REF}: ${made.stderr.trim()}`);
    }
    return { commit, meta, files: new Map(entries.map((e) => [e.path, { mode: e.mode, oid: e.oid }])) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function busy(s: Snapshot): CannotJudge {
  return ownerAlive(s.meta)
    ? new CannotJudge(
        `another in-place revert check (pid ${s.meta.pid}, started ${s.meta.started}) is running in this repository; wait for it`,
      )
    : new CannotJudge(
        `an in-place revert check (pid ${s.meta.pid}, started ${s.meta.started}) was killed before it restored the working tree; run \`patchwarden recover\` first`,
      );
}

export interface RestoreReport {
  /** Files written back to their snapshot bytes. */
  restored: string[];
  /** Files that were not there at snapshot time and were removed. */
  removed: string[];
  index: 'unchanged' | 'restored';
}

/** Brings every snapshotted byte back, removes what the check added, and drops the ref. */
export async function restoreSnapshot(repo: Repo, snap: Snapshot): Promise<RestoreReport> {
  const root = snap.meta.root;
  const report: RestoreReport = { restored: [], removed: [], index: 'unchanged' };
  const keepDirs = new Set<string>();
  for (const p of snap.files.keys())
    for (let d = path.posix.dirname(p); d !== '.'; d = path.posix.dirname(d)) keepDirs.add(d);

  // What is here now that was not: files the revert or the command created.
  for (const p of new Set([...(await listWorkingFiles(repo)), ...snap.meta.touched])) {
    if (snap.files.has(p)) continue;
    const d = onDisk(path.join(root, p));
    if (!d || d.kind === 'other') continue;
    unlinkSync(path.join(root, p));
    pruneEmptyParents(root, p, (dir) => keepDirs.has(dir));
    report.removed.push(p);
  }

  // What differs from the snapshot: compare blob ids, write back only those.
  const stale: string[] = [];
  const regular: string[] = [];
  for (const [p, e] of snap.files) {
    const d = onDisk(path.join(root, p));
    if (e.mode === '120000') {
      if (d?.kind !== 'link' || (await hashBytes(repo, d.target)) !== e.oid) stale.push(p);
    } else if (d?.kind !== 'file' || d.mode !== e.mode) stale.push(p);
    else regular.push(p);
  }
  const now = await hashFiles(repo, root, regular, false);
  regular.forEach((p, i) => {
    if (now[i] !== snap.files.get(p)!.oid) stale.push(p);
  });
  const blobs = await readBlobs(repo, [...new Set(stale.map((p) => snap.files.get(p)!.oid))]);
  for (const p of stale.sort()) {
    const e = snap.files.get(p)!;
    const full = path.join(root, p);
    const bytes = blobs.get(e.oid);
    if (!bytes) throw new CannotJudge(`the snapshot ${snap.commit.slice(0, 12)} lacks the bytes of ${p}`);
    rmSync(full, { recursive: true, force: true });
    mkdirSync(path.dirname(full), { recursive: true });
    if (e.mode === '120000') symlinkSync(bytes.toString('utf8'), full);
    else {
      writeFileSync(full, bytes);
      chmodSync(full, e.mode === '100755' ? 0o755 : 0o644);
    }
    report.restored.push(p);
  }

  if (snap.meta.index) {
    const saved = await readFileAt(repo, snap.commit, 'index');
    let current: Buffer | null = null;
    try {
      current = readFileSync(indexPath(repo));
    } catch {
      /* gone */
    }
    if (saved && !current?.equals(saved)) {
      const tmp = `${indexPath(repo)}.patchwarden-restore`;
      writeFileSync(tmp, saved);
      renameSync(tmp, indexPath(repo));
      report.index = 'restored';
    }
  }
  await repo.run([...NO_HOOKS, 'update-ref', '-d', SNAPSHOT_REF, snap.commit], { okCodes: [128, 1] });
  return report;
}
