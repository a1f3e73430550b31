// Production code in the sealed worker reaching back into the property
// process through what the test handed it: a callback or an object of the
// test is a handle in the worker, and each use of it is a request the
// property side serves. Each patch asks the property side for its realm's
// Function (by `constructor`, `__proto__`, `call`, `apply`, a method's
// `constructor`) to compile code there that writes a file with the property
// process's pid and makes `Object.is` lie, so a red property turns green.
// Unsealed the patch works (the control); sealed the request is refused with
// a TypeError naming the sealed mode, which fails the property even when
// production code catches it, and nothing ran in the property process. Real
// node --test, without and with a kernel-style confinement of the worker.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { missingUnless } from '../helpers/skip.js';
import { cleanupSealed, SealedProject, statusOf } from '../properties/sealed-node-site.js';

test.after.each(cleanupSealed);

const BUG = 'const sum = (xs) => xs.reduce((a, b) => a + b, 0) - 1;';
/** Run in the property process, it leaves `escaped` with its pid and makes every Object.is true. */
const PAYLOAD = JSON.stringify(
  "process.getBuiltinModule('node:fs').writeFileSync('escaped', String(process.pid)); Object.is = () => true;",
);

const SPEC = `import test from 'node:test';
import assert from 'node:assert';
import { total } from '../src/bill.mjs';
class Source { constructor(xs) { this.xs = xs; } items() { return this.xs; } }
test('total', async () => {
  const double = (x) => x * 2;
  const got = await total(new Source([1, 2]), double);
  assert.ok(Object.is(got, 6));
});
`;

/** Production code that tries `reach(src, f)` (caught), then returns a wrong total. */
function attack(reach: string): string {
  return `${BUG}\nexport const total = (src, f) => {\n  try { (${reach})(${PAYLOAD})(); } catch {}\n  return sum(src.items().map(f));\n};\n`;
}

const SPELLINGS: Record<string, string> = {
  "a callback's constructor": '(f.constructor)',
  "a callback's __proto__.constructor": '(f.__proto__.constructor)',
  "Function.prototype.call's constructor": '(f.call.constructor)',
  "Function.prototype.apply's constructor": '(f.apply.constructor)',
  "an object's __proto__.constructor.constructor": '(src.__proto__.constructor.constructor)',
  "an object's constructor.constructor": '(src.constructor.constructor)',
  "a method's constructor": '(src.items.constructor)',
  'the Function constructor by Reflect.get': "(Reflect.get(f, 'constructor'))",
  "a callback's constructor from an async function (the refusal rejects what the property awaits)": '(f.constructor)',
};

const unshareMissing = missingUnless(
  'unshare',
  ['-r', '-m', 'sh', '-c', 'mount --bind -o ro /tmp /tmp'],
  'unshare cannot make a user and mount namespace here',
);

for (const [name, reach] of Object.entries(SPELLINGS)) {
  test(`${name}: refused in the property process, the property stays red`, () => {
    const asyncTotal = name.includes('async');
    const src = asyncTotal
      ? attack(reach).replace('export const total = (', 'export const total = async (')
      : attack(reach);
    const p = new SealedProject({
      'package.json': '{"type":"module"}\n',
      'src/bill.mjs': src,
      'spec/bill.test.mjs': SPEC,
    });
    const escaped = path.join(p.dir, 'escaped');
    const plain = p.run(['spec/bill.test.mjs'], { sealed: false });
    assert.is(statusOf(plain, 'total'), 'passed', `the attack should work unsealed:\n${plain.out}`);
    assert.ok(existsSync(escaped), 'unsealed, the payload ran');
    const confines: string[][] = [[]];
    if (unshareMissing === null)
      confines.push(['unshare', '-r', '-m', 'sh', '-c', 'mount --bind -o ro "$0" "$0" && exec "$@"', p.private]);
    for (const confine of confines) {
      rmSync(escaped, { force: true });
      const r = p.run(['spec/bill.test.mjs'], { confine });
      assert.is(statusOf(r, 'total'), 'failed', r.out);
      assert.match(
        r.cases.get('total')?.failures[0]?.text ?? '',
        /TypeError[^\n]*patchwarden sealed mode: \w+ .*on a value of the property process \(only what the test passed is served\) is not available/,
        r.xml,
      );
      assert.not.ok(existsSync(escaped), `the payload ran in the property process:\n${r.out}`);
    }
  });
}

test.run();
