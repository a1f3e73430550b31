// Go's build cache for the revert check's runs. A cold GOCACHE in every run
// compiles every package again; one shared cache is a channel between runs,
// since the head run executes the change's code, which could write entries
// that a later run then reads as compiled code. So each repository keeps one
// seed (under its git directory), written only from a reverted run, which
// executes the base side's code alone; every run builds in its own copy of
// the seed (copy-on-write where the file system can), dropped with the run.
// The change's code could still write to the seed itself, as the same user:
// the seed's entries and their change times are taken before the head run
// and compared after it, and a seed that changed is thrown away. The
// reverted run's cache replaces the seed only once both runs have ended
// (`settle`), so a head run still going (revert.jobs: 2) cannot write into
// the new seed either, and only when the copy it started from could not hold
// a write of head's: taken before head's run began (the base first), or from
// a seed head's run left as it was.
import { constants, cpSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Repo } from '../git/repo.js';

export type Side = 'head' | 'revert';

export interface BuildCache {
  /** The GOCACHE of one run: a fresh copy of the seed in its temporary folder `tmp`. */
  open(side: Side, tmp: string): string;
  /** After a reverted run that read its report: its cache is set aside to become the seed. */
  keep(dir: string): void;
  /** Once both runs have ended: the seed checked against what it was before the head run, the kept cache put in its place. */
  settle(): void;
}

export function buildCache(repo: Repo, say: (line: string) => void): BuildCache {
  const seed = path.join(repo.commonDir, 'patchwarden', 'go-build');
  const next = `${seed}.new-${process.pid}`;
  let before: string | null = null;
  let kept: string | null = null;
  // The reverted runs' caches copied before head's run began, and whether the kept one is such.
  const beforeHead = new Set<string>();
  let keptBeforeHead = false;
  /** True when the seed is not what it was before the head run; then it is thrown away. */
  const tampered = () => {
    if (before === null || stamp(seed) === before) return false;
    say('the Go build cache changed while the change ran: it is thrown away, and the next run builds from nothing');
    rmSync(seed, { recursive: true, force: true });
    before = stamp(seed);
    return true;
  };
  return {
    open(side, tmp) {
      if (side === 'head') before = stamp(seed);
      else tampered();
      const dir = path.join(tmp, 'go-build');
      if (side === 'revert' && before === null) beforeHead.add(dir);
      try {
        cpSync(seed, dir, { recursive: true, mode: constants.COPYFILE_FICLONE, errorOnExist: true });
      } catch {
        // No seed yet, or one replaced while it was copied: a cold cache.
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      }
      return dir;
    },
    keep(dir) {
      if (!readdirSync(dir).length) return; // not a Go project
      rmSync(next, { recursive: true, force: true });
      cpSync(dir, next, { recursive: true, mode: constants.COPYFILE_FICLONE });
      kept = stamp(next);
      keptBeforeHead = beforeHead.has(dir);
    },
    settle() {
      const changed = tampered();
      const fresh = kept !== null && (keptBeforeHead || !changed) && stamp(next) === kept;
      const old = `${seed}.old-${process.pid}`;
      try {
        if (fresh) {
          rmSync(old, { recursive: true, force: true });
          try {
            renameSync(seed, old);
          } catch {
            // none yet
          }
          renameSync(next, seed);
        }
      } catch {
        // Another check saved one at the same moment: either will do.
      } finally {
        rmSync(next, { recursive: true, force: true });
        rmSync(old, { recursive: true, force: true });
      }
    },
  };
}

/** Every entry under `dir` with its size, inode and change time (which no write can set back); '' when absent. */
export function stamp(dir: string): string {
  const lines: string[] = [];
  const walk = (rel: string) => {
    const st = lstatSync(path.join(dir, rel), { bigint: true, throwIfNoEntry: false });
    if (!st) return;
    lines.push(`${rel}\0${st.size}\0${st.ino}\0${st.ctimeNs}\0${st.mode}`);
    if (st.isDirectory()) for (const name of readdirSync(path.join(dir, rel)).sort()) walk(path.join(rel, name));
  };
  walk('');
  return lines.join('\n');
}
