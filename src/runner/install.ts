// The judge's own install, sealed before the first test command runs. The
// command runs the project's code, which may find patchwarden's files (they
// are on disk, and often writable by the same user) and rewrite a module
// the judge would load later. So before the first command starts, every
// module of the install is loaded and the install's digest taken; after each
// command, a changed digest refuses the whole run: no code of the judge is
// read after untrusted code ran, and a rewrite is named, not silently
// outlived.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CannotJudge } from '../common/errors.js';
import { VERSION } from '../common/version.js';

interface Sealed {
  dir: string;
  files: Map<string, string>;
}

let digested: Sealed | null | undefined;
let sealed: Promise<Sealed | null> | null = null;

/** The folder of the running bundle (dist/), or null when the sources run unbundled. */
export function installDir(): string | null {
  if (VERSION === 'unbundled' || !process.argv[1]) return null;
  const dir = path.dirname(realpathSync(process.argv[1]));
  return statSync(path.join(dir, 'lazy'), { throwIfNoEntry: false })?.isDirectory() ? dir : null;
}

/** Every file of the install, by path relative to it, with its sha256. */
function digests(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath ?? e.path, e.name); // .path before Node 20.12
    files.set(path.relative(dir, file), createHash('sha256').update(readFileSync(file)).digest('hex'));
  }
  return files;
}

/** The install's files and digests, taken once per process (null when the sources run unbundled). */
function install(): Sealed | null {
  if (digested === undefined) {
    const dir = installDir();
    digested = dir ? { dir, files: digests(dir) } : null;
  }
  return digested;
}

async function seal(): Promise<Sealed | null> {
  const taken = install();
  if (!taken) return null;
  const { dir, files } = taken;
  const require = createRequire(path.join(dir, 'main.js'));
  for (const f of [...files.keys()].sort()) {
    const file = path.join(dir, f);
    // layers: built files
    if (f.endsWith('.mjs')) await import(pathToFileURL(file).href);
    // layers: built files
    else if (f.endsWith('.cjs')) require(file);
  }
  return { dir, files };
}

/** Loads every module of the install and takes its digest, once per process: call before a test command starts. */
export function sealJudge(): Promise<unknown> {
  sealed ??= seal();
  return sealed;
}

/** Refuses when the install's files are no longer the ones sealed before the first command. */
export async function checkJudge(): Promise<void> {
  const s = await sealed;
  if (!s) return;
  const now = digests(s.dir);
  const changed = [...new Set([...s.files.keys(), ...now.keys()])].filter((f) => s.files.get(f) !== now.get(f)).sort();
  if (!changed.length) return;
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? `, and ${changed.length - 5} more` : '');
  throw new CannotJudge(
    `patchwarden's own files in ${s.dir} changed while a test command ran (${shown}): the code under test can rewrite the judge, so this run is not judged; install patchwarden where the job's test commands cannot write it (a read-only folder, or another user: docs/gate.md "Installing the judge out of reach") and run again`,
  );
}

/**
 * The judge's version and the digest of its install (the version alone when
 * the sources run unbundled): the digest the seal compares against, so a
 * revert cache key need not wait for the modules to load.
 */
export function judgeIdentity(): string {
  const files = install()?.files;
  if (!files) return VERSION;
  const all = createHash('sha256');
  for (const f of [...files.keys()].sort()) all.update(`${f}\0${files.get(f)}\n`);
  return `${VERSION} ${all.digest('hex')}`;
}
