// The package as a user gets it: `npm pack` of this checkout (its prepare
// step builds dist/), once per test file, and fresh projects that install it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN, cleanEnv, PROJECT, sh } from '../helpers/repo.js';

let tarball: string | null = null;

const LOCK = path.join(PROJECT, 'node_modules/.cache/patchwarden-pack.lock');

/**
 * Runs `body` while no other test process packs: packing swaps the
 * checkout's package.json for the stripped one (scripts/pack-manifest.mjs)
 * until npm has written the tarball.
 */
export function withPackLock<T>(body: () => T): T {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock left by a killed run is stale after ten minutes.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 600_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return body();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** The packed tarball's absolute path, in a folder of this process's own (test files run in parallel). */
export function packed(): string {
  if (tarball) return tarball;
  const DEST = mkdtempSync(path.join(tmpdir(), 'pw-pack-'));
  process.on('exit', () => rmSync(DEST, { recursive: true, force: true }));
  const r = withPackLock(() => sh('npm', ['pack', '--pack-destination', DEST], { cwd: PROJECT, env: userEnv() }));
  if (r.code !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const name = r.stdout.trim();
  // npm pack's stdout is the tarball's name alone: tools like the pre-commit framework read it.
  if (!/^patchwarden-[\w.-]+\.tgz$/.test(name) || !readdirSync(DEST).includes(name))
    throw new Error(`npm pack printed more than a file name: ${JSON.stringify(r.stdout)}`);
  return (tarball = path.join(DEST, name));
}

/** A user's environment: cleanEnv's git identity and config, without the test shortcut to patchwarden on PATH or npm's own variables. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(cleanEnv()).filter(([k]) => !k.startsWith('npm_') && k !== 'INIT_CWD'));
  return {
    ...env,
    PATH: (process.env.PATH ?? '')
      .split(':')
      .filter((d) => d !== BIN)
      .join(':'),
    ...extra,
  };
}
