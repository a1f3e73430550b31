// The reverted run's result, kept for the next check with the same key
// (cache-key.ts: everything that run ran), under the git directory in
// patchwarden/revert-cache. A cached side may only confirm `holds`
// (revert.ts decides what runs fresh); this module decides which entries
// are trusted. The head run executes the change's code as the same user, so
// it could write an entry for a later check to read. An entry is therefore
// written only by patchwarden once both runs of a check have ended, and only
// when test commands run contained (pidns or subreaper: nothing of the run
// outlives it), so no process of the change's code is left to write later.
// The whole folder (entries and index, with sizes, inodes and change times,
// which no write can set back) is taken before the runs and compared after
// them: a folder that changed while the change ran is thrown away. The head
// run may start before the key is known: an entry is trusted only when the
// folder is still as it was taken once the entry has been read. Each
// entry's inode, change time, size and digest are recorded in the index as
// it is written; an entry that no longer matches its record (rewritten on
// disk) is not trusted. Under kernel sealing the head run's result is kept
// too, under its own key: production code ran in a worker that cannot write
// the git directory, so what patchwarden wrote after it is as trusted as a
// reverted run's; an entry of a head run that was not kernel-sealed is never
// written nor read. A same-user process that runs outside any check
// (not the change's: nothing of it outlives a contained run) can still
// write the folder as it likes; `revert.jobs: 1` narrows what a head run
// could reach, and containment decides that nothing is left running.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../common/regular-file.js';
import type { Repo } from '../git/repo.js';
import { stamp } from './buildcache.js';
import type { PropertyRun } from './run.js';

/** At most this many entries and bytes; the least recently used go first. */
export const CACHE_BOUND = { entries: 200, bytes: 32 << 20 };
/** The property command's output kept with an entry (its end). */
const OUTPUT_KEPT = 64 << 10;

export interface CachedRun {
  key: string;
  /** When patchwarden wrote it (ISO). */
  written: string;
  run: PropertyRun;
}

interface Entry {
  format: 1;
  key: string;
  written: string;
  run: {
    mapping: PropertyRun['mapping'];
    code: number | null;
    elapsedMs: number;
    output: string;
    sealed: PropertyRun['sealed'];
  };
}

interface Written {
  /** inode, change time and size as written. */
  stamp: string;
  sha256: string;
  bytes: number;
  used: string;
}

interface Index {
  format: 1;
  entries: Record<string, Written>;
}

export interface RevertCache {
  key: string;
  /** The trusted entry under the key, or null. */
  hit: CachedRun | null;
  /** The head side's key and trusted entry, where head runs are cached (kernel sealing), else null. */
  head: { key: string; hit: CachedRun | null } | null;
  /**
   * Once both runs have ended: the folder checked, and the whole runs made
   * now written where they may be (`base`, and `head` when it ran kernel-sealed
   * and the head side is cached).
   */
  settle(fresh: { base: PropertyRun | null; head: PropertyRun | null }): void;
}

export function cacheDir(repo: Repo): string {
  return path.join(repo.commonDir, 'patchwarden', 'revert-cache');
}

/** The cache folder as it is, taken before any run starts: what `openRevertCache` compares with. */
export function watchRevertCache(repo: Repo): string {
  return stamp(cacheDir(repo));
}

/**
 * The cache of `repo` opened at `keys` (the head side's only where head runs
 * are cached), the folder having been as `before` says when the runs began;
 * `writable`: whether entries may be written here (test commands run
 * contained).
 */
export function openRevertCache(
  repo: Repo,
  keys: { base: string; head: string | null },
  writable: boolean,
  before: string,
  say: (l: string) => void,
): RevertCache {
  const dir = cacheDir(repo);
  const base = lookup(dir, 'base', keys.base, before, say);
  const head = keys.head === null ? null : lookup(dir, 'head', keys.head, before, say);
  // Read after both lookups: neither is trusted from a folder a run has changed since the check began.
  return {
    key: keys.base,
    hit: base.hit,
    head: head && { key: head.key, hit: head.hit },
    settle(fresh) {
      if (stamp(dir) !== before) {
        say('the revert cache changed while the change ran: it is thrown away, and the next check runs the base');
        rmSync(dir, { recursive: true, force: true });
        return;
      }
      // Removed only now, so that the folder stays as taken while the runs go.
      for (const side of [base, head]) if (side?.untrusted) rmSync(side.untrusted, { force: true });
      keep(dir, base, fresh.base, writable, say);
      // Only what a kernel-sealed head run gave: production code in it could not write the git directory.
      if (head) keep(dir, head, fresh.head?.sealed === 'kernel' ? fresh.head : null, writable, say);
    },
  };
}

interface Lookup {
  side: 'base' | 'head';
  key: string;
  hit: CachedRun | null;
  untrusted: string | null;
}

/** One side's entry, trusted only from a folder no run has changed yet (a head run may be going as it is read). */
function lookup(dir: string, side: Lookup['side'], key: string, before: string, say: (l: string) => void): Lookup {
  const short = key.slice(0, 12);
  const read = readEntry(dir, side, key, say);
  const hit = read.entry && stamp(dir) === before ? read.entry : null;
  if (read.entry && !hit) say(`${side}: the revert cache changed since the check began: not trusted; the ${side} runs`);
  if (!hit) say(`${side}: not cached (key ${short})`);
  return { side, key, hit, untrusted: read.untrusted };
}

/** A whole run made now written under its side's key, where it may be; an entry that was used marked so. */
function keep(dir: string, side: Lookup, fresh: PropertyRun | null, writable: boolean, say: (l: string) => void): void {
  try {
    if (fresh && !fresh.problem && fresh.mapping) {
      if (!writable)
        say(`${side.side}: not cached: test commands are not contained, so code of the change may outlive its run`);
      else {
        writeEntry(dir, side.key, fresh);
        say(`${side.side}: cached for the next check (key ${side.key.slice(0, 12)})`);
      }
    } else if (side.hit) touch(dir, side.key);
  } catch (err) {
    // Another check writing at the same moment, a full disk: the next check runs the side.
    say(`${side.side}: the revert cache could not be written (${(err as Error).message})`);
  }
}

/** The entry under `key` when it is what patchwarden wrote; one that is not is named, to be removed once the runs have ended. */
function readEntry(
  dir: string,
  side: Lookup['side'],
  key: string,
  say: (l: string) => void,
): { entry: CachedRun | null; untrusted: string | null } {
  const file = path.join(dir, `${key}.json`);
  const index = readIndex(dir);
  const rec = index.entries[key];
  let bytes: Buffer | null;
  try {
    bytes = readRegularFile(file, CACHE_BOUND.bytes);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entry: null, untrusted: null };
    bytes = null; // a link, or what cannot be opened: not what patchwarden wrote
  }
  const entry =
    bytes && rec && fileStamp(file) === rec.stamp && sha256(bytes) === rec.sha256 ? parsed(bytes, key) : null;
  // A head entry answers only for a kernel-sealed run (its key says so too).
  if (entry && (side === 'base' || entry.run.sealed === 'kernel'))
    return { entry: { key, written: entry.written, run: { ...entry.run, problem: null } }, untrusted: null };
  say(
    `${side}: the cache entry ${key.slice(0, 12)} is not trusted (it is not as patchwarden wrote it, or unrecorded): removed; the ${side} runs`,
  );
  return { entry: null, untrusted: file };
}

function parsed(bytes: Buffer, key: string): Entry | null {
  try {
    const e = JSON.parse(bytes.toString('utf8')) as Entry;
    return e.format === 1 && e.key === key && e.run?.mapping && e.run.sealed ? e : null;
  } catch {
    return null;
  }
}

/** Written beside and renamed into place, then recorded with what it is on disk; the least recently used go past the bound. */
export function writeEntry(dir: string, key: string, run: PropertyRun, now = new Date()): void {
  mkdirSync(dir, { recursive: true });
  const entry: Entry = {
    format: 1,
    key,
    written: now.toISOString(),
    run: {
      mapping: run.mapping,
      code: run.code,
      elapsedMs: run.elapsedMs,
      output: run.output.slice(-OUTPUT_KEPT),
      sealed: run.sealed,
    },
  };
  const bytes = Buffer.from(JSON.stringify(entry));
  const file = path.join(dir, `${key}.json`);
  writeFileSync(`${file}.${process.pid}`, bytes, { mode: 0o600 });
  renameSync(`${file}.${process.pid}`, file);
  const index = readIndex(dir);
  index.entries[key] = { stamp: fileStamp(file), sha256: sha256(bytes), bytes: bytes.length, used: entry.written };
  evict(dir, index, key);
  writeIndex(dir, index);
}

/** Marks an entry used now, for eviction. */
function touch(dir: string, key: string): void {
  const index = readIndex(dir);
  if (!index.entries[key]) return;
  index.entries[key].used = new Date().toISOString();
  writeIndex(dir, index);
}

function evict(dir: string, index: Index, keep: string): void {
  const byAge = Object.entries(index.entries).sort((a, b) => (a[1].used < b[1].used ? 1 : -1));
  let bytes = 0;
  byAge.forEach(([key, rec], i) => {
    bytes += rec.bytes;
    if (key === keep || (i < CACHE_BOUND.entries && bytes <= CACHE_BOUND.bytes)) return;
    delete index.entries[key];
    rmSync(path.join(dir, `${key}.json`), { force: true });
  });
  // Entries the index does not name (another check's record lost to this one) would not be trusted: they go too.
  for (const name of readdirSync(dir))
    if (name.endsWith('.json') && name !== 'index.json' && !index.entries[name.slice(0, -5)])
      rmSync(path.join(dir, name), { force: true });
}

function readIndex(dir: string): Index {
  try {
    const index = JSON.parse(
      readRegularFile(path.join(dir, 'index.json'), CACHE_BOUND.bytes)?.toString('utf8') ?? '',
    ) as Index;
    if (index.format === 1 && index.entries && typeof index.entries === 'object') return index;
  } catch {
    // none yet, or unreadable: nothing is trusted
  }
  return { format: 1, entries: {} };
}

function writeIndex(dir: string, index: Index): void {
  const file = path.join(dir, 'index.json');
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(index), { mode: 0o600 });
  renameSync(`${file}.${process.pid}`, file);
}

function fileStamp(file: string): string {
  const st = lstatSync(file, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.ino} ${st.ctimeNs} ${st.size}` : '';
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
