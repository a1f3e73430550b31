// The table of docs/tamper.md that says which runner versions each lock of
// the runtime guards was proven against: every lock the Python and Node
// guards declare has a row and no row names another, the Node guard installs
// no lock it does not list, each attack file named exists, and the
// version of each runner the attack tests run here is listed: exactly for the
// runners package-lock.json pins, by release line (major.minor) for those the
// machine provides (Node, CPython and its packages), whose patch releases
// differ from one image to the next.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_LOCKS } from '../../src/properties/guard/node/lock-list.js';
import { missingUnless, testUnless } from '../helpers/skip.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GUARD = path.join(PROJECT, 'src/properties/guard');
const DOC = readFileSync(path.join(PROJECT, 'docs/tamper.md'), 'utf8');
const SECTION = DOC.slice(DOC.indexOf('### Runner versions each lock was proven against'));
const FIX =
  'run the attack tests (test/attacks/runtime-*, sealed-*) on it and, when they pass, add it to the table in docs/tamper.md';

/** The table rows of the section whose header starts with `first`, as cells. */
function table(first: string): string[][] {
  const lines = SECTION.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  assert.ok(start >= 0, `docs/tamper.md has no table headed "${first}" under its runner versions`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const codeNames = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

// The locks the Python guard declares, read with Python's own parser: each
// key of the table _handlers returns (an audit event), each attribute a
// _wrap_ function replaces (an assignment, or a no_source call), and each
// event the pytest plugin sends.
const DECLARED = `
import ast, json, sys
guard = ast.parse(open(sys.argv[1]).read())
plugin = ast.parse(open(sys.argv[2]).read())
locks = set()
for fn in guard.body:
    if not isinstance(fn, ast.FunctionDef):
        continue
    if fn.name == "_handlers":
        ret = [n for n in fn.body if isinstance(n, ast.Return)][0]
        locks |= {k.value for k in ret.value.keys}
    if fn.name.startswith("_wrap_"):
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign):
                locks |= {ast.unparse(t) for t in n.targets if isinstance(t, ast.Attribute)}
            if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "no_source":
                locks.add("%s.%s" % (ast.unparse(n.args[0]), n.args[1].value))
for n in ast.walk(plugin):
    if isinstance(n, ast.Dict):
        for k, v in zip(n.keys, n.values):
            if isinstance(k, ast.Constant) and k.value == "event" and isinstance(v, ast.Constant):
                locks.add(v.value)
print(json.dumps(sorted(locks)))
`;

const python = testUnless(missingUnless('python3', ['--version'], 'python3 is not installed'));

python('every lock the Python guard declares has a row, and every Python row names a declared lock', () => {
  const r = spawnSync(
    'python3',
    ['-c', DECLARED, path.join(GUARD, 'patchwarden_guard.py'), path.join(GUARD, 'pytest_plugin.py')],
    { encoding: 'utf8' },
  );
  assert.is(r.status, 0, r.stderr);
  const declared: string[] = JSON.parse(r.stdout);
  assert.ok(declared.length > 40, `only ${declared.length} locks read from the guard: ${declared.join(', ')}`);
  sameLocks('Python', declared);
});

/** The `guard` rows of the table name exactly the locks `declared`, each once. */
function sameLocks(guard: string, declared: readonly string[]): void {
  const rows = table('guard').filter((row) => row[0] === guard);
  const listed = rows.flatMap((row) => codeNames(row[1] as string));
  const missing = declared.filter((l) => !listed.includes(l));
  const extra = listed.filter((l) => !declared.includes(l));
  assert.equal(missing, [], `locks of the ${guard} guard with no row in docs/tamper.md's runner versions: ${missing}`);
  assert.equal(extra, [], `rows of docs/tamper.md naming no lock of the ${guard} guard: ${extra}`);
  assert.is(new Set(listed).size, listed.length, `a ${guard} lock has two rows`);
}

test('every lock the Node guard lists has a row, and every Node row names a listed lock', () => {
  assert.ok(NODE_LOCKS.length > 10, `only ${NODE_LOCKS.length} locks in lock-list.ts: ${NODE_LOCKS.join(', ')}`);
  sameLocks('Node', NODE_LOCKS);
});

// The Node guard's modules, read with @babel/parser: each lock is installed
// through install() under a listed name, and no installer runs outside it.
const NODE_GUARD = path.join(GUARD, 'node');
type Node = any;
const modules = readdirSync(NODE_GUARD, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({
    file: f,
    ast: parse(readFileSync(path.join(NODE_GUARD, f), 'utf8'), { sourceType: 'module', plugins: ['typescript'] }),
  }));

/** Each call in `node`, with whether it is inside the arguments of an install() call. */
function calls(node: Node, inInstall = false, out: { call: Node; inInstall: boolean }[] = []) {
  if (node === null || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const n of node) calls(n, inInstall, out);
    return out;
  }
  let inside = inInstall;
  if (node.type === 'CallExpression') {
    out.push({ call: node, inInstall });
    if (node.callee.type === 'Identifier' && node.callee.name === 'install') inside = true;
  }
  for (const [key, value] of Object.entries(node))
    if (key !== 'loc' && key !== 'start' && key !== 'end') calls(value, inside, out);
  return out;
}
const calleeName = (call: Node): string =>
  call.callee.type === 'Identifier'
    ? call.callee.name
    : call.callee.type === 'MemberExpression' && call.callee.property.type === 'Identifier'
      ? `${call.callee.object.name ?? '…'}.${call.callee.property.name}`
      : '';
const where = (file: string, call: Node) => `src/properties/guard/node/${file}:${call.loc.start.line}`;

test('the Node guard installs each listed lock, and only through install() under a listed name', () => {
  const installed = new Set<string>();
  const installers = new Set<string>();
  for (const { file, ast } of modules)
    for (const { call } of calls(ast.program)) {
      if (calleeName(call) !== 'install') continue;
      const [name, how] = call.arguments;
      assert.is(name.type, 'StringLiteral', `${where(file, call)}: install() takes a lock's name from NODE_LOCKS`);
      assert.ok(NODE_LOCKS.includes(name.value), `${where(file, call)} installs "${name.value}", not in NODE_LOCKS`);
      installed.add(name.value);
      // The installer: `how` itself, or the function its arrow calls.
      const body = how.type === 'ArrowFunctionExpression' ? how.body : how;
      if (body.type === 'Identifier') installers.add(body.name);
      if (body.type === 'CallExpression' && body.callee.type === 'Identifier') installers.add(body.callee.name);
    }
  const never = NODE_LOCKS.filter((l) => !installed.has(l));
  assert.equal(never, [], `locks in NODE_LOCKS that nothing installs: ${never}`);
  // An installer another module calls outside install() installs a lock unlisted.
  for (const { file, ast } of modules) {
    const own = new Set(
      ast.program.body
        .filter((n: Node) => n.type === 'ExportNamedDeclaration' && n.declaration?.type === 'FunctionDeclaration')
        .map((n: Node) => n.declaration.id.name),
    );
    for (const { call, inInstall } of calls(ast.program)) {
      const name = calleeName(call);
      if (!inInstall && installers.has(name) && !own.has(name))
        assert.unreachable(`${where(file, call)} calls ${name}, which installs a lock, outside install()`);
    }
  }
});

// What the preload's entry runs besides install(): the run's channel, the
// jest check, test selection, the pool's records, the check at exit of what
// the built-ins lock holds. A new step that locks anything is a lock.
const NOT_LOCKS = new Set(['openChannel', 'send', 'isJestMain', 'selectTests', 'checkLocked', 'recordPoolEnds']);

test("the preload's entry runs each of its guard's steps through install() or names it as no lock", () => {
  const preload = modules.find((m) => m.file === 'preload.ts');
  assert.ok(preload, 'src/properties/guard/node/preload.ts is not there');
  const imported = new Set<string>(
    preload.ast.program.body
      .filter((n: Node) => n.type === 'ImportDeclaration' && n.source.value.startsWith('./'))
      .flatMap((n: Node) => n.specifiers.map((s: Node) => s.local.name)),
  );
  imported.delete('install');
  for (const { call, inInstall } of calls(preload.ast.program)) {
    const name = calleeName(call);
    const locking =
      imported.has(name) || /^(Object|Reflect)\.(freeze|seal|preventExtensions|defineProperty)$/.test(name);
    if (!inInstall && locking && !NOT_LOCKS.has(name))
      assert.unreachable(
        `${where('preload.ts', call)} runs ${name} outside install(): list its lock in NODE_LOCKS and install it`,
      );
  }
});

test('each attack file a lock names exists', () => {
  for (const row of table('guard')) {
    for (const file of codeNames(row[2] as string).filter((n) => n.endsWith('.ts') || n.endsWith('.py'))) {
      const where = file.includes('/') ? path.join(PROJECT, file) : path.join(PROJECT, 'test/attacks', file);
      assert.ok(existsSync(where), `docs/tamper.md names ${file} for ${row[1]}, and there is no ${where}`);
    }
  }
});

/** `cmd args` printed this (first line, trimmed), or null when it does not run. */
function output(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0 ? `${r.stdout}${r.stderr}`.trim() : null;
}

const version = (text: string | null) => (text ? (/\d+\.\d+\.\d+/.exec(text)?.[0] ?? null) : null);

/** The runner versions the attack tests find here: [runner row, version], for each runner present. */
function foundHere(): [string, string][] {
  const found: [string, string | null][] = [['Node (node:test)', version(process.version)]];
  // The interpreters the attack tests run: python3, and Debian's where pytest-xdist is (runtime-xdist.test.ts).
  const xdist = ['python3', '/usr/bin/python3'].find(
    (py) => spawnSync(py, ['-c', 'import pytest, xdist']).status === 0,
  );
  for (const py of new Set(['python3', ...(xdist ? [xdist] : [])])) {
    const probe = (code: string) => version(output(py, ['-c', code]));
    found.push(['CPython', probe('import platform; print(platform.python_version())')]);
    found.push(['pytest', probe('import pytest; print(pytest.__version__)')]);
    if (py === xdist) found.push(['pytest-xdist', probe('import xdist; print(xdist.__version__)')]);
  }
  found.push(['Hypothesis', version(output('python3', ['-c', 'import hypothesis; print(hypothesis.__version__)']))]);
  for (const [row, pkg] of [
    ['mocha', 'mocha'],
    ['jest', 'jest'],
    ['vitest', 'vitest'],
  ] as const) {
    const manifest = path.join(PROJECT, 'node_modules', pkg, 'package.json');
    found.push([row, existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : null]);
  }
  return found.filter((f): f is [string, string] => f[1] !== null);
}

/** The runners package-lock.json pins: listed to the patch release. */
const PINNED = new Set(['mocha', 'jest', 'vitest']);
const line = (v: string) => v.split('.').slice(0, 2).join('.');

test('the version of each runner the attack tests run here is listed', () => {
  const rows = new Map(table('runner').map((row) => [row[0] as string, row[1] as string]));
  const found = foundHere();
  assert.ok(found.length >= 2, `too few runners found: ${JSON.stringify(found)}`);
  for (const [runner, v] of found) {
    const listed = rows.get(runner);
    assert.ok(listed !== undefined, `docs/tamper.md lists no row for ${runner}`);
    const versions: string[] = (listed as string).match(/\d+\.\d+\.\d+/g) ?? [];
    const same = PINNED.has(runner) ? (w: string) => w === v : (w: string) => line(w) === line(v);
    assert.ok(versions.some(same), `${runner} ${v} runs the attack tests here and is not listed (${versions}): ${FIX}`);
  }
});

test.run();
