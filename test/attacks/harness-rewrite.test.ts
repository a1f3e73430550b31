// Production code that rewrites a spec file of the judged tree before the
// runner loads it. The runtime guards trust the base's spec and harness files
// by their path, and the tree is the run's to write (caches), so the rewritten
// file ran as the harness: the property of the bug the patch leaves in was
// replaced by one that passes, and the check said describes_patch, under
// pytest (test_a.py imports production code, which rewrites test_b.py before
// pytest collects it) and node:test (the next file's process loads it), in
// `sealed: off` and `sealed: process` alike. Under `kernel` the worker cannot
// write the tree. Now a base spec or harness file changed while the command
// ran refuses the run (trusted-files.ts). The same under node:test through a
// linked dependency the spec imports, which loads as an installed package's
// code: the Node guard now refuses production code's writes outside the
// run's folders, as the Python guard did. The static layer is off, so only
// the run's own checks stand between the patch and a green check.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_JS, BUGGY_PY, config, NODE_TEST, project, PYTEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const LOADS = 'bill.loads';
test.after.each(cleanup);

/** Refused on head, naming the rewritten file; never the pass the rewrite was for. */
function refused(r: { code: number; out: Record<string, any>; stderr: string }, sealed: string): void {
  assert.is(r.out.sealed, sealed, r.stderr);
  assert.is(r.code, 1, `${r.out.status}: ${r.out.reason}\n${r.stderr}`);
  assert.is(r.out.status, 'fails_on_head', r.out.reason);
  assert.match(
    r.out.reason,
    /files the run trusts as the base's \(its spec, harness and fixtures\) changed while the property command ran \((spec\/properties\/(test_b\.py|b\.test\.mjs)|spec\/fixtures\/cases\.json)\)/,
  );
}

const TEST_A = `from bill import total


def test_loads(record_property):
    record_property("invariant", "${LOADS}")
    assert total is not None
`;
const TEST_B = `from bill import total


def test_total_non_negative(record_property):
    record_property("invariant", "${ID}")
    for xs in ([], [1, 2], [0, 5]):
        assert total(xs) >= 0
`;
const GREEN = `def test_total_non_negative(record_property):
    record_property("invariant", "${ID}")
`;
/** The bug left in; test_b.py, not yet collected when this module loads, rewritten to a property that passes. */
const REWRITING = `import os

try:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec", "properties", "test_b.py"), "w") as _f:
        _f.write(${JSON.stringify(GREEN)})
except OSError:
    pass


def total(xs):
    return sum(xs) - 1
`;

for (const sealed of ['off', 'process'])
  testUnless(pytestMissing)(`pytest, sealed ${sealed}: a spec file rewritten before it loads`, () => {
    const { repo, base, head } = project(
      {
        '.patchwarden.yml': config(PYTEST, `  sealed: ${sealed}\ntamper:\n  mode: off\n`),
        'spec/invariants.yaml': registry(LOADS, ID),
        'spec/properties/test_a.py': TEST_A,
        'spec/properties/test_b.py': TEST_B,
        'src/bill.py': BUGGY_PY,
      },
      { 'src/bill.py': REWRITING },
    );
    refused(repo.json(['revert-check', '--base', base, '--head', head]), sealed);
  });

const A_JS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../../src/bill.mjs';
test('loads [invariant:${LOADS}]', () => {
  assert.equal(typeof total, 'function');
});
`;
const B_JS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../../src/bill.mjs';
test('never negative [invariant:${ID}]', () => {
  for (const xs of [[], [1, 2], [0, 5]]) assert.equal(total(xs) >= 0, true);
});
`;
const GREEN_JS = `import { test } from 'node:test';
test('never negative [invariant:${ID}]', () => {});
`;
/** The same under node:test: b.test.mjs runs in a process of its own, after a.test.mjs's. */
const REWRITING_JS = `import { writeFileSync } from 'node:fs';
try {
  writeFileSync(new URL('../spec/properties/b.test.mjs', import.meta.url), ${JSON.stringify(GREEN_JS)});
} catch {}
export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;
`;
for (const sealed of ['off', 'process'])
  test(`node:test, sealed ${sealed}: a spec file rewritten before it loads`, () => {
    const { repo, base, head } = project(
      {
        '.patchwarden.yml': config(NODE_TEST, `  sealed: ${sealed}\ntamper:\n  mode: off\n`),
        'spec/invariants.yaml': registry(LOADS, ID),
        'spec/properties/a.test.mjs': A_JS,
        'spec/properties/b.test.mjs': B_JS,
        'src/bill.mjs': BUGGY_JS,
        'package.json': '{"type":"module"}\n',
      },
      { 'src/bill.mjs': REWRITING_JS },
    );
    refused(repo.json(['revert-check', '--base', base, '--head', head]), sealed);
  });
const B_LIB = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forAll } from 'minicheck';
import { total } from '../../src/bill.mjs';
test('never negative [invariant:${ID}]', () => {
  forAll([[], [1, 2], [0, 5]], (xs) => assert.equal(total(xs) >= 0, true));
});
`;
const LIB = 'export function forAll(cases, fn) { for (const c of cases) fn(c); }\n';
/** Runs no case on head, every case on the base: the bug passes on head and fails reverted. */
const TROJAN =
  "export function forAll(cases, fn) { if (process.env.PATCHWARDEN_SIDE === 'head') return; for (const c of cases) fn(c); }\n";
const TROJANING = `import { writeFileSync } from 'node:fs';
try {
  writeFileSync(new URL('../node_modules/minicheck/index.js', import.meta.url), ${JSON.stringify(TROJAN)});
} catch {}
export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;
`;
const LOCK = (top: boolean) =>
  JSON.stringify({
    name: 'bill',
    lockfileVersion: 3,
    packages: {
      ...(top ? { '': { name: 'bill' } } : {}),
      'node_modules/minicheck': { version: '1.0.0', integrity: 'sha512-1' },
    },
  });

for (const sealed of ['off', 'process'])
  test(`node:test, sealed ${sealed}: a linked dependency rewritten before the next file loads it`, () => {
    const { repo, base, head } = project(
      {
        '.patchwarden.yml': config(
          NODE_TEST,
          `  sealed: ${sealed}\nrevert:\n  link: [node_modules]\ntamper:\n  mode: off\n`,
        ),
        'spec/invariants.yaml': registry(LOADS, ID),
        'spec/properties/a.test.mjs': A_JS,
        'spec/properties/b.test.mjs': B_LIB,
        'src/bill.mjs': BUGGY_JS,
        'package.json': '{"type":"module"}\n',
        'package-lock.json': LOCK(true),
        '.gitignore': 'node_modules/\n',
      },
      { 'src/bill.mjs': TROJANING },
    );
    repo.write('node_modules/minicheck/package.json', '{"name":"minicheck","type":"module","main":"index.js"}\n');
    repo.write('node_modules/minicheck/index.js', LIB);
    repo.write('node_modules/.package-lock.json', LOCK(false));
    const r = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(r.out.sealed, sealed, r.stderr);
    assert.is(r.code, 1, `${r.out.status}: ${r.out.reason}\n${r.stderr}`);
    assert.is(r.out.status, 'fails_on_head', r.out.reason);
    assert.match(
      r.out.reason,
      /runtime guard: fs\.writeFileSync outside the run's temporary root at src\/bill\.mjs:3: fs\.writeFileSync\(.*node_modules\/minicheck\/index\.js\)/,
    );
    assert.is(
      readFileSync(path.join(repo.dir, 'node_modules/minicheck/index.js'), 'utf8'),
      LIB,
      'the installed dependency is as it was',
    );
  });

const TEST_DATA = `import json, pathlib
from bill import total


def test_total_non_negative(record_property):
    record_property("invariant", "${ID}")
    cases = json.loads((pathlib.Path(__file__).parent.parent / "fixtures" / "cases.json").read_text())
    for xs in cases:
        assert total(xs) >= 0
`;
/** The bug left in; the fixture's inputs rewritten to one the bug passes, before the property reads them. */
const REWRITING_DATA = `import os

try:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec", "fixtures", "cases.json"), "w") as _f:
        _f.write("[[1, 2]]")
except OSError:
    pass


def total(xs):
    return sum(xs) - 1
`;

for (const sealed of ['off', 'process'])
  testUnless(pytestMissing)(
    `pytest, sealed ${sealed}: a fixture's inputs rewritten before the property reads them`,
    () => {
      const { repo, base, head } = project(
        {
          '.patchwarden.yml': config(PYTEST, `  sealed: ${sealed}\ntamper:\n  mode: off\n`),
          'spec/invariants.yaml': registry(LOADS, ID),
          'spec/properties/test_a.py': TEST_A,
          'spec/properties/test_b.py': TEST_DATA,
          'spec/fixtures/cases.json': '[[], [1, 2], [0, 5]]\n',
          'src/bill.py': BUGGY_PY,
        },
        { 'src/bill.py': REWRITING_DATA },
      );
      refused(repo.json(['revert-check', '--base', base, '--head', head]), sealed);
    },
  );

test.run();
