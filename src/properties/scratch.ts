// The in-place mode's own scratch space (throwaway index files), inside the git
// directory rather than the system's temporary folder: a check killed with
// kill -9 leaves its leftovers where `patchwarden recover` finds and removes
// them, so nothing of it outlives the recovery.
import { mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Repo } from '../git/repo.js';

function home(repo: Repo): string {
  return path.join(repo.gitDir, 'patchwarden');
}

/** A fresh folder for this process, named by its pid. */
export function makeScratch(repo: Repo): string {
  mkdirSync(home(repo), { recursive: true });
  return mkdtempSync(path.join(home(repo), `inplace-${process.pid}-`));
}

/** Removes one scratch folder, and the parent once it is empty. */
export function dropScratch(repo: Repo, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  try {
    rmdirSync(home(repo));
  } catch {
    /* another check's folder is still there */
  }
}

/** Removes the scratch folders of processes no longer running; returns their names. */
export function sweepScratch(repo: Repo, alive: (pid: number) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(home(repo));
  } catch {
    return [];
  }
  const dead = names.filter((n) => {
    const pid = Number(/^inplace-(\d+)-/.exec(n)?.[1]);
    return !pid || !alive(pid);
  });
  for (const n of dead) rmSync(path.join(home(repo), n), { recursive: true, force: true });
  try {
    rmdirSync(home(repo));
  } catch {
    /* not empty, or gone */
  }
  return dead;
}
