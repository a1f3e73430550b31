// The layer check: reads every import of every script under src/ with
// @babel/parser (static, type-only, re-exports, import(), require() and
// createRequire alike), folds them into a graph of folders, and fails on a
// folder that imports a folder declared above it, on any folder-level cycle,
// on a folder the order does not name, and on an import whose path it cannot
// read as a literal inside src/ or a package. docs/architecture.md explains
// the order.
// Usage: node scripts/layers.mjs [ROOT]   (ROOT holds src/; default: here)
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** @babel/parser, loaded only when a file is not in the cache. */
let parser = null;

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

/** The files the lint reads: every script or module a build or a runtime could load. */
const SOURCE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;

/** The path an import names, when it is a string or a template literal without expressions; else null. */
function literal(node) {
  if (node?.type === 'StringLiteral') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (node?.type === 'TSLiteralType') return literal(node.literal);
  return null;
}

const isCreateRequire = (callee, names) =>
  (callee.type === 'Identifier' && names.has(callee.name)) ||
  (callee.type === 'MemberExpression' &&
    callee.property.type === 'Identifier' &&
    callee.property.name === 'createRequire');

/**
 * Every module a file loads, read with the parser the project bundles: static
 * imports, `import type`, re-exports, TypeScript's `import x = require()` and
 * `typeof import()`, `import()` and `require()` (also through a function
 * `createRequire` made). Each as { spec, line }; a call whose path is no
 * literal comes back with spec null.
 */
export function importsOf(file, text) {
  const plugins = file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'];
  parser ??= createRequire(import.meta.url)('@babel/parser');
  const ast = parser.parse(text, { sourceType: 'unambiguous', plugins, allowReturnOutsideFunction: true });
  const found = [];
  const add = (arg, node) => found.push({ spec: literal(arg), line: node.loc.start.line });
  // Names bound to createRequire itself, and to the functions it returns.
  const creators = new Set(['createRequire']);
  const requires = new Set(['require']);
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node.type !== 'string') return;
    switch (node.type) {
      case 'ImportDeclaration':
        for (const s of node.specifiers)
          if (s.type === 'ImportSpecifier' && (s.imported.name ?? s.imported.value) === 'createRequire')
            creators.add(s.local.name);
        add(node.source, node);
        break;
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
        if (node.source) add(node.source, node);
        break;
      case 'TSImportType':
        add(node.argument, node);
        break;
      case 'TSExternalModuleReference':
        add(node.expression, node);
        break;
      case 'VariableDeclarator':
        if (
          node.init?.type === 'CallExpression' &&
          isCreateRequire(node.init.callee, creators) &&
          node.id.type === 'Identifier'
        )
          requires.add(node.id.name);
        break;
      case 'ImportExpression':
        add(node.source, node);
        break;
      case 'CallExpression': {
        const c = node.callee;
        const loads =
          c.type === 'Import' ||
          (c.type === 'Identifier' && requires.has(c.name)) ||
          (c.type === 'CallExpression' && isCreateRequire(c.callee, creators));
        if (loads) add(node.arguments[0], node);
        break;
      }
    }
    for (const key of Object.keys(node))
      if (key !== 'loc' && key !== 'extra' && node[key] && typeof node[key] === 'object') visit(node[key]);
  };
  visit(ast.program);
  return found;
}

// Parsing every file takes seconds on a cold start; what a file imports is kept
// by the digest of its text and of this script, so a run parses what changed.
const SELF = fileURLToPath(import.meta.url);
const CACHE = path.join(path.dirname(SELF), '../node_modules/.cache/patchwarden-layers.json');
const digest = (text) => createHash('sha256').update(text).digest('hex');

function readCache() {
  const salt = digest(readFileSync(SELF));
  try {
    const cache = JSON.parse(readFileSync(CACHE, 'utf8'));
    if (cache.salt === salt) return { salt, files: cache.files };
  } catch {
    /* none yet, or unreadable: start afresh */
  }
  return { salt, files: {} };
}

/** Keeps the entries this run used; writes only when that changes the cache. */
function writeCache(cache, used) {
  const before = Object.keys(cache.files);
  if (before.length === used.size && before.every((k) => used.has(k))) return;
  const files = Object.fromEntries([...used].map((d) => [d, cache.files[d]]));
  try {
    mkdirSync(path.dirname(CACHE), { recursive: true });
    const tmp = `${CACHE}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify({ salt: cache.salt, files }));
    renameSync(tmp, CACHE);
  } catch {
    /* a read-only checkout: the next run parses again */
  }
}

/** A module by name (`yaml`, `@scope/pkg/sub`, `node:fs`), as against a path or a URL. */
const PACKAGE = /^(?:node:)?(?:@[\w.-]+\/)?[\w.-]+(?:\/[^:]*)?$/;

/** The src/ folder an import lands in, '' for a package, or why the lint cannot place it. */
function place(src, file, spec) {
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
  const cache = readCache();
  const used = new Set();
  for (const rel of readdirSync(src, { recursive: true }).map(String)) {
    if (!SOURCE.test(rel)) continue;
    const file = path.join(src, rel);
    const shown = path.join('src', rel);
    const text = readFileSync(file, 'utf8');
    const key = digest(`${rel}\0${text}`);
    try {
      cache.files[key] ??= importsOf(file, text);
    } catch (e) {
      unreadable.push(`${shown}: does not parse (${e.message}), so its imports cannot be checked`);
      continue;
    }
    used.add(key);
    const from = rel.split(path.sep)[0];
    for (const { spec, line } of cache.files[key]) {
      const { to, problem } = place(src, file, spec);
      if (problem) unreadable.push(`${shown}:${line}: ${problem}`);
      else if (to && to !== from) edges.push({ from, to, file: shown, line, spec });
    }
  }
  writeCache(cache, used);
  return { edges, unreadable };
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
  const { edges, unreadable } = folderImports(root);
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
  out.push(...unreadable);
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
  console.log(`layers: ${ORDER.length} folders, imports run downward only`);
}
