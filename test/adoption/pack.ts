// The package as a user gets it: `npm pack` of this checkout (its prepare
// step builds dist/), once per test run, and fresh projects that install it.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { BIN, PROJECT, sh } from '../helpers/repo.js';

const DEST = path.join(PROJECT, 'node_modules/.cache/patchwarden-test-pack');
let tarball: string | null = null;

/** The packed tarball's absolute path. */
export function packed(): string {
  if (tarball) return tarball;
  rmSync(DEST, { recursive: true, force: true });
  mkdirSync(DEST, { recursive: true });
  const r = sh('npm', ['pack', '--pack-destination', DEST], { cwd: PROJECT, env: userEnv() });
  if (r.code !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const name = r.stdout.trim();
  // npm pack's stdout is the tarball's name alone: tools like the pre-commit framework read it.
  if (!/^patchwarden-[\w.-]+\.tgz$/.test(name) || !readdirSync(DEST).includes(name)) throw new Error(`npm pack printed more than a file name: ${JSON.stringify(r.stdout)}`);
  return (tarball = path.join(DEST, name));
}

/** A user's environment: no test shortcut to patchwarden on PATH, a fixed git identity. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && !k.startsWith('PATCHWARDEN_') && !k.startsWith('npm_') && k !== 'HUSKY' && k !== 'INIT_CWD') env[k] = v;
  return {
    ...env,
    PATH: (process.env.PATH ?? '').split(':').filter((d) => d !== BIN).join(':'),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
    ...extra,
  };
}
