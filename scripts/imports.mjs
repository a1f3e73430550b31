// What a script imports, where it writes a git command line itself, and which
// of its functions run long, read with the parser the project bundles
// (@babel/parser): for the layer lint (scripts/layers.mjs) and the test
// runner's unit tier (scripts/test.mjs).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** @babel/parser, loaded only when a file is not in the cache. */
let parser = null;

/** The path an import names, when it is a string or a template literal without expressions; else null. */
function literal(node) {
  if (node?.type === 'StringLiteral') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  if (node?.type === 'TSLiteralType') return literal(node.literal);
  return null;
}

/** The calls that start git with an argument list written at the call: src/git/'s runners, and node's own process starters. */
const GIT_RUNNERS = new Set(['runGit', 'runGitSync']);
const STARTERS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync']);

/** How a call starts git with a command line of its own (`repo.run([...])`, `runGit(...)`, `spawn('git', ...)`), or null. */
function gitCall(node) {
  const c = node.callee;
  const name = c.type === 'Identifier' ? c.name : c.type === 'MemberExpression' && !c.computed ? c.property.name : null;
  if (c.type === 'Identifier' && GIT_RUNNERS.has(name)) return `${name}(...)`;
  const [first] = node.arguments;
  if (c.type === 'MemberExpression' && (name === 'run' || name === 'text')) {
    // A repository's runner, whatever it is handed (a helper that forwards an argument list is one more way in).
    const owner =
      c.object.type === 'Identifier'
        ? c.object.name
        : c.object.type === 'MemberExpression'
          ? c.object.property.name
          : '';
    if (first?.type === 'ArrayExpression' || /repo$/i.test(owner ?? '')) return `${owner || '...'}.${name}(...)`;
  }
  const program = literal(first);
  if (STARTERS.has(name) && program !== null && /^git(\s|$)/.test(program)) return `${name}('git', ...)`;
  return null;
}

/** Past this many lines a function is split where a name explains the part (docs/architecture.md). */
export const LONG_FUNCTION = 100;

/** A function's name as a reader finds it: its own, its method key, or the variable or property it is assigned to. */
const functionName = (node, holder) => node.id?.name ?? node.key?.name ?? holder ?? '(anonymous)';

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
 * literal comes back with spec null. Beside them, `gitCalls`: each place that
 * writes a git command line itself, as { what, line }: a `.run([...])` or
 * `.text([...])` of an argument list, a call or import of `runGit` or
 * `runGitSync`, a process started as `git`. And `long`: each function of
 * more than LONG_FUNCTION lines, as { name, line, lines }.
 */
function readScript(file, text) {
  const plugins = file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'];
  parser ??= createRequire(import.meta.url)('@babel/parser');
  const ast = parser.parse(text, { sourceType: 'unambiguous', plugins, allowReturnOutsideFunction: true });
  const found = [];
  const gitCalls = [];
  const long = [];
  const add = (arg, node) => found.push({ spec: literal(arg), line: node.loc.start.line });
  // Names bound to createRequire itself, and to the functions it returns.
  const creators = new Set(['createRequire']);
  const requires = new Set(['require']);
  const visit = (node, holder) => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, holder);
      return;
    }
    if (!node || typeof node.type !== 'string') return;
    if (/Function|Method/.test(node.type) && node.body) {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      if (lines > LONG_FUNCTION) long.push({ name: functionName(node, holder), line: node.loc.start.line, lines });
    }
    switch (node.type) {
      case 'ImportDeclaration':
        for (const s of node.specifiers) {
          const imported = s.type === 'ImportSpecifier' ? (s.imported.name ?? s.imported.value) : null;
          if (imported === 'createRequire') creators.add(s.local.name);
          if (GIT_RUNNERS.has(imported)) gitCalls.push({ what: `an import of ${imported}`, line: s.loc.start.line });
        }
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
        const what = gitCall(node);
        if (what) gitCalls.push({ what, line: node.loc.start.line });
        break;
      }
    }
    const named =
      node.type === 'VariableDeclarator' || node.type === 'ObjectProperty' ? (node.id ?? node.key)?.name : holder;
    for (const key of Object.keys(node))
      if (key !== 'loc' && key !== 'extra' && node[key] && typeof node[key] === 'object') visit(node[key], named);
  };
  visit(ast.program);
  return { imports: found, gitCalls, long };
}

// Parsing every file takes seconds on a cold start; what a file imports is kept
// by the digest of its name and text and of this script, so a run parses what changed.
const SELF = fileURLToPath(import.meta.url);
// Beside the test runner's timings: under the working folder.
const CACHES = path.resolve('node_modules/.cache');
const digest = (text) => createHash('sha256').update(text).digest('hex');

function readCache(file) {
  const salt = digest(readFileSync(SELF));
  try {
    const cache = JSON.parse(readFileSync(file, 'utf8'));
    if (cache.salt === salt) return { salt, files: cache.files };
  } catch {
    /* none yet, or unreadable: start afresh */
  }
  return { salt, files: {} };
}

/** Keeps the entries this run used. */
function writeCache(file, cache, used) {
  const files = Object.fromEntries([...used].map((d) => [d, cache.files[d]]));
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify({ salt: cache.salt, files }));
    renameSync(tmp, file);
  } catch {
    /* a read-only checkout: the next run parses again */
  }
}

/**
 * What each of `files` imports, where it writes git command lines and which
 * of its functions run long (readScript), or the Error that kept it from
 * parsing, by file. `name` names the cache, one per caller.
 */
export function readScripts(name, files) {
  const store = path.join(CACHES, `patchwarden-imports-${name}.json`);
  const cache = readCache(store);
  const used = new Set();
  const out = new Map();
  let parsed = false;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const key = digest(`${path.basename(file)}\0${text}`);
    try {
      if (!cache.files[key]) {
        cache.files[key] = readScript(file, text);
        parsed = true;
      }
      used.add(key);
      out.set(file, cache.files[key]);
    } catch (e) {
      out.set(file, e);
    }
  }
  // Written when this run parsed a file or left an entry unused.
  if (parsed || Object.keys(cache.files).length !== used.size) writeCache(store, cache, used);
  return out;
}

/** What each of `files` imports (readScript's `imports`), or the Error that kept it from parsing, by file. */
export function importsOfFiles(name, files) {
  return new Map(
    [...readScripts(name, files)].map(([file, found]) => [file, found instanceof Error ? found : found.imports]),
  );
}
