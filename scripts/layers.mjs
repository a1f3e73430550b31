// The layer check: reads every import of every script under src/ with
// @babel/parser (static, type-only, re-exports, import(), require() and
// createRequire alike), folds them into a graph of folders, and fails on a
// folder that imports a folder declared above it, on any folder-level cycle,
// on a folder the order does not name, and on an import whose path it cannot
// read as a literal inside src/ or a package, unless the line above it says
// `layers: built files` (a load of the judge's own bundle at run time, which
// no source folder's order applies to) or `layers: project files` (the sealed
// worker loading the project under test). It also fails on a git command line
// written outside src/git/ (`repo.run([...])`, `runGit`, a process started as
// `git`): plumbing lives in git/ only, as named functions. docs/architecture.md
// explains the order.
// Usage: node scripts/layers.mjs [ROOT]   (ROOT holds src/; default: here)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readScripts } from './imports.mjs';

// Lowest first: a folder may import only folders before it in this list.
export const ORDER = [
  // core
  'common',
  'zones',
  'git',
  'config',
  'junit',
  // rules, each above the rules it uses
  'owners',
  'mixing',
  'signature',
  'fixtures',
  'freeze',
  'tamper',
  'runner',
  'properties',
  'refactors',
  'replay',
  // outer layer: the commands and entry points that compose the rules
  'scratch',
  'judge',
  'gate',
  'hooks',
  'adopt',
  'cli',
];

/** The one folder that writes git command lines. */
const GIT_FOLDER = 'git';

/** The files the lint reads: every script or module a build or a runtime could load. */
const SOURCE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;

/** A module by name (`yaml`, `@scope/pkg/sub`, `node:fs`), as against a path or a URL. */
const PACKAGE = /^(?:node:)?(?:@[\w.-]+\/)?[\w.-]+(?:\/[^:]*)?$/;

/** The marker, on the line above, of a load of the built bundle's own files, or of the project under test. */
const BUILT_FILES = /\/\/ layers: (?:built|project) files\b/;

/** The src/ folder an import lands in, '' for a package, null for the built bundle's files, or why the lint cannot place it. */
function place(src, file, spec, above) {
  if (spec === null && BUILT_FILES.test(above)) return { to: null };
  if (spec === null)
    return {
      problem:
        'an import() or require() whose path is not a literal: write the path as a string, so the layer order can be checked',
    };
  if (!spec.startsWith('.'))
    return PACKAGE.test(spec) ? { to: '' } : { problem: `imports '${spec}', neither a path inside src/ nor a package` };
  const target = path.relative(src, path.resolve(path.dirname(file), spec));
  if (target.startsWith('..') || path.isAbsolute(target))
    return { problem: `imports '${spec}', which lies outside src/` };
  return { to: target.split(path.sep)[0] };
}

/**
 * Every import under ROOT/src that crosses folders, as { from, to, file, line,
 * spec } folder pairs; and every file or import the lint cannot place (no
 * literal path, a path outside src/ that is no package, a file that does not
 * parse) as a line to print.
 */
export function folderImports(root) {
  const src = path.join(root, 'src');
  const edges = [];
  const unreadable = [];
  const gitCalls = [];
  const files = readdirSync(src, { recursive: true })
    .map(String)
    .filter((rel) => SOURCE.test(rel))
    .map((rel) => path.join(src, rel));
  for (const [file, found] of readScripts('layers', files)) {
    const shown = path.relative(root, file);
    if (found instanceof Error) {
      unreadable.push(`${shown}: does not parse (${found.message}), so its imports cannot be checked`);
      continue;
    }
    const from = path.relative(src, file).split(path.sep)[0];
    if (from !== GIT_FOLDER)
      for (const { what, line } of found.gitCalls)
        gitCalls.push(
          `${shown}:${line}: ${what} writes a git command line outside src/git/: call a named function of src/git/ (add one there, named for what it does)`,
        );
    const lines = found.imports.some((f) => f.spec === null) ? readFileSync(file, 'utf8').split('\n') : [];
    for (const { spec, line } of found.imports) {
      const { to, problem } = place(src, file, spec, lines[line - 2] ?? '');
      if (problem) unreadable.push(`${shown}:${line}: ${problem}`);
      else if (to && to !== from) edges.push({ from, to, file: shown, line, spec });
    }
  }
  return { edges, unreadable, gitCalls };
}

/** Strongly connected sets of more than one folder (Tarjan). */
export function cycles(edges) {
  const next = new Map();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from).add(to);
  }
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    stack = [],
    on = new Set(),
    found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of next.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const set = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) found.push(set.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** Every broken rule, as lines to print; empty when the layers hold. */
export function problems(root, order = ORDER) {
  const { edges, unreadable, gitCalls } = folderImports(root);
  const rank = new Map(order.map((f, i) => [f, i]));
  const out = [];
  const folders = new Set(
    readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name),
  );
  for (const f of [...folders].sort())
    if (!rank.has(f))
      out.push(
        `src/${f}/ is not in the layer order (scripts/layers.mjs ORDER): place it there and in docs/architecture.md`,
      );
  out.push(...unreadable, ...gitCalls);
  for (const set of cycles(edges)) out.push(`folder cycle: ${set.join(' <-> ')}`);
  for (const e of edges) {
    if (rank.has(e.from) && rank.has(e.to) && rank.get(e.to) > rank.get(e.from)) {
      out.push(`${e.file}:${e.line} imports '${e.spec}': ${e.from}/ may not import ${e.to}/, which sits above it`);
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] ?? '.');
  const found = problems(root);
  if (found.length > 0) {
    for (const line of found) console.error(`layers: ${line}`);
    console.error(
      `layers: ${found.length} problem${found.length === 1 ? '' : 's'}; the order and its reasons are in docs/architecture.md`,
    );
    process.exit(1);
  }
  console.log(`layers: ${ORDER.length} folders, imports run downward only, git command lines only in src/git/`);
}
