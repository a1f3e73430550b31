// Go's module cache for the revert check's runs: one for both, read-only for
// them. Every path outside the src zone comes from the base side, go.mod and
// go.sum too, so both runs need the same modules: the judge downloads them
// once before the runs (`go mod download`, which runs no module code), into a
// cache of the repository's own, filled from the user's module cache where it
// has them. The runs get it with GOPROXY=off, so no run downloads into it;
// its files are read-only, and any change to it (a file added, removed, or
// made writable) changes a change time: a cache that changed while the runs
// ran stops the check and is thrown away. Its folders stay writable, so
// removing the clone needs nothing special.
import { execFile } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CannotJudge } from '../common/errors.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { stamp } from './buildcache.js';

const run = promisify(execFile);

export interface ModuleCache {
  /** What every run adds to its environment: nothing where no cache could be prepared. */
  env: Record<string, string>;
  /** Once both runs have ended: throws when a run changed the cache. */
  check(): void;
}

const NONE: ModuleCache = { env: {}, check() {} };

/** The cache for a check whose runs build against `onto`'s go.mod and go.sum; none without a go.mod at the root, with a vendor folder or a go.work. */
export async function moduleCache(repo: Repo, onto: string, say: (line: string) => void): Promise<ModuleCache> {
  // Most projects have no go.mod: one read settles it.
  const mod = await readFileAt(repo, onto, 'go.mod');
  if (mod === null) return NONE;
  const [sum, vendored, workspace] = await Promise.all(
    ['go.sum', 'vendor/modules.txt', 'go.work'].map((f) => readFileAt(repo, onto, f)),
  );
  // A vendor folder needs no module cache; a workspace's other modules need modules the root's go.mod does not name.
  if (vendored !== null || workspace !== null) return NONE;
  const dir = path.join(repo.commonDir, 'patchwarden', 'go-mod');
  const scratch = mkdtempSync(path.join(tmpdir(), 'patchwarden-gomod-'));
  try {
    writeFileSync(path.join(scratch, 'go.mod'), mod);
    if (sum !== null) writeFileSync(path.join(scratch, 'go.sum'), sum);
    const user = await goEnv(scratch, ['GOMODCACHE', 'GOPROXY']);
    mkdirSync(dir, { recursive: true });
    const proxy = [`file://${path.join(user.GOMODCACHE, 'cache', 'download')}`, user.GOPROXY].filter(Boolean).join(',');
    await run('go', ['mod', 'download'], {
      cwd: scratch,
      env: { ...process.env, GOMODCACHE: dir, GOPROXY: proxy, GOFLAGS: '-mod=mod -modcacherw' },
      maxBuffer: 1 << 24,
    });
  } catch (err) {
    const why = (err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? String(err);
    say(`the base's Go modules could not be fetched before the runs (${why}): the runs use your module cache`);
    return NONE;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  readOnly(dir);
  const before = stamp(dir);
  say(`the base's Go modules, read-only for both runs: ${dir}`);
  return {
    env: { GOMODCACHE: dir, GOPROXY: 'off' },
    check() {
      if (stamp(dir) === before) return;
      rmSync(dir, { recursive: true, force: true });
      throw new CannotJudge(
        `the Go module cache the runs share (${dir}) changed while they ran, so what they built may not be the base's modules: it is thrown away; run the check again`,
      );
    },
  };
}

/** `go env` of the given names, read in `cwd`. */
async function goEnv(cwd: string, names: string[]): Promise<Record<string, string>> {
  const { stdout } = await run('go', ['env', ...names], { cwd });
  const values = stdout.split('\n');
  return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
}

/** Every file under `dir` made read-only; folders stay writable, so removing the cache needs nothing special. */
function readOnly(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) readOnly(p);
    else if (entry.isFile()) chmodSync(p, lstatSync(p).mode & ~0o222);
  }
}
