// Honest properties pass sealed: node:test specs (ES modules and CommonJS)
// whose src imports are proxies, while production code runs in the sealed
// worker. Records compare with deepStrictEqual to ones the property builds,
// generators iterate, built-in and production error classes are what
// assert.throws sees, callbacks run here re-entrantly, async functions,
// timers, temp files and child processes work in the worker, modules that
// import each other load there, an npm workspaces package in src is proxied,
// fast-check draws from PROP_SEED in the property process (the runtime
// makes it fast-check's global seed), and mocha's specs load through
// import(). A failing property's signature is the same sealed and
// unsealed. Real node --test and mocha.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, sh } from '../helpers/repo.js';
import { missingUnless, testUnless } from '../helpers/skip.js';
import { cleanupSealed, SEED, SealedProject, statusOf } from './sealed-node-site.js';

test.after.each(cleanupSealed);

const GEO = `import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export class Point {
  constructor(x, y) { this.x = x; this.y = y; }
  norm1() { return Math.abs(this.x) + Math.abs(this.y); }
  shift(d) { this.x += d; return this; }
}
export const mid = (a, b) => new Point((a.x + b.x) / 2, (a.y + b.y) / 2);
export function* range(a, b) { for (let i = a; i < b; i++) yield i; }
export class BadInput extends Error {
  constructor(m) { super(m); this.name = 'BadInput'; this.code = 'E_BAD'; }
}
export function check(x) {
  if (x < 0) throw new BadInput('negative: ' + x);
  if (x > 100) throw new RangeError('too big: ' + x);
  return x;
}
export const mapWith = (xs, f) => xs.map((x) => f(x * 10));
export const twice = (x) => 2 * x;
export async function later(x) {
  await new Promise((r) => setTimeout(r, 20));
  return { x, pid: process.pid, seed: process.env.PROP_SEED ?? null, sealed: Object.keys(process.env).filter((k) => k.startsWith('PATCHWARDEN')) };
}
export function tempRoundTrip(text) {
  const f = path.join(mkdtempSync(path.join(tmpdir(), 'geo-')), 'x.txt');
  writeFileSync(f, text);
  return readFileSync(f, 'utf8');
}
export const childSum = (a, b) => Number(execFileSync(process.execPath, ['-e', \`console.log(\${a} + \${b})\`], { encoding: 'utf8' }));
export function threaded(n) {
  return new Promise((resolve, reject) => {
    const w = new Worker('const { parentPort, workerData } = require("node:worker_threads"); parentPort.postMessage(workerData * 3);', { eval: true, workerData: n });
    w.once('message', resolve);
    w.once('error', reject);
  });
}
export const same = (v) => v;
export const decorated = () => Object.assign(Object.create({ inherited: 1 }), { own: 2 });
`;

const CYCLE = {
  'src/even.mjs': "import { isOdd } from './odd.mjs';\nexport const isEven = (n) => (n === 0 ? true : isOdd(n - 1));\n",
  'src/odd.mjs':
    "import { isEven } from './even.mjs';\nimport { dec } from './util.mjs';\nexport const isOdd = (n) => (n === 0 ? false : isEven(dec(n)));\n",
  'src/util.mjs':
    "import { isEven } from './even.mjs';\nexport const dec = (n) => n - 1;\nexport const parity = (n) => (isEven(n) ? 'even' : 'odd');\n",
};

const SPEC = `import test from 'node:test';
import assert from 'node:assert/strict';
import { BadInput, Point, check, childSum, decorated, later, mapWith, mid, range, same, tempRoundTrip, threaded, twice } from '../src/geo.mjs';
import { isEven } from '../src/even.mjs';
import { isOdd } from '../src/odd.mjs';
import { parity } from '../src/util.mjs';

test('record', () => {
  const m = mid(new Point(0, 0), new Point(2, 4));
  assert.deepStrictEqual(m, new Point(1, 2));
  assert.ok(m instanceof Point);
  assert.equal(m.norm1(), 3);
  assert.deepStrictEqual(m.shift(1), new Point(2, 2));
  assert.equal(m.x, 2);
  assert.notDeepStrictEqual(m, { x: 2, y: 3 });
});
test('generator', () => {
  assert.deepStrictEqual([...range(0, 4)], [0, 1, 2, 3]);
});
test('built-in error', () => {
  assert.throws(() => check(101), RangeError);
  assert.throws(() => check(101), { name: 'RangeError', message: 'too big: 101' });
});
test('production error', () => {
  assert.throws(() => check(-1), BadInput);
  assert.throws(() => check(-1), { name: 'BadInput', message: 'negative: -1', code: 'E_BAD' });
  assert.throws(() => check(-1), Error);
  assert.equal(check(7), 7);
});
test('callback', () => {
  assert.deepStrictEqual(mapWith([1, 2, 3], (x) => twice(x) + 1), [21, 41, 61]);
});
test('async and timers', async () => {
  const r = await later(5);
  assert.equal(r.x, 5);
  assert.notEqual(r.pid, process.pid);
  assert.equal(r.seed, null);
  assert.deepStrictEqual(r.sealed, []);
  assert.equal(process.env.PROP_SEED, '${SEED}');
});
test('temp files', () => {
  assert.equal(tempRoundTrip('hello'), 'hello');
});
test('child process', () => {
  assert.equal(childSum(20, 22), 42);
});
test('threads', async () => {
  assert.equal(await threaded(14), 42);
});
test('modules importing each other', () => {
  assert.equal(isEven(10), true);
  assert.equal(isOdd(7), true);
  assert.equal(parity(3), 'odd');
});
test('data by value', () => {
  const v = { m: new Map([[1, 'a']]), s: new Set([2]), d: new Date(5), b: Buffer.from('hi'), u: new Uint16Array([1, 65535]), n: 10n, a: [1, undefined, null], o: Object.create(null) };
  assert.deepStrictEqual(same(v), v);
  assert.deepStrictEqual(decorated(), { own: 2 });
  // Frames larger than the socket's buffer, both ways: written in part, then blocking.
  const big = { s: 'x'.repeat(1 << 22), a: Array.from({ length: 1 << 16 }, (_, i) => i) };
  assert.deepStrictEqual(same(big), big);
});
`;

test('ES modules: records, generators, errors, callbacks, async, timers, temp files, processes, threads, module cycles, data', () => {
  const p = new SealedProject({
    'package.json': '{"type":"module"}\n',
    'src/geo.mjs': GEO,
    ...CYCLE,
    'spec/geo.test.mjs': SPEC,
  });
  const r = p.run(['spec/geo.test.mjs']);
  for (const name of [
    'record',
    'generator',
    'built-in error',
    'production error',
    'callback',
    'async and timers',
    'temp files',
    'child process',
    'threads',
    'modules importing each other',
    'data by value',
  ])
    assert.is(statusOf(r, name), 'passed', `${name}\n${r.out}`);
  assert.is(r.code, 0, r.out);
});

test('CommonJS: require of src files, a cycle of three, a record and a production error', () => {
  const p = new SealedProject({
    'src/a.js':
      "const b = require('./b.js');\nclass Money { constructor(c) { this.cents = c; } }\nclass Broke extends Error {}\nexports.Money = Money;\nexports.Broke = Broke;\nexports.sum = (xs) => new Money(b.total(xs));\nexports.pay = (n) => { if (n < 0) throw new Broke('no'); return n; };\nexports.pid = () => process.pid;\n",
    'src/b.js': "const c = require('./c.js');\nexports.total = (xs) => xs.reduce((s, x) => c.add(s, x), 0);\n",
    'src/c.js': "exports.add = (a, b) => a + b;\nexports.viaA = () => require('./a.js').sum([1]).cents;\n",
    'spec/a.test.js':
      "const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst { Money, Broke, sum, pay, pid } = require('../src/a.js');\nconst { viaA } = require('../src/c.js');\ntest('cjs record', () => { assert.deepStrictEqual(sum([1, 2, 3]), new Money(6)); });\ntest('cjs error', () => { assert.throws(() => pay(-1), Broke); assert.equal(pay(2), 2); });\ntest('cjs cycle', () => { assert.equal(viaA(), 1); assert.notEqual(pid(), process.pid); });\n",
  });
  const r = p.run(['spec/a.test.js']);
  for (const name of ['cjs record', 'cjs error', 'cjs cycle'])
    assert.is(statusOf(r, name), 'passed', `${name}\n${r.out}`);
});

const npmMissing = missingUnless('npm', ['--version'], 'npm is not installed');

testUnless(npmMissing)('an npm workspaces project: the package in src, imported by its name, is proxied', () => {
  const p = new SealedProject({
    'package.json': JSON.stringify({ name: 'root', private: true, type: 'module', workspaces: ['src/packages/*'] }),
    'src/packages/calc/package.json': JSON.stringify({
      name: '@demo/calc',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
    }),
    'src/packages/calc/index.js': 'export const triple = (n) => 3 * n;\nexport const where = () => process.pid;\n',
    'spec/calc.test.js':
      "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { triple, where } from '@demo/calc';\ntest('workspace', () => { assert.equal(triple(14), 42); assert.notEqual(where(), process.pid); });\n",
  });
  const install = sh('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: p.dir });
  assert.is(install.code, 0, install.stderr);
  assert.ok(existsSync(path.join(p.dir, 'node_modules/@demo/calc')));
  const r = p.run(['spec/calc.test.js']);
  assert.is(statusOf(r, 'workspace'), 'passed', r.out);
});

const FAST_CHECK = path.join(PROJECT, 'node_modules/fast-check');
const fastCheckMissing = existsSync(FAST_CHECK) ? null : 'fast-check is not installed';

testUnless(fastCheckMissing)(
  'fast-check over a production function: PROP_SEED its global seed (set by the runtime or the spec), a counterexample red',
  () => {
    const p = new SealedProject({
      'package.json': '{"type":"module"}\n',
      'src/num.js': 'export const double = (n) => n * 2;\nexport const clamp = (n) => (n > 1000 ? 1000 : n);\n',
      'spec/num.test.js': `import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clamp, double } from '../src/num.js';
fc.configureGlobal({ seed: Number(process.env.PROP_SEED) });
test('seeded', () => { assert.equal(fc.readConfigureGlobal().seed, ${SEED}); });
test('double', () => { fc.assert(fc.property(fc.integer(), (n) => { assert.equal(double(n), n * 2); })); });
test('clamp', () => { fc.assert(fc.property(fc.integer(), (n) => { assert.ok(clamp(n) <= 100); })); });
`,
    });
    // Neither of these seeds fast-check itself: the sealed runtime does, from PROP_SEED.
    p.write(
      'spec/unseeded.test.js',
      `import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport fc from 'fast-check';\ntest('seeded by the runtime', () => { assert.equal(fc.readConfigureGlobal().seed, ${SEED}); });\n`,
    );
    p.write(
      'spec/unseeded-cjs.test.cjs',
      `const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst fc = require('fast-check');\ntest('seeded by the runtime, CommonJS', () => { assert.equal(fc.readConfigureGlobal().seed, ${SEED}); });\n`,
    );
    mkdirSync(path.join(p.dir, 'node_modules'));
    symlinkSync(FAST_CHECK, path.join(p.dir, 'node_modules/fast-check'), 'dir');
    const unseeded = p.run(['spec/unseeded.test.js', 'spec/unseeded-cjs.test.cjs']);
    assert.is(statusOf(unseeded, 'seeded by the runtime'), 'passed', unseeded.out);
    assert.is(statusOf(unseeded, 'seeded by the runtime, CommonJS'), 'passed', unseeded.out);
    const r = p.run(['spec/num.test.js']);
    assert.is(statusOf(r, 'seeded'), 'passed', r.out);
    assert.is(statusOf(r, 'double'), 'passed', r.out);
    assert.is(statusOf(r, 'clamp'), 'failed', r.out);
    assert.match(r.cases.get('clamp')?.failures[0]?.text ?? '', /Counterexample: \[\d+\]/);
  },
);

test('a worker that cannot start (its confinement refuses): each import and require fails naming why, nothing hangs', () => {
  const p = new SealedProject({
    'package.json': '{"type":"module"}\n',
    'src/m.js': 'export const add = (a, b) => a + b;\n',
    'src/c.cjs': 'exports.add = (a, b) => a + b;\n',
    'spec/m.test.js':
      "import test from 'node:test';\nimport assert from 'node:assert/strict';\ntest('import', async () => { const { add } = await import('../src/m.js'); assert.equal(add(1, 2), 3); });\n",
    'spec/c.test.cjs':
      "const test = require('node:test');\nconst assert = require('node:assert/strict');\ntest('require', () => { assert.equal(require('../src/c.cjs').add(1, 2), 3); });\n",
  });
  const confine = ['sh', '-c', 'echo "confine: Landlock is not available" >&2; exit 125', 'confine'];
  const r = p.run(['spec/m.test.js', 'spec/c.test.cjs'], { confine });
  for (const name of ['import', 'require']) {
    assert.is(statusOf(r, name), 'failed', r.out);
    assert.match(r.cases.get(name)?.failures[0]?.text ?? '', /patchwarden sealed mode: the sealed worker ended/);
  }
  assert.match(r.out, /confine: Landlock is not available/);
});

const MOCHA = path.join(PROJECT, 'node_modules/mocha/bin/mocha.js');
const mochaMissing = existsSync(MOCHA) ? null : 'mocha is not installed';

testUnless(mochaMissing)(
  'mocha: an ES module spec it would require() is imported instead, and its src import is proxied',
  () => {
    const p = new SealedProject({
      'package.json': '{"type":"module"}\n',
      'src/m.js': 'export const add = (a, b) => a + b;\nexport const where = () => process.pid;\n',
      'spec/m.test.js':
        "import assert from 'node:assert/strict';\nimport { add, where } from '../src/m.js';\nit('adds in the worker', () => { assert.equal(add(1, 2), 3); assert.notEqual(where(), process.pid); });\n",
    });
    const r = p.node([MOCHA, 'spec/m.test.js']);
    assert.is(r.code, 0, r.out);
    assert.match(r.out, /1 passing/);
  },
);

test('failing properties, sync and async: the same signatures sealed and unsealed, with the production frames', () => {
  const p = new SealedProject({
    'package.json': '{"type":"module"}\n',
    'src/bill.js':
      "export class InventoryError extends Error {}\nfunction line(q) { if (q < 0) throw new InventoryError('negative quantity ' + q); return q; }\nexport const total = (qs) => qs.reduce((s, q) => s + line(q), 0);\nexport async function later(qs) { await new Promise((r) => setTimeout(r, 5)); return total(qs); }\n",
    'spec/bill.test.js':
      "import test from 'node:test';\nimport { later, total } from '../src/bill.js';\ntest('total', () => { total([1, -2]); });\ntest('later', async () => { await later([1, -3]); });\n",
  });
  const signatures = (sealed: boolean) => {
    const r = p.run(['spec/bill.test.js'], { sealed });
    assert.is(statusOf(r, 'total'), 'failed', r.out);
    assert.is(statusOf(r, 'later'), 'failed', r.out);
    const report = path.join(p.private, `sig-${sealed}.xml`);
    writeFileSync(report, r.xml);
    const s = sh(process.execPath, [
      path.join(PROJECT, 'dist/main.js'),
      'signatures',
      report,
      '--format',
      'json',
      '-C',
      p.dir,
    ]);
    assert.is(s.code, 0, s.stderr);
    return JSON.parse(s.stdout).failures.map((f: Record<string, unknown>) => ({
      sig: f.sig,
      frames: f.frames,
      exc: f.exc,
    }));
  };
  const unsealed = signatures(false);
  assert.is(unsealed.length, 2);
  assert.equal(signatures(true), unsealed);
  assert.ok(unsealed[0].frames.includes('line') && unsealed[0].frames.includes('total'), String(unsealed[0].frames));
});

test.run();
