// The judge's own install, sealed before the first test command runs. The
// command runs the project's code, which may find patchwarden's files (they
// are on disk, and often writable by the same user) and rewrite a module
// the judge would load later. So before the first command starts, every
// module this process could still load is loaded and the whole install's
// digest taken; after each command, a changed digest refuses the whole run:
// no code of the judge is read after untrusted code ran, and a rewrite is
// named, not silently outlived.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CannotJudge } from '../common/errors.js';
import { traceMark } from '../common/trace.js';
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

/** The build's import graph of the install (dist/imports.json): each file, with every file it may load. */
type Graph = Record<string, string[]>;

const isModule = (f: string) => /\.[cm]?js$/.test(f);

function graphOf(dir: string): Graph | null {
  try {
    const graph = JSON.parse(readFileSync(path.join(dir, 'imports.json'), 'utf8')) as unknown;
    return graph && typeof graph === 'object' && !Array.isArray(graph) ? (graph as Graph) : null;
  } catch {
    return null;
  }
}

/**
 * The modules of the install this process can still load, or null for all
 * of them. A module is loaded only by a module already loaded, along one of
 * its edges in the graph: so what can still load is the closure, over every
 * edge, of the modules loaded so far (the roots). The roots are every file
 * of the install in require.cache, and every ES module of it that ran (each
 * records itself: the build's banner). main.js is not a root: its dynamic
 * edges are one per command, and it takes one, before this runs (the
 * commands bundled into it run no test command, so never seal: the build
 * fails if main.js comes to hold this file); what it loads statically is
 * loaded already. A graph that is missing, unreadable, or does not name a
 * root or a module file of the install loads everything.
 */
function reachable(dir: string, files: string[], cache: Record<string, unknown>): Set<string> | null {
  const graph = graphOf(dir);
  if (!graph || files.some((f) => isModule(f) && !Object.hasOwn(graph, f))) return null;
  const esm = [...((globalThis as Record<symbol, Set<string> | undefined>)[Symbol.for('patchwarden.modules')] ?? [])];
  const roots = [...Object.keys(cache), ...esm.map((u) => fileURLToPath(u))]
    .map((f) => path.relative(dir, f))
    .filter((f) => !f.startsWith('..') && !path.isAbsolute(f) && f !== 'main.js');
  const seen = new Set<string>();
  for (const todo = roots; todo.length; ) {
    const f = todo.pop() as string;
    if (seen.has(f)) continue;
    const edges = Object.hasOwn(graph, f) ? graph[f] : undefined;
    if (!Array.isArray(edges)) return null;
    seen.add(f);
    todo.push(...edges);
  }
  return seen;
}

async function seal(): Promise<Sealed | null> {
  const taken = install();
  if (!taken) return null;
  const { dir, files } = taken;
  const require = createRequire(path.join(dir, 'main.js'));
  const all = [...files.keys()].sort();
  const reach = reachable(dir, all, require.cache);
  const load = reach ? all.filter((f) => reach.has(f)) : all;
  traceMark(`the judge's seal loads ${load.filter(isModule).length} of ${all.filter(isModule).length} modules`);
  for (const f of load) {
    const file = path.join(dir, f);
    // layers: built files
    if (f.endsWith('.mjs')) await import(pathToFileURL(file).href);
    // layers: built files
    else if (f.endsWith('.cjs')) require(file);
  }
  return { dir, files };
}

/** Loads every module of the install this process can still load, and takes the install's digest, once per process: call before a test command starts. */
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
