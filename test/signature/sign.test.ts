import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { parseReport } from '../../src/junit/parse.js';
import { readReport } from '../../src/junit/read.js';
import { defaults } from '../../src/config/schema.js';
import { signCase, signOptions, signRecord, SIGNATURE_VERSION } from '../../src/signature/sign.js';
import { extractFrames } from '../../src/signature/frames.js';
import { normalizeMessage } from '../../src/signature/normalize.js';
import type { FailureRecord } from '../../src/junit/types.js';
import { createHash } from 'node:crypto';
import { corpus, CORPUS_MISSING, isCorrupt } from '../junit/corpus.js';
import { skip } from '../helpers/skip.js';

const opts = signOptions(defaults());
const rec = (text: string, message = '', type = ''): FailureRecord => ({ tag: 'failure', type, message, text });
const sign = (r: FailureRecord, classname = '') => signRecord(r, 'name', opts, classname);

test('every failing or erroring corpus case yields a signature or a stated ineligibility', async () => {
  const entries = corpus();
  if (!entries) return skip(CORPUS_MISSING);
  let total = 0;
  for (const e of entries.filter((x) => !isCorrupt(x))) {
    const report = await readReport(e.file);
    for (const tc of report.cases) {
      const s = signCase(tc, opts);
      if (tc.status === 'passed' || tc.status === 'skipped') {
        // Only a case Surefire reran (flaky records) is signed, and marked so.
        if (tc.failures.length) assert.is(s!.flaky, true, `${e.file}: ${tc.name}`);
        else assert.is(s, null);
        continue;
      }
      total++;
      assert.ok(s, `${e.file}: ${tc.name}`);
      assert.match(s!.sig, /^[0-9a-f]{16}$/);
      assert.type(s!.eligible, 'boolean');
      assert.is(s!.eligible, !s!.sig.startsWith('0'), `${e.file}`);
    }
  }
  assert.ok(total > 200, `only ${total} failing cases`);
});

// Cosmetic transformations of a report's text: none may move a signature.
const cosmetic: Record<string, (xml: string) => string> = {
  'testcase and class renamed': (x) =>
    x
      .replace(/(<testcase\b[^>]*?\bname=")([^"]*)"/g, '$1$2_renamed"')
      .replace(/(<testcase\b[^>]*?\bclassname=")([^"]*)"/g, '$1$2Renamed"'),
  'test file moved': (x) => x.replace(/(?<![\w.])(tests?|spec)\//g, '$1/moved/'),
  'line numbers shifted': (x) =>
    x.replace(
      /(\.(?:py|js|ts|mjs|java|kt|go|rs|php|cs|rb)(?::|", line |\(|:line ))(\d+)/g,
      (_, a, n) => `${a}${Number(n) + 17}`,
    ),
  'temp folders': (x) =>
    x
      .replace(/\/tmp\/[\w.-]+/g, '/tmp/pytest-of-ci/pytest-812/run9')
      .replace(/\/private\/var\/folders\/[\w/]+?\/T\//g, '/private/var/folders/zz/q1/T/'),
  timestamps: (x) =>
    x.replace(/\b20\d\d-\d\d-\d\d([T ]\d\d:\d\d:\d\d)?/g, (_, t) => `2031-07-19${t ? 'T03:14:15' : ''}`),
  addresses: (x) => x.replace(/\b0x[0-9a-fA-F]+\b/g, '0xdeadbeef01'),
  counts: (x) => x.replace(/(message="[^"]*?)\b(\d+)\b/g, (_, a, n) => `${a}${Number(n) + 3}`),
};

test('cosmetic changes keep every corpus signature', async () => {
  const entries = corpus();
  if (!entries) return skip(CORPUS_MISSING);
  for (const e of entries.filter((x) => !isCorrupt(x))) {
    const xml = readFileSync(e.file, 'utf8');
    const before = parseReport(xml, e.file).cases.map((c) => signCase(c, opts)?.sig ?? null);
    for (const [what, change] of Object.entries(cosmetic)) {
      const after = parseReport(change(xml), e.file).cases.map((c) => signCase(c, opts)?.sig ?? null);
      assert.equal(after, before, `${what}: ${e.file}`);
    }
  }
});

test('real changes move corpus signatures: another exception type, another project function', async () => {
  const entries = corpus();
  if (!entries) return skip(CORPUS_MISSING);
  let moved = 0;
  for (const e of entries.filter((x) => !isCorrupt(x))) {
    const report = await readReport(e.file);
    for (const tc of report.cases) {
      const s = signCase(tc, opts);
      if (!s) continue;
      const r = tc.failures[0];
      if (s.exc && s.exc.length > 3) {
        const swap = (t: string) => t.split(s.exc).join(`${s.exc}Other`);
        const other = signRecord(
          { ...r, type: swap(r.type), message: swap(r.message), text: swap(r.text) },
          tc.name,
          opts,
          tc.classname,
        );
        assert.is.not(other.sig, s.sig, `exception: ${e.file} ${tc.name}`);
        moved++;
      }
      if (s.frames.length) {
        const fn = s.frames[0].split(/[.:>#]/).pop()!;
        const re = new RegExp(`\\b${fn.replace(/[$]/g, '\\$')}\\b`, 'g');
        const other = signRecord({ ...r, text: r.text.replace(re, `${fn}Other`) }, tc.name, opts, tc.classname);
        assert.is.not(other.sig, s.sig, `function: ${e.file} ${tc.name}`);
        moved++;
      }
    }
  }
  assert.ok(moved > 100);
});

test('the hash: v2 over exception, kind, frames, message and expression, sha256, cut to signature.length, first digit 0 only when ineligible', () => {
  const s = sign(rec('E   assert 3 == 4', 'assert 3 == 4'));
  const payload = JSON.stringify([SIGNATURE_VERSION, 'AssertionError', 'equal', [], 'assert <n> == <n>', null]);
  assert.is(SIGNATURE_VERSION, 'v2');
  assert.is(s.eligible, false);
  assert.is(s.sig, '0' + createHash('sha256').update(payload).digest('hex').slice(1, 16));
  assert.is(
    s.v1,
    createHash('sha256')
      .update(JSON.stringify(['v1', 'AssertionError', 'equal', [], 'assert <n> == <n>']))
      .digest('hex')
      .slice(0, 16),
  );
  const named = sign(rec('E   assert 3 == 4\nE    +  where 3 = total(1)'));
  assert.is(named.eligible, true);
  assert.is.not(named.sig[0], '0');
  const config = defaults();
  config.signature.length = 24;
  assert.is(signRecord(rec('E   assert 3 == 4'), 'n', signOptions(config)).sig.length, 24);
});

test('predicate over prose: rewording a pytest message keeps the signature', () => {
  const a = sign(
    rec(
      'def test_x():\n>       assert total(1) == 19, "tax included"\nE       AssertionError: tax included\nE       assert 18 == 19\nE        +  where 18 = total(1)\n\ntests/test_bill.py:5: AssertionError',
      'AssertionError: tax included\nassert 18 == 19\n +  where 18 = total(1)',
    ),
  );
  const b = sign(
    rec(
      'def test_y():\n>       assert total(1) == 19, "VAT must be added"\nE       AssertionError: VAT must be added\nE       assert 18 == 19\nE        +  where 18 = total(1)\n\ntests/test_other.py:9: AssertionError',
      'AssertionError: VAT must be added\nassert 18 == 19\n +  where 18 = total(1)',
    ),
  );
  assert.is(a.sig, b.sig);
  assert.is(a.kind, 'equal');
  assert.is(a.message, 'assert <n> == <n>\n+ where <n> = total(<n>)'.replace(/\n/g, ' '));
  assert.ok(a.eligible);
  const other = sign(rec('E       assert 18 in [19]\n\ntests/test_bill.py:5: AssertionError'));
  assert.is(other.kind, 'contains');
  assert.is.not(other.sig, a.sig);
});

test('assertion kinds across libraries', () => {
  const cases: [string, FailureRecord, string][] = [
    ['pytest approx', rec('E   assert 1.2 == 1.3 ± 1.3e-06'), 'approx'],
    ['pytest raises', rec("E   Failed: DID NOT RAISE <class 'KeyError'>"), 'raises'],
    ['pytest truthy', rec('E   assert False'), 'truthy'],
    ['pytest isinstance', rec('E   assert isinstance(x, int)'), 'type'],
    [
      'unittest equal',
      rec(
        'Traceback (most recent call last):\n  File "/w/tests/test_a.py", line 3, in test_a\n    self.assertEqual(1, 2)\nAssertionError: 1 != 2 : tax included',
      ),
      'equal',
    ],
    [
      'unittest truthy',
      rec('Traceback (most recent call last):\n  File "t.py", line 3, in t\nAssertionError: False is not true'),
      'truthy',
    ],
    [
      'unittest raises',
      rec('Traceback (most recent call last):\n  File "t.py", line 3, in t\nAssertionError: ValueError not raised'),
      'raises',
    ],
    [
      'unittest contains',
      rec("Traceback (most recent call last):\n  File \"t.py\", line 3, in t\nAssertionError: 'a' not found in 'bcd'"),
      'contains',
    ],
    [
      'unittest almost',
      rec(
        'Traceback (most recent call last):\n  File "t.py", line 3, in t\nAssertionError: 1.0 != 1.1 within 7 places (0.1 difference)',
      ),
      'approx',
    ],
    [
      'jest toBe',
      rec(
        'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 4\n    at Object.<anonymous> (/w/test/a.test.js:3:5)',
      ),
      'equal',
    ],
    ['jest toThrow', rec('Error: expect(received).toThrow(expected)\n\nExpected substring: "x"'), 'raises'],
    ['jest toContain', rec('Error: expect(received).toContain(expected) // indexOf'), 'contains'],
    ['jest toBeCloseTo', rec('Error: expect(received).toBeCloseTo(expected)'), 'approx'],
    ['jest not.toBe', rec('Error: expect(received).not.toBe(expected)'), 'not_equal'],
    ['jest toMatch', rec('Error: expect(received).toMatch(expected)'), 'match'],
    ['jest toBeInstanceOf', rec('Error: expect(received).toBeInstanceOf(expected)'), 'type'],
    ['vitest chai', rec('AssertionError: expected 5 to be 6 // Object.is equality'), 'equal'],
    ['chai deep equal', rec('AssertionError: tax included: expected { a: 1 } to deeply equal { a: 2 }'), 'equal'],
    ['chai include', rec('AssertionError: expected [ 1, 2 ] to include 3'), 'contains'],
    ['chai truthy', rec('AssertionError: expected false to be true'), 'truthy'],
    ['chai match', rec("AssertionError: expected 'abc' to match /x/"), 'match'],
    ['chai instance', rec('AssertionError: expected {} to be an instance of Date'), 'type'],
    ['chai close', rec('AssertionError: expected 1.5 to be close to 2 +/- 0.1'), 'approx'],
    [
      'node deepStrictEqual',
      rec(
        "[Error [ERR_TEST_FAILURE]: x] {\n  code: 'ERR_TEST_FAILURE',\n  cause: AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n      at TestContext.<anonymous> (file:///w/test/a.test.js:7:29) {\n    generatedMessage: true,\n    code: 'ERR_ASSERTION',\n    operator: 'deepStrictEqual'\n  }\n}",
      ),
      'equal',
    ],
    [
      'node throws',
      rec(
        "[Error [ERR_TEST_FAILURE]: x] {\n  cause: AssertionError [ERR_ASSERTION]: Missing expected exception (RangeError).\n      at TestContext.<anonymous> (file:///w/test/a.test.js:9:31) {\n    code: 'ERR_ASSERTION',\n    operator: 'throws'\n  }\n}",
      ),
      'raises',
    ],
    [
      'node match',
      rec(
        "[Error [ERR_TEST_FAILURE]: x] {\n  cause: AssertionError [ERR_ASSERTION]: The input did not match\n {\n    code: 'ERR_ASSERTION',\n    operator: 'match'\n  }\n}",
      ),
      'match',
    ],
    [
      'junit5',
      rec(
        'org.opentest4j.AssertionFailedError: tax ==> expected: <19> but was: <18>\n\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:55)',
      ),
      'equal',
    ],
    [
      'junit4',
      rec('java.lang.AssertionError: expected:<19> but was:<18>\n\tat org.junit.Assert.fail(Assert.java:88)'),
      'equal',
    ],
    ['junit5 true', rec('org.opentest4j.AssertionFailedError: expected: <true> but was: <false>'), 'truthy'],
    [
      'junit5 assertThrows',
      rec(
        'org.opentest4j.AssertionFailedError: Expected java.lang.IllegalArgumentException to be thrown, but nothing was thrown.',
      ),
      'raises',
    ],
    ['assertj', rec('java.lang.AssertionError: \nExpecting actual:\n  [1, 2]\nto contain:\n  [3]\n'), 'contains'],
    ['assertj equal', rec('org.opentest4j.AssertionFailedError: \nexpected: 19\n but was: 18'), 'equal'],
    ['hamcrest', rec('java.lang.AssertionError: \nExpected: is <19>\n     but: was <18>'), 'equal'],
    [
      'hamcrest contains',
      rec('java.lang.AssertionError: \nExpected: a collection containing "x"\n     but: was <[]>'),
      'contains',
    ],
    [
      'testify equal',
      rec(
        '    Error Trace:\tbill_test.go:12\n    Error:      \tNot equal: \n                \texpected: 19\n                \tactual  : 18\n    Test:       \tTestTotal\n    Messages:   \ttax included',
      ),
      'equal',
    ],
    [
      'testify true',
      rec('    Error Trace:\tbill_test.go:12\n    Error:      \tShould be true\n    Test:       \tTestTotal'),
      'truthy',
    ],
    [
      'testify contains',
      rec(
        '    Error Trace:\tbill_test.go:12\n    Error:      \t"abc" does not contain "x"\n    Test:       \tTestTotal',
      ),
      'contains',
    ],
    [
      'rust assert_eq (new)',
      rec(
        "thread 'tests::total' panicked at src/lib.rs:10:5:\nassertion `left == right` failed: tax included\n  left: 18\n right: 19",
      ),
      'equal',
    ],
    [
      'rust assert_eq (old)',
      rec(
        "thread 'tests::total' panicked at 'assertion failed: `(left == right)`\n  left: `18`,\n right: `19`', src/lib.rs:10:5",
      ),
      'equal',
    ],
    [
      'rust assert_ne',
      rec("thread 't' panicked at src/lib.rs:3:5:\nassertion `left != right` failed\n  left: 1\n right: 1"),
      'not_equal',
    ],
    ['rust assert!', rec("thread 't' panicked at src/lib.rs:3:5:\nassertion failed: total(1) > 5"), 'truthy'],
    ['phpunit', rec('Failed asserting that 18 matches expected 19.\n\n/w/tests/BillTest.php:12'), 'equal'],
    ['phpunit true', rec('tax included\nFailed asserting that false is true.'), 'truthy'],
    ['xunit.net', rec('Assert.Equal() Failure\nExpected: 19\nActual:   18'), 'equal'],
    ['nunit', rec('  Expected: 19\n  But was:  18\n'), 'equal'],
    ['mstest', rec('Assert.AreEqual failed. Expected:<19>. Actual:<18>.'), 'equal'],
    [
      'rspec eq',
      rec('Failure/Error: expect(total(1)).to eq(19)\n\n  expected: 19\n       got: 18\n\n  (compared using ==)'),
      'equal',
    ],
    ['rspec include', rec('Failure/Error: expect(list).to include(3)\n  expected [1, 2] to include 3'), 'contains'],
    ['minitest', rec('Expected: 19\n  Actual: 18'), 'equal'],
    ['an uncaught error is no assertion', rec('TypeError: x is not a function\n    at f (/w/src/a.js:1:1)'), 'unknown'],
  ];
  for (const [what, r, kind] of cases) assert.is(sign(r).kind, kind, what);
});

test('frames: Python long, short and native styles agree; project frames only, innermost first', () => {
  const long = rec(
    'def test_negative():\n>       total(-1)\n\ntests/test_bill.py:8: \n_ _ _ _\n\nx = -1\n\n    def total(x):\n>       return x + tax(x)\n\nsrc/billing/__init__.py:7: \n_ _ _ _\n\n    def tax(x):\n        if x < 0:\n>           raise ValueError(f"negative amount {x}")\nE           ValueError: negative amount -1\n\nsrc/billing/__init__.py:3: ValueError',
    'ValueError: negative amount -1',
  );
  const short = rec(
    'tests/test_bill.py:8: in test_negative\n    total(-1)\nsrc/billing/__init__.py:7: in total\n    return x + tax(x)\nsrc/billing/__init__.py:3: in tax\n    raise ValueError(f"negative amount {x}")\nE   ValueError: negative amount -1',
    'ValueError: negative amount -1',
  );
  const native = rec(
    'Traceback (most recent call last):\n  File "/home/ci/.venv/lib/python3.11/site-packages/_pytest/runner.py", line 341, in from_call\n    result = func()\n  File "/home/ci/w/tests/test_bill.py", line 8, in test_negative\n    total(-1)\n  File "/home/ci/w/src/billing/__init__.py", line 7, in total\n    return x + tax(x)\n  File "/home/ci/w/src/billing/__init__.py", line 3, in tax\n    raise ValueError(f"negative amount {x}")\nValueError: negative amount -1',
    'ValueError: negative amount -1',
  );
  const sigs = [long, short, native].map((r) => sign(r));
  for (const s of sigs) {
    assert.equal(s.frames, ['tax', 'total']);
    assert.is(s.exc, 'ValueError');
    assert.is(s.message, 'negative amount <n>');
    assert.ok(s.eligible);
  }
  assert.is(sigs[0].sig, sigs[1].sig);
  assert.is(sigs[1].sig, sigs[2].sig);
});

test("frames of every runtime: function names only, the project's only", () => {
  const cases: [string, string, string[]][] = [
    [
      'v8',
      'RangeError: negative\n    at tax (file:///home/ci/w/src/bill.js:1:43)\n    at async Bill.total [as sum] (/home/ci/w/src/bill.js:2:39)\n    at Object.<anonymous> (/home/ci/w/test/bill.test.js:6:26)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)\n    at run (/home/ci/w/node_modules/jest-circus/build/run.js:9:3)',
      ['tax', 'Bill.total'],
    ],
    [
      'java',
      'java.lang.IllegalStateException: outer\n\tat com.acme.bill.Bill.total(Bill.java:12)\n\tat com.acme.bill.BillTest.testTotal(BillTest.java:30)\n\tat org.junit.runners.ParentRunner.run(ParentRunner.java:363)\nCaused by: java.lang.ArithmeticException: / by zero\n\tat com.acme.bill.Tax.rate(Tax.java:7)\n\tat com.acme.bill.Bill.lambda$total$0(Bill.java:11)\n\t... 3 more',
      ['Tax.rate', 'Bill.total.lambda', 'Bill.total'],
    ],
    [
      'kotlin',
      'java.lang.IllegalArgumentException: bad\n\tat com.acme.bill.Money.scale(Money.kt:31)\n\tat com.acme.bill.MoneyTest.test it(MoneyTest.kt:27)',
      ['Money.scale'],
    ],
    [
      'go',
      'panic: runtime error: index out of range [3] with length 3 [recovered]\n\ngoroutine 7 [running]:\ntesting.tRunner.func1.2({0x1029e0, 0xc000018150})\n\t/usr/local/go/src/testing/testing.go:1545 +0x238\npanic({0x1029e0?, 0xc000018150?})\n\t/usr/local/go/src/runtime/panic.go:914 +0x21f\ngithub.com/acme/bill/src/bill.(*Bill).Total(...)\n\t/home/ci/w/src/bill/bill.go:12\ngithub.com/acme/bill/src/bill.Sum.func1()\n\t/home/ci/w/src/bill/sum.go:8 +0x1d\ngithub.com/acme/bill/src/bill.TestTotal(0xc000007860?)\n\t/home/ci/w/src/bill/bill_test.go:20 +0x32',
      ['(*Bill).Total', 'Sum.func<n>'],
    ],
    [
      'rust',
      "thread 'tests::total' panicked at src/bill.rs:12:5:\nattempt to divide by zero\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/abc/library/std/src/panicking.rs:645:5\n   1: bill::Bill::total\n             at ./src/bill.rs:12:5\n   2: bill::tax::rate::h0123456789abcdef\n             at ./src/tax.rs:3:9\n   3: bill::tests::total\n             at ./src/tests/bill.rs:40:9",
      ['Bill::total', 'rate'],
    ],
    [
      'php',
      'Acme\\TaxException: negative in /home/ci/w/src/Tax.php:30\nStack trace:\n#0 /home/ci/w/src/Bill.php(12): Acme\\Tax->rate(-1)\n#1 /home/ci/w/tests/BillTest.php(9): Acme\\Bill->total(-1)\n#2 /home/ci/w/vendor/phpunit/phpunit/src/Framework/TestCase.php(1617): BillTest->testTotal()\n#3 {main}',
      ['Tax->rate', 'Bill->total'],
    ],
    [
      'dotnet',
      'System.InvalidOperationException : bad state\n   at Acme.Billing.Tax.Rate(Int32 x) in /home/ci/w/src/Billing/Tax.cs:line 12\n   at Acme.Billing.Bill.<Total>d__3.MoveNext() in /home/ci/w/src/Billing/Bill.cs:line 30\n   at Acme.Billing.Tests.BillTests.TotalTest() in /home/ci/w/tests/BillTests.cs:line 9',
      ['Tax.Rate', 'Total'],
    ],
    [
      'ruby',
      "NoMethodError: undefined method `rate' for nil\n/home/ci/w/src/bill.rb:12:in `total'\n/home/ci/w/src/tax.rb:3:in 'Tax#apply'\n/home/ci/w/spec/bill_spec.rb:9:in `block (2 levels) in <top (required)>'\n/home/ci/.gem/gems/rspec-core/lib/rspec/core/example.rb:263:in `instance_exec'",
      ['total', 'Tax#apply'],
    ],
  ];
  for (const [what, text, frames] of cases) assert.equal(sign(rec(text)).frames, frames, what);
});

test('frames never carry a line or a path', () => {
  const frames = extractFrames('    at tax (/home/ci/w/src/bill.js:1:43)\n    at total (/home/ci/w/src/bill.js:2:39)');
  assert.equal(
    frames.map((f) => f.fn),
    ['tax', 'total'],
  );
  const s = sign(rec('Error: x\n    at tax (/home/ci/w/src/bill.js:1:43)'));
  assert.not.match(JSON.stringify(s.frames), /\d|\//);
});

test('signature.project decides which frames count', () => {
  const config = defaults();
  config.signature.project = ['lib/**'];
  const text = 'Error: x\n    at tax (/w/src/bill.js:1:43)\n    at rate (/w/lib/rate.js:1:1)';
  assert.equal(signRecord(rec(text), 'n', signOptions(config)).frames, ['rate']);
  assert.equal(sign(rec(text)).frames, ['tax']);
});

test('normalization: every volatile part becomes a token', () => {
  const pairs: [string, string][] = [
    ['id 123e4567-e89b-12d3-a456-426614174000 missing', 'id <uuid> missing'],
    ['at 2026-12-02T14:04:00.123Z and 2025-01-31', 'at <time> and <time>'],
    ['Date: Tue, 02 Dec 2025 14:04:00 GMT', 'Date: <time>'],
    ['took 14:04:05.123', 'took <time>'],
    ['object at 0x7f3a2c1b9d30', 'object at <addr>'],
    ['commit 9fceb02d0ae598e95dc970b74767f19372d61af8 gone', 'commit <hex> gone'],
    ['Timeout of 2000ms exceeded after 1.5s', 'Timeout of <duration> exceeded after <duration>'],
    ['waited 3 seconds', 'waited <duration>'],
    ["no such file '/tmp/pytest-of-ci/pytest-3/test_x0/data.json'", "no such file '<tmp>'"],
    ['cannot open /home/ci/work/src/data.json now', 'cannot open <path> now'],
    ['cannot open C:\\Users\\ci\\work\\data.json now', 'cannot open <path> now'],
    ['see tests/test_bill.py:12 for details', 'see <loc> for details'],
    ['expected 18 items, got -3.5e2', 'expected <n> items, got <n>'],
    ['a   b\n\t c', 'a b c'],
  ];
  for (const [raw, want] of pairs) assert.is(normalizeMessage(raw), want, raw);
});

test('eligible: false with neither a project frame nor a predicate', () => {
  const s = sign(rec('Error: Timeout of 2000ms exceeded.\n    at listOnTimeout (node:internal/timers:569:17)'));
  assert.is(s.eligible, false);
  assert.is(s.kind, 'unknown');
  assert.equal(s.frames, []);
  assert.ok(sign(rec('Error: boom\n    at f (/w/src/a.js:1:1)')).eligible);
});

test('passed and skipped cases have no signature; the primary record is used, not reruns', () => {
  const r = parseReport(
    '<testsuite><testcase name="p"/><testcase name="s"><skipped/></testcase><testcase name="f"><failure message="m">Error: boom\n    at f (/w/src/a.js:1:1)</failure><rerunFailure message="m"><stackTrace>TypeError: other\n    at g (/w/src/b.js:1:1)</stackTrace></rerunFailure></testcase></testsuite>',
    'r.xml',
  );
  const [p, s, f] = r.cases.map((c) => signCase(c, opts));
  assert.is(p, null);
  assert.is(s, null);
  assert.equal(f!.frames, ['f']);
  assert.is(f!.exc, 'Error');
});

test('terminal colours, raw or as pytest escapes them, do not move a signature', () => {
  const plain = sign(
    rec(
      'src/billing/__init__.py:3: in tax\n    raise ValueError("n")\nE   ValueError: negative amount -1',
      'ValueError: negative amount -1',
    ),
  );
  const coloured = sign(
    rec(
      '#x1B[1m#x1B[31msrc/billing/__init__.py#x1B[0m:3: in tax\n    #x1B[94mraise#x1B[39;49;00m ValueError("n")\n#x1B[1m#x1B[31mE   ValueError: negative amount -1#x1B[0m',
      'ValueError: negative amount -1',
    ),
  );
  const raw = sign(
    rec(
      '\x1b[1msrc/billing/__init__.py\x1b[0m:3: in tax\nE   ValueError: negative amount -1',
      'ValueError: negative amount -1',
    ),
  );
  assert.equal(plain.frames, ['tax']);
  assert.is(coloured.sig, plain.sig);
  assert.is(raw.sig, plain.sig);
});

test('a flaky case (Surefire flakyFailure only) is signed by its first record and marked flaky; a rerun after a failure is not', () => {
  const r = parseReport(
    '<testsuite name="s"><testcase name="flaky" classname="com.acme.BillTest"><flakyFailure message="boom" type="java.lang.IllegalStateException"><stackTrace>java.lang.IllegalStateException: boom\n\tat com.acme.Bill.total(Bill.java:3)\n\tat com.acme.BillTest.flaky(BillTest.java:9)</stackTrace></flakyFailure></testcase><testcase name="broken" classname="com.acme.BillTest"><failure message="m" type="java.lang.IllegalStateException">java.lang.IllegalStateException: m\n\tat com.acme.Bill.total(Bill.java:3)</failure><rerunFailure message="other" type="java.lang.RuntimeException"><stackTrace>java.lang.RuntimeException: other</stackTrace></rerunFailure></testcase><testcase name="passed"/></testsuite>',
    'r.xml',
  );
  const [flaky, broken, passed] = r.cases.map((c) => signCase(c, opts));
  assert.is(flaky!.flaky, true);
  assert.equal(flaky!.frames, ['Bill.total']);
  assert.is(flaky!.exc, 'IllegalStateException');
  assert.is(broken!.flaky, undefined);
  assert.is(broken!.exc, 'IllegalStateException');
  assert.is(passed, null);
});

test('JVM identity hashes normalize whatever their digits', () => {
  assert.is(normalizeMessage('lock Bill$Lock@57a3af25 held'), normalizeMessage('lock Bill$Lock@77847718 held'));
  assert.is(normalizeMessage('java.lang.Object@1b2c3d4'), 'java.lang.Object@<hex>');
});

test("Java and .NET out of the box: frames of the failing test's own package or namespace count wherever the sources sit", () => {
  const config = defaults();
  config.zones.find((z) => z.name === 'src')!.globs = ['lib/**'];
  const java = rec(
    'java.lang.IllegalStateException: no stock\n\tat com.acme.Bill.reserve(Bill.java:20)\n\tat org.junit.jupiter.api.Assertions.fail(Assertions.java:1)\n\tat com.acme.BillTest.total(BillTest.java:14)',
  );
  assert.equal(signRecord(java, 'total', signOptions(config), 'com.acme.BillTest').frames, ['Bill.reserve']);
  const dotnet = rec(
    'System.InvalidOperationException : no stock\n   at Acme.Billing.Bill.Reserve(String item) in /build/Acme.Billing/Bill.cs:line 20\n   at Acme.Billing.Bill.Checkout(String item)\n   at Acme.Tests.BillTests.Checkout() in /build/Acme.Tests/BillTests.cs:line 9\n   at NUnit.Framework.Internal.Reflect.InvokeMethod(MethodInfo method)',
  );
  assert.equal(signRecord(dotnet, 'Checkout', signOptions(config), 'Acme.Tests.BillTests').frames, [
    'Bill.Reserve',
    'Bill.Checkout',
  ]);
  // Another root namespace, or a signature.project that says otherwise, does not count.
  assert.equal(signRecord(dotnet, 'Checkout', signOptions(config), 'Other.Tests.BillTests').frames, []);
  config.signature.project = ['lib/**'];
  assert.equal(signRecord(java, 'total', signOptions(config), 'com.acme.BillTest').frames, []);
  assert.equal(signRecord(dotnet, 'Checkout', signOptions(config), 'Acme.Tests.BillTests').frames, []);
});

test.run();
