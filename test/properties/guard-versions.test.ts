// The table of docs/tamper.md that says which runner versions each lock of
// the runtime guards was proven against: every lock the Python guard declares
// has a row and no row names another, each attack file named exists, and the
// version of each runner the attack tests run here is listed: exactly for the
// runners package-lock.json pins, by release line (major.minor) for those the
// machine provides (Node, CPython and its packages), whose patch releases
// differ from one image to the next.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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
  const rows = table('guard').filter((row) => row[0] === 'Python');
  const listed = rows.flatMap((row) => codeNames(row[1] as string));
  const missing = declared.filter((l) => !listed.includes(l));
  const extra = listed.filter((l) => !declared.includes(l));
  assert.equal(missing, [], `locks of the Python guard with no row in docs/tamper.md's runner versions: ${missing}`);
  assert.equal(extra, [], `rows of docs/tamper.md naming no lock of the Python guard: ${extra}`);
  assert.is(new Set(listed).size, listed.length, 'a lock has two rows');
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
