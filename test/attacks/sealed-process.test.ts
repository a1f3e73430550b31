// Sealed runs in process mode, end to end: `properties.sealed: process` with
// real pytest and node --test under the real runtime guard, which stays
// loaded in the worker. The honest fix is proven fixed (the sealed runtime's
// own acts in the worker, its threads, sys.path and os._exit on a closed
// channel, are not production code's); a src-only attack the guard knows is
// refused by the guard in the worker, and a lying result stays red. Without Landlock, `kernel` falls back to
// this mode and says so (see sealed-wiring.test.ts for gate.require).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import {
  BUGGY_JS,
  BUGGY_PY,
  config,
  FIXED_JS,
  FIXED_PY,
  GC_SWAP_PY,
  jsProperty,
  NODE_TEST,
  project,
  PYTEST,
  pyProperty,
  registry,
} from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const py = testUnless(pytestMissing);

test.after.each(cleanup);

const pyFiles = (src: string, sealed = 'process') => ({
  '.patchwarden.yml': config(PYTEST, `  sealed: ${sealed}\n`),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': src,
});
const jsFiles = (src: string) => ({
  '.patchwarden.yml': config(NODE_TEST, '  sealed: process\n'),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': src,
  'package.json': '{"type":"module"}\n',
});

function check(files: Record<string, string>, patch: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const { repo, base, head } = project(files, patch);
  const r = repo.json(['revert-check', '--base', base, '--head', head], { env });
  assert.is(r.out.sealed, 'process', r.stderr);
  return r;
}

/** Refused by the guard in the worker, with its reason. */
function refused(r: ReturnType<typeof check>, reason: RegExp): void {
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head', r.out.reason);
  assert.match(r.out.reason, /the runtime guard refused the run/);
  assert.match(r.out.reason, reason);
}

py('process pytest: the honest fix is proven fixed under the guard', () => {
  const r = check(pyFiles(BUGGY_PY), { 'src/bill.py': FIXED_PY });
  assert.is(r.code, 0, `${r.out.reason}\n${r.stderr}`);
  assert.is(r.out.status, 'describes_patch');
  assert.is(r.out.head_run.sealed, 'process');
  assert.match(r.stderr, /sealed: process/);
});

py('process pytest: honest production code with threads passes under the guard', () => {
  const threaded = `import threading\n\n\ndef total(xs):\n    out = []\n    t = threading.Thread(target=lambda: out.append(sum(xs)))\n    t.start()\n    t.join()\n    return out[0]\n`;
  const r = check(pyFiles(BUGGY_PY), { 'src/bill.py': threaded });
  assert.is(r.code, 0, `${r.out.reason}\n${r.stderr}`);
  assert.is(r.out.status, 'describes_patch');
});

py('process pytest: the gc swap of the test function is refused by the guard or stays red', () => {
  const r = check(pyFiles(BUGGY_PY), { 'src/bill.py': GC_SWAP_PY });
  refused(r, /runtime guard: gc\.get_objects at src\/bill\.py:8/);
});

py('process pytest: os._exit(0) from production code is no pass', () => {
  const r = check(pyFiles(BUGGY_PY), { 'src/bill.py': 'import os\n\n\ndef total(xs):\n    os._exit(0)\n' });
  refused(r, /ended without the guard's final record/);
});

py('kernel without Landlock: falls back to process, says so, and the fix is proven', () => {
  const { repo, base, head } = project(pyFiles(BUGGY_PY, 'kernel'), { 'src/bill.py': FIXED_PY });
  const r = repo.pw(['revert-check', '--base', base, '--head', head], { env: { PATCHWARDEN_LANDLOCK: 'off' } });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout + r.stderr,
    /sealed: process \(production code ran in a worker the runtime guard watches: properties\.sealed is kernel, but this machine has no Landlock\)/,
  );
});

test('process node --test: the honest fix is proven fixed under the guard', () => {
  const r = check(jsFiles(BUGGY_JS), { 'src/bill.mjs': FIXED_JS });
  assert.is(r.code, 0, `${r.out.reason}\n${r.stderr}`);
  assert.is(r.out.status, 'describes_patch');
});

test('process node --test: process.exit(0) from production code is no pass', () => {
  const r = check(jsFiles(BUGGY_JS), { 'src/bill.mjs': 'export const total = (xs) => process.exit(0);\n' });
  refused(r, /runtime guard: process\.exit at src\/bill\.mjs:1/);
});

test('process node --test: a valueOf lie stays red (the stand-in compares, not production code)', () => {
  const r = check(jsFiles(BUGGY_JS), { 'src/bill.mjs': 'export const total = (xs) => ({ valueOf: () => 1 });\n' });
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked', r.out.reason);
});

test("process node --test: production code compiling code in the property process through a callback's constructor stays red", () => {
  const spec = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/bill.mjs';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  for (const xs of [[], [1, 2]]) { const got = total(xs, (x) => x); assert.ok(Object.is(got >= 0, true)); }\n});\n`;
  const attack = `export const total = (xs, f) => {\n  try { f.constructor('globalThis.pwEscaped = process.pid; Object.is = () => true;')(); } catch {}\n  return xs.map(f).reduce((a, b) => a + b, 0) - 1;\n};\n`;
  const r = check({ ...jsFiles(BUGGY_JS), 'spec/properties/bill.test.mjs': spec }, { 'src/bill.mjs': attack });
  assert.is(r.code, 1, r.stderr);
  // Red on head as on base: the request was refused, Object.is was never replaced here.
  assert.is(r.out.status, 'pending_unmarked', r.out.reason);
});

test.run();
