// doctor's look at a judge vendored under .patchwarden/vendor/: is the file
// the one the lock records? A rebuilt tarball keeps its name and version, and
// yarn classic then installs the one it cached under that name (in its cache
// and its extraction folder) and writes that one's digest into yarn.lock: the
// hooks run another judge than the vendored one, and every clone's `yarn
// install --frozen-lockfile` fails its integrity check. npm's lock goes stale
// the same way when the file is replaced without an install.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Finding } from './doctor.js';

const VENDOR = '.patchwarden/vendor';

/** What a lock records for the vendored tarball: its digest, in the lock's own algorithm. */
interface Recorded {
  lock: string;
  algorithm: 'sha1' | 'sha512';
  digest: string;
}

export function vendorFindings(root: string): Finding[] {
  const folder = path.join(root, VENDOR);
  const tarballs = existsSync(folder) ? readdirSync(folder).filter((f) => /^patchwarden-.*\.tgz$/.test(f)) : [];
  if (tarballs.length !== 1) return [];
  const file = `${VENDOR}/${tarballs[0]}`;
  const recorded = yarnRecord(root, file) ?? npmRecord(root, file);
  if (!recorded) return [];
  const bytes = readFileSync(path.join(root, file));
  const digest = createHash(recorded.algorithm)
    .update(bytes)
    .digest(recorded.algorithm === 'sha1' ? 'hex' : 'base64');
  if (digest === recorded.digest)
    return [{ check: 'vendored', ok: true, detail: `${file} is the tarball ${recorded.lock} records` }];
  const shown = (d: string) => `${recorded.algorithm} ${d.slice(0, 12)}`;
  const yarn = recorded.lock === 'yarn.lock';
  const why = yarn
    ? 'yarn classic installs a tarball it cached under the same name and version instead of the file, so the hooks here run another judge, and `yarn install --frozen-lockfile` fails in every clone'
    : 'the file was replaced after the install, so the hooks here run another judge, and `npm ci` fails in every clone';
  return [
    {
      check: 'vendored',
      ok: false,
      detail: `${recorded.lock} records another tarball than ${file} (${shown(recorded.digest)}; the file: ${shown(digest)}): ${why}; install the file again: \`${reinstall(root, file, yarn)}\``,
    },
  ];
}

/** The README's install line for the manager, after emptying yarn's cache (`yarn cache clean NAME` keeps the extracted copy). */
function reinstall(root: string, file: string, yarn: boolean): string {
  if (!yarn) return `npm install --save-dev ./${file}`;
  const workspace = Boolean(readJson(path.join(root, 'package.json'))?.workspaces);
  return `yarn cache clean && yarn add --dev${workspace ? ' -W' : ''} ./${file}`;
}

/** yarn classic: `resolved "./.patchwarden/vendor/X.tgz#SHA1"`. */
function yarnRecord(root: string, file: string): Recorded | null {
  const lock = path.join(root, 'yarn.lock');
  if (!existsSync(lock)) return null;
  for (const m of readFileSync(lock, 'utf8').matchAll(/^\s+resolved "([^"#]+)#([0-9a-f]{40})"$/gm))
    if (path.posix.normalize(m[1]) === file) return { lock: 'yarn.lock', algorithm: 'sha1', digest: m[2] };
  return null;
}

/** npm: the package entry resolved from `file:.patchwarden/vendor/X.tgz`, with its sha512 integrity. */
function npmRecord(root: string, file: string): Recorded | null {
  const packages = readJson(path.join(root, 'package-lock.json'))?.packages;
  if (!packages || typeof packages !== 'object') return null;
  for (const entry of Object.values(packages as Record<string, { resolved?: unknown; integrity?: unknown }>)) {
    const integrity = typeof entry?.integrity === 'string' ? /^sha512-(\S+)$/.exec(entry.integrity) : null;
    if (entry?.resolved === `file:${file}` && integrity)
      return { lock: 'package-lock.json', algorithm: 'sha512', digest: integrity[1] };
  }
  return null;
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
