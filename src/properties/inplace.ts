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
import { workingFiles } from '../git/files.js';
import { hashFiles, listTree, objectExists, readBlobs, readFileAt, writeBlob } from '../git/objects.js';
import { createRef, deleteRef } from '../git/refs.js';
import { commitOrNull, type Repo } from '../git/repo.js';
import { commitTree, makeTree, treeWith } from '../git/trees.js';
import { pruneEmptyParents } from './tree.js';

export const SNAPSHOT_REF = 'refs/patchwarden/snapshot';

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
  const commit = await commitOrNull(repo, SNAPSHOT_REF);
  if (!commit) return null;
  const metaBlob = await readFileAt(repo, commit, 'meta.json');
  if (!metaBlob)
    throw new CannotJudge(
      `${SNAPSHOT_REF} (${commit.slice(0, 12)}) is not a patchwarden snapshot: it has no meta.json`,
    );
  const meta = JSON.parse(metaBlob.toString('utf8')) as SnapshotMeta;
  const files = new Map<string, { mode: string; oid: string }>();
  if (await objectExists(repo, `${commit}:worktree`))
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
  const paths = [...new Set([...(await workingFiles(repo)), ...touched])];
  const entries: { mode: string; oid: string; path: string }[] = [];
  const regular: { path: string; mode: string }[] = [];
  const skipped: string[] = [];
  for (const p of paths) {
    const d = onDisk(path.join(root, p));
    if (!d) continue; // absent now, so absent after the restore
    if (d.kind === 'link') entries.push({ mode: '120000', oid: await writeBlob(repo, d.target), path: p });
    else if (d.kind === 'file') regular.push({ path: p, mode: d.mode });
    else skipped.push(p);
  }
  const oids = await hashFiles(
    repo,
    regular.map((r) => path.join(root, r.path)),
    true,
  );
  regular.forEach((r, i) => {
    entries.push({ mode: r.mode, oid: oids[i], path: r.path });
  });
  const worktree = await treeWith(
    repo,
    null,
    entries.map((e) => ({ path: e.path, newMode: e.mode, newOid: e.oid })),
    scratch,
  );
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
  const tree = await makeTree(repo, [
    { mode: '040000', type: 'tree', oid: worktree, path: 'worktree' },
    {
      mode: '100644',
      type: 'blob',
      oid: await writeBlob(repo, JSON.stringify(meta, null, 2) + '\n'),
      path: 'meta.json',
    },
    ...(hasIndex ? [{ mode: '100644', type: 'blob', oid: await writeBlob(repo, indexBytes), path: 'index' }] : []),
  ]);
  const commit = await commitTree(
    repo,
    tree,
    [],
    `patchwarden in-place revert check snapshot (pid ${process.pid})`,
    IDENTITY,
  );
  const refused = await createRef(repo, SNAPSHOT_REF, commit, 'patchwarden snapshot');
  if (refused !== null) {
    const other = await findSnapshot(repo);
    throw other ? busy(other) : new CannotJudge(`cannot write ${SNAPSHOT_REF}: ${refused}`);
  }
  return { commit, meta, files: new Map(entries.map((e) => [e.path, { mode: e.mode, oid: e.oid }])) };
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
  for (const p of new Set([...(await workingFiles(repo)), ...snap.meta.touched])) {
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
      if (d?.kind !== 'link' || (await writeBlob(repo, d.target)) !== e.oid) stale.push(p);
    } else if (d?.kind !== 'file' || d.mode !== e.mode) stale.push(p);
    else regular.push(p);
  }
  const now = await hashFiles(
    repo,
    regular.map((p) => path.join(root, p)),
    false,
  );
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
  await deleteRef(repo, SNAPSHOT_REF, snap.commit);
  return report;
}
