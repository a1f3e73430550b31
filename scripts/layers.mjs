// The layer check: reads every import under src/ (static, type-only and
// dynamic alike), folds them into a graph of folders, and fails on a folder
// that imports a folder declared above it, on any folder-level cycle, and on a
// folder the order does not name. docs/architecture.md explains the order.
// Usage: node scripts/layers.mjs [ROOT]   (ROOT holds src/; default: here)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

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
  'gate',
  'hooks',
  'adopt',
  'cli',
];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g;

/** Every relative import under ROOT/src as { from, to } folder pairs with the file that makes it. */
export function folderImports(root) {
  const src = path.join(root, 'src');
  const edges = [];
  for (const rel of readdirSync(src, { recursive: true })) {
    if (!String(rel).endsWith('.ts')) continue;
    const file = path.join(src, String(rel));
    const from = String(rel).split(path.sep)[0];
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = path.relative(src, path.resolve(path.dirname(file), spec));
      const to = target.split(path.sep)[0];
      if (to !== from) edges.push({ from, to, file: path.join('src', String(rel)), spec });
    }
  }
  return edges;
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
  const edges = folderImports(root);
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
  for (const set of cycles(edges)) out.push(`folder cycle: ${set.join(' <-> ')}`);
  for (const e of edges) {
    if (rank.has(e.from) && rank.has(e.to) && rank.get(e.to) > rank.get(e.from)) {
      out.push(`${e.file} imports '${e.spec}': ${e.from}/ may not import ${e.to}/, which sits above it`);
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
  console.log(`layers: ${ORDER.length} folders, imports run downward only`);
}
