// Path judgement: whose code a file is (the stack's frames are judged by it),
// and which paths lead into the guard's private folder.
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { matches } from './taken.js';

/**
 * 'internal' Node itself, 'framework' node's test runner, 'lib' an installed
 * package, 'base' the spec or harness as on the base side, 'guard' the
 * preload, 'patch' the rest.
 */
export type Kind = 'internal' | 'framework' | 'lib' | 'base' | 'guard' | 'patch';

/** What a file is judged against. */
export interface Where {
  /** The tree the run runs in (a real path). */
  tree: string;
  /** Code files of the tree that are the base's spec and harness, relative, with forward slashes. */
  trusted: ReadonlySet<string>;
  /** A sealed run's runtimes (a real path), or null. */
  runtime: string | null;
  /** The preload's own file (a real path). */
  guardFile: string;
}

const realpath = fs.realpathSync;
const realpathNative = fs.realpathSync.native;
const { resolve: resolvePath, dirname, basename, join, isAbsolute } = path;
const fileURLToPath = url.fileURLToPath;
const isBuffer = Buffer.isBuffer;
const SEP = path.sep;

/** A path inside the tree, relative, with forward slashes. */
export function inTree(p: string, tree: string): string {
  let rel = '';
  for (let i = tree.length + 1; i < p.length; i++) rel += p[i] === SEP ? '/' : p[i];
  return rel;
}

/** A `node:` module's kind: node's test runner is the framework, the rest Node itself. */
export const nodeKind = (file: string): Kind =>
  file.startsWith('node:internal/test_runner/') || file === 'node:test' ? 'framework' : 'internal';

/** A file's kind: a name that is no file on disk (a data: URL, a name given to vm, a file gone) is the patch's. */
export function pathKind(file: string, w: Where): Kind {
  let p: string;
  try {
    const f = file.startsWith('file:') ? fileURLToPath(file) : file;
    if (!isAbsolute(f)) return 'patch';
    p = realpath(f);
  } catch {
    return 'patch';
  }
  if (p === w.guardFile) return 'guard';
  // A sealed run's runtimes: patchwarden's own code the run loads, acting for
  // the runner as an installed package does.
  if (w.runtime && p.startsWith(w.runtime + SEP)) return 'lib';
  // Inside the tree only the root's node_modules is installed code: a
  // node_modules folder the patch adds under src is the patch's.
  if (p.startsWith(w.tree + SEP)) {
    const rel = inTree(p, w.tree);
    return w.trusted.has(rel) ? 'base' : rel.startsWith('node_modules/') ? 'lib' : 'patch';
  }
  return p.includes(`${SEP}node_modules${SEP}`) ? 'lib' : 'patch';
}

/** A file as a refusal names it: relative inside the tree. */
export function show(file: string | null | undefined, tree: string): string {
  if (!file) return '';
  let p = file;
  try {
    p = file.startsWith('file:') ? fileURLToPath(file) : file;
  } catch {
    /* as written */
  }
  return p.startsWith(tree + SEP) ? inTree(p, tree) : p;
}

/** A path given as a string, a Buffer or a file: URL (read by Node's own check). */
export function pathOf(p: unknown): string | null {
  if (typeof p === 'string') return p;
  if (isBuffer(p)) return String(p);
  try {
    return fileURLToPath(p as URL);
  } catch {
    return null;
  }
}

/** Where a path really leads (a link, `/proc/self/fd/N`, a relative path); one not there yet, by its folder. */
export function resolved(p: unknown): string | null {
  const given = pathOf(p);
  if (given === null) return null;
  const s = resolvePath(given);
  try {
    return realpathNative(s);
  } catch {
    /* not there (yet): its folder is */
  }
  try {
    return join(realpathNative(dirname(s)), basename(s));
  } catch {
    return s;
  }
}

/** Whether a path leads into `dir` or is `dir` (the guard's private folder). */
export function leadsInto(p: unknown, dir: string): boolean {
  const r = resolved(p);
  return r !== null && (r === dir || r.startsWith(dir + SEP));
}

/** What a write may lead to outside the run's folders: output that is no file a later process loads. */
const HARMLESS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** Where a write leads when that is outside every folder of `roots` (the run's temporary root and its tree), else null. */
export function leadsOutside(p: unknown, roots: readonly string[]): string | null {
  const r = resolved(p);
  if (r === null || HARMLESS.has(r)) return null;
  return roots.some((dir) => r === dir || r.startsWith(dir + SEP)) ? null : r;
}

const WRITE_FLAGS = /[wa+]/;
/** Whether an open's flags (a number or a string) open the file for writing. */
export const opensForWrite = (flags: unknown): boolean =>
  typeof flags === 'number'
    ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) !== 0
    : typeof flags === 'string' && matches(WRITE_FLAGS, flags);
