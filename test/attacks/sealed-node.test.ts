// Src-only patches that turn a red node:test property green in the same
// process, tried on a sealed run: production code runs in the sealed
// worker, so what it redefines there (Object.is, Array.prototype.push,
// node:assert's helpers, node:test's async scope), the conversions it lies
// through (valueOf, Symbol.toPrimitive), the process it ends and the
// variables it reads to tell a property run are the worker's, and the
// property stays red. Each patch is first run unsealed, where it does turn
// the property green (the attack is real). The forged report needs a worker
// that cannot write the report: a kernel confinement (here a read-only bind
// mount of the run's private folder in a user namespace) holds it, the
// runtime alone does not. Real node --test.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { missingUnless, testUnless } from '../helpers/skip.js';
import { cleanupSealed, type NodeRun, SealedProject, statusOf } from '../properties/sealed-node-site.js';

test.after.each(cleanupSealed);

const BUG = 'const sum = (xs) => xs.reduce((a, b) => a + b, 0) - 1;';

function project(src: string, body: string): SealedProject {
  return new SealedProject({
    'package.json': '{"type":"module"}\n',
    'src/bill.mjs': src,
    'spec/bill.test.mjs': `import test from 'node:test';\nimport assert from 'node:assert';\nimport { total } from '../src/bill.mjs';\ntest('total', async () => {\n${body}\n});\n`,
  });
}

/** The patch turns the property green unsealed, and leaves it red sealed. */
function heldBySealing(src: string, body: string): NodeRun {
  const p = project(src, body);
  const plain = p.run(['spec/bill.test.mjs'], { sealed: false });
  assert.is(statusOf(plain, 'total'), 'passed', `the attack should work unsealed:\n${plain.out}`);
  const sealed = p.run(['spec/bill.test.mjs']);
  assert.is(statusOf(sealed, 'total'), 'failed', sealed.out);
  assert.is.not(sealed.code, 0);
  return sealed;
}

test('Object.is redefined by production code: the property compares with its own', () => {
  heldBySealing(
    `Object.is = () => true;\n${BUG}\nexport const total = sum;\n`,
    '  assert.ok(Object.is(total([]), 0));',
  );
});

test('Array.prototype.push redefined to fix what the property collects', () => {
  heldBySealing(
    `const push = Array.prototype.push;\nArray.prototype.push = function (...a) { return push.apply(this, a.map((x) => (x === 2 || x === -1 ? x + 1 : x))); };\n${BUG}\nexport const total = sum;\n`,
    '  const got = [];\n  for (const xs of [[1, 2], []]) got.push(total(xs));\n  assert.deepStrictEqual(got, [3, 0]);',
  );
});

test("node:assert's helpers replaced by production code", () => {
  heldBySealing(
    `import assert from 'node:assert';\nassert.strictEqual = () => {};\nassert.ok = () => {};\n${BUG}\nexport const total = sum;\n`,
    '  assert.strictEqual(total([1, 2]), 3);\n  assert.ok(total([]) === 0);',
  );
});

test('a value whose valueOf lies, compared loosely: refused as a conversion of a production object', () => {
  const r = heldBySealing(
    `${BUG}\nexport const total = (xs) => ({ t: sum(xs), valueOf() { return this.t + 1; } });\n`,
    '  assert.equal(total([1, 2]), 3);',
  );
  assert.match(
    r.cases.get('total')?.failures[0]?.text ?? '',
    /sealed mode: valueOf of a production object is not available/,
  );
});

test('a record whose Symbol.toPrimitive lies: the stand-in has no conversion of production code', () => {
  heldBySealing(
    `${BUG}\nclass Total { constructor(t) { this.t = t; } [Symbol.toPrimitive]() { return this.t + 1; } }\nexport const total = (xs) => new Total(sum(xs));\n`,
    '  assert.equal(total([1, 2]), 3);',
  );
});

test("node:test's async scope patched to swallow the failure", () => {
  heldBySealing(
    `import { AsyncResource } from 'node:async_hooks';\nconst run = AsyncResource.prototype.runInAsyncScope;\nAsyncResource.prototype.runInAsyncScope = function (fn, self, ...args) {\n  try { const r = run.call(this, fn, self, ...args); return r && typeof r.then === 'function' ? r.catch(() => {}) : r; } catch { return undefined; }\n};\n${BUG}\nexport const total = sum;\n`,
    '  assert.strictEqual(total([1, 2]), 3);',
  );
});

test('production code that tells a property run by PROP_SEED, patchwarden variables or NODE_TEST_CONTEXT', () => {
  heldBySealing(
    `const underTest = Object.keys(process.env).some((k) => /^(PROP_SEED|PATCHWARDEN|NODE_TEST)/.test(k)) || process.execArgv.length > 0;\n${BUG}\nexport const total = (xs) => (underTest ? sum(xs) + 1 : sum(xs));\n`,
    '  assert.strictEqual(total([1, 2]), 3);',
  );
});

test('process.exit(0) inside a call: the worker ends, the call throws, the property stays red', () => {
  const p = project(
    `${BUG}\nexport const total = (xs) => { const t = sum(xs); if (t !== 3) process.exit(0); return t; };\n`,
    '  assert.strictEqual(total([1, 1]), 2);',
  );
  const r = p.run(['spec/bill.test.mjs']);
  assert.is(statusOf(r, 'total'), 'failed', r.out);
  assert.match(r.cases.get('total')?.failures[0]?.text ?? '', /sealed mode: the sealed worker ended/);
});

// Finds the JUnit report among its ancestors' command lines and, once the runner
// has written it and the test has read it (forger.go), rewrites it without
// failures from a detached process.
const FORGER = `import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
function report() {
  for (let pid = process.ppid; pid > 1; ) {
    const argv = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0');
    const d = argv.find((a) => a.startsWith('--test-reporter-destination=') && a.endsWith('.xml'));
    if (d) return d.slice('--test-reporter-destination='.length);
    pid = Number(readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1]);
  }
}
const forge = \`const fs = require('node:fs'); const f = process.argv[1]; const done = () => fs.writeFileSync('forger.done', '');
let n = 0; const t = setInterval(() => { let x = ''; try { x = fs.readFileSync(f, 'utf8'); } catch {}
  if (x.includes('</testsuites>') && fs.existsSync('forger.go')) { clearInterval(t); try { fs.writeFileSync(f, x.replace(/<failure[\\\\s\\\\S]*?<\\\\/failure>/g, '')); } finally { done(); } }
  else if (++n > 600) { clearInterval(t); done(); } }, 100);\`;
${BUG}
export const total = (xs) => {
  const f = report();
  if (f) spawn(process.execPath, ['-e', forge, f], { detached: true, stdio: 'ignore' }).unref();
  return sum(xs);
};
`;

/** Waits for the forger to finish (it leaves forger.done in the project), then reads the report. */
async function afterForger(p: SealedProject, run: NodeRun): Promise<string> {
  const done = path.join(p.dir, 'forger.done');
  for (let i = 0; i < 400 && !existsSync(done); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(done), `the forger never finished:\n${run.out}`);
  return readFileSync(run.report, 'utf8');
}

const unshareMissing = missingUnless(
  'unshare',
  ['-r', '-m', 'sh', '-c', 'mount --bind -o ro /tmp /tmp'],
  'unshare cannot make a user and mount namespace here (a read-only bind mount stands in for the kernel confinement)',
);

testUnless(unshareMissing)(
  'a report forged from the worker after the run: written unsealed and sealed without confinement, refused by a kernel confinement',
  async () => {
    const p = project(FORGER, '  assert.strictEqual(total([1, 2]), 3);');
    const forged = async (run: NodeRun) => {
      assert.is(statusOf(run, 'total'), 'failed', run.out);
      // Read first: the forger waits for this, so the honest report is what the run left.
      writeFileSync(path.join(p.dir, 'forger.go'), '');
      const text = await afterForger(p, run);
      rmSync(path.join(p.dir, 'forger.done'));
      rmSync(path.join(p.dir, 'forger.go'));
      return !text.includes('<failure');
    };
    assert.ok(
      await forged(p.run(['spec/bill.test.mjs'], { sealed: false })),
      'unsealed, the forger rewrites the report',
    );
    assert.ok(await forged(p.run(['spec/bill.test.mjs'])), 'sealed without confinement, the forger still can');
    const confine = ['unshare', '-r', '-m', 'sh', '-c', 'mount --bind -o ro "$0" "$0" && exec "$@"', p.private];
    assert.not.ok(await forged(p.run(['spec/bill.test.mjs'], { confine })), 'confined, the report stays red');
  },
);

test.run();
