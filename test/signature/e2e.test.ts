// End to end with real runners: the built CLI on reports written by real
// pytest and node's test runner, before and after cosmetic and real changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

/** Runs the command in the repo and signs the report it wrote; returns the failures. */
function failures(repo: TempRepo, run: (junit: string) => string[]): Record<string, any>[] {
  const junit = path.join(repo.dir, `report-${Math.random().toString(36).slice(2)}.xml`);
  const [cmd, ...args] = run(junit);
  spawnSync(cmd, args, {
    cwd: repo.dir,
    env: { ...repo.env, PYTHONPATH: path.join(repo.dir, 'src'), PYTHONDONTWRITEBYTECODE: '1' },
  });
  const r = repo.json(['signatures', junit]);
  assert.is(r.code, 0, r.stderr);
  rmSync(junit);
  return r.out.failures;
}

const PY_SRC = `def tax(x):
    if x < 0:
        raise ValueError(f"negative amount {x}")
    return x * 0.2


def total(x):
    return x + tax(x)
`;

const pytest = (tb: string) => (junit: string) => [
  'python3',
  '-m',
  'pytest',
  '-q',
  '-p',
  'no:cacheprovider',
  `--tb=${tb}`,
  'tests',
  `--junitxml=${junit}`,
];

for (const tb of ['long', 'short', 'native']) {
  testUnless(pytestMissing)(
    `pytest --tb=${tb}: renamed, moved and shifted keep the signature; another exception moves it`,
    () => {
      const repo = tempRepo();
      repo.write('src/billing/__init__.py', PY_SRC);
      repo.write(
        'tests/test_bill.py',
        'from billing import total\n\n\ndef test_negative():\n    total(-1)\n\n\ndef test_total():\n    assert total(10) == 13, "tax included"\n',
      );
      const [neg, eq] = failures(repo, pytest(tb));
      assert.equal(neg.frames, ['tax', 'total']);
      assert.is(neg.exc, 'ValueError');
      assert.is(neg.eligible, true);
      assert.is(eq.kind, 'equal');
      assert.is(eq.eligible, true);

      // Renamed, moved to another file, lines inserted above, message reworded.
      rmSync(path.join(repo.dir, 'tests/test_bill.py'));
      mkdirSync(path.join(repo.dir, 'tests/unit'), { recursive: true });
      repo.write(
        'tests/unit/test_moved.py',
        'import os\nfrom billing import total\n\n# a comment\n# another\n\n\ndef test_amount_below_zero_is_refused():\n    x = 1\n    total(-1)\n\n\ndef test_sum_with_vat():\n    assert total(10) == 13, "VAT must be added"\n',
      );
      repo.write('src/billing/__init__.py', '"""Billing."""\nimport math\n\n\n' + PY_SRC);
      const [neg2, eq2] = failures(repo, pytest(tb));
      assert.is(neg2.name, 'test_amount_below_zero_is_refused');
      assert.is(neg2.sig, neg.sig);
      assert.is(eq2.sig, eq.sig);

      // The production function raising another exception: a different signature.
      repo.write('src/billing/__init__.py', PY_SRC.replace('raise ValueError', 'raise ArithmeticError'));
      const [neg3] = failures(repo, pytest(tb));
      assert.is(neg3.exc, 'ArithmeticError');
      assert.is.not(neg3.sig, neg.sig);

      // Another project function on the path: a different signature.
      repo.write(
        'src/billing/__init__.py',
        PY_SRC.replace('return x + tax(x)', 'return x + levy(x)').replace('def tax(x)', 'def levy(x)'),
      );
      const [neg4] = failures(repo, pytest(tb));
      assert.equal(neg4.frames, ['levy', 'total']);
      assert.is.not(neg4.sig, neg.sig);
    },
  );
}

const JS_SRC = `export function tax(x) {
  if (x < 0) throw new RangeError('negative amount ' + x);
  return x * 0.2;
}

export function total(x) {
  return x + tax(x);
}
`;

const nodeTest = (junit: string) => [
  process.execPath,
  '--test',
  '--test-reporter=junit',
  `--test-reporter-destination=${junit}`,
  'test/',
];

test('node --test: renamed, moved and shifted keep the signature; another exception moves it', () => {
  const repo = tempRepo();
  repo.write('package.json', '{"type":"module"}\n');
  repo.write('src/bill.js', JS_SRC);
  repo.write(
    'test/bill.test.js',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { total } from '../src/bill.js';\n\ntest('negative', () => { total(-1); });\ntest('adds tax', () => { assert.strictEqual(total(10), 13, 'tax included'); });\n",
  );
  const [neg, eq] = failures(repo, nodeTest);
  assert.equal(neg.frames, ['tax', 'total']);
  assert.is(neg.exc, 'RangeError');
  assert.is(eq.kind, 'equal');
  assert.is(eq.exc, 'AssertionError');
  assert.ok(eq.eligible);

  rmSync(path.join(repo.dir, 'test/bill.test.js'));
  repo.write(
    'test/unit/moved.test.js',
    "import { test } from 'node:test';\nimport assert from 'node:assert';\n// lines\n// above\nimport { total } from '../../src/bill.js';\n\ntest('refuses an amount below zero', () => {\n  const x = 1;\n  total(-1);\n});\ntest('sum includes VAT', () => { assert.strictEqual(total(10), 13, 'VAT must be added'); });\n",
  );
  repo.write('src/bill.js', '// Billing.\n\n\n' + JS_SRC);
  const [neg2, eq2] = failures(repo, nodeTest);
  assert.is(neg2.name, 'refuses an amount below zero');
  assert.is(neg2.sig, neg.sig);
  assert.is(eq2.sig, eq.sig);

  repo.write('src/bill.js', JS_SRC.replace('new RangeError', 'new TypeError'));
  const [neg3] = failures(repo, nodeTest);
  assert.is(neg3.exc, 'TypeError');
  assert.is.not(neg3.sig, neg.sig);
});

test('signatures: JSON fields, text table, config from the working tree', () => {
  const repo = tempRepo();
  const report =
    '<testsuite name="s"><testcase name="t" classname="c"><failure message="boom">Error: boom\n    at rate (/ci/w/lib/rate.js:1:1)\n    at tax (/ci/w/src/bill.js:1:1)</failure></testcase><testcase name="ok"/></testsuite>';
  repo.write('r.xml', report);
  let r = repo.json(['signatures', 'r.xml']);
  assert.is(r.code, 0);
  assert.is(r.out.ok, true);
  assert.is(r.out.failures.length, 1);
  const f = r.out.failures[0];
  assert.equal(Object.keys(f).sort(), ['eligible', 'exc', 'file', 'frames', 'kind', 'message', 'name', 'sig', 'v1']);
  assert.equal(f.frames, ['tax']);
  assert.is(f.file, 'r.xml');
  assert.match(f.sig, /^[0-9a-f]{16}$/);
  repo.write('.patchwarden.yml', 'version: 1\nsignature:\n  project: [lib/**]\n  length: 20\n');
  r = repo.json(['signatures', 'r.xml']);
  assert.equal(r.out.failures[0].frames, ['rate']);
  assert.is(r.out.failures[0].sig.length, 20);
  const text = repo.pw(['signatures', 'r.xml']);
  assert.is(text.code, 0);
  assert.match(text.stdout, /^signature\s+exception\s+kind\s+frames/);
  assert.match(text.stdout, /Error\s+unknown\s+rate\s+t {2}\[r\.xml\]/);
});

test('signatures: outside a repository the defaults apply; a report that cannot be read is exit 2', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-sig-'));
  try {
    writeFileSync(
      path.join(dir, 'r.xml'),
      '<testsuite><testcase name="t"><failure>Error: x\n    at f (/w/src/a.js:1:1)</failure></testcase></testsuite>',
    );
    writeFileSync(path.join(dir, 'bad.xml'), '<!DOCTYPE x [<!ENTITY a "b">]><testsuite/>');
    const run = (args: string[]) =>
      spawnSync(
        process.execPath,
        [path.resolve('.', process.env.PATCHWARDEN_BUILD_DIR ?? 'dist', 'main.js'), ...args],
        { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(dir) } },
      );
    let r = run(['signatures', 'r.xml', '--format', 'json']);
    assert.is(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).failures[0].frames, ['f']);
    r = run(['signatures', 'r.xml', 'bad.xml', '--format', 'json']);
    assert.is(r.status, 2);
    assert.match(
      JSON.parse(r.stdout).error,
      /bad\.xml:1: not well-formed XML at line 1, column \d+: the DOCTYPE declares entities/,
    );
    r = run(['signatures', 'missing.xml']);
    assert.is(r.status, 2);
    assert.match(r.stderr, /missing\.xml: no such report/);
    assert.not.match(r.stderr, /\n\s+at /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('signatures in a bare repository: signed without a checkout, not refused', () => {
  const repo = tempRepo({ bare: true });
  repo.write(
    'r.xml',
    '<testsuite><testcase name="t"><failure>Error: x\n    at f (/w/src/a.js:1:1)</failure></testcase></testsuite>',
  );
  const r = repo.json(['signatures', 'r.xml']);
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.out.failures[0].frames, ['f']);
});

test.after(cleanup);
test.run();
