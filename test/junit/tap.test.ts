// TAP read from a reporter's file: node's tap reporter, bats and a Test::More
// stream (what prove reads), each from a real run; the same failures give the
// same signatures from TAP as from JUnit; a stream cut short is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseReport } from '../../src/junit/parse.js';
import { CHUNK, readReport } from '../../src/junit/read.js';
import { cleanup, sh, tempRepo } from '../helpers/repo.js';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';

test.after.each(cleanup);

const withBats = testUnless(missingUnless('bats', ['--version'], ciInstalls('bats is not installed')));
const withPerl = testUnless(missingUnless('perl', ['-MTest::More', '-e', '1'], "perl's Test::More is not installed"));

const BILL = `export function total(xs) {
  if (xs.length > 2) throw new RangeError('too many items: ' + xs.length);
  return xs.reduce((a, b) => a + b, 0) + 1;
}
export const discount = (n) => n - 1;
`;
const TESTS = `import { test, describe, it } from 'node:test';
import assert from 'node:assert';
import { total, discount } from '../src/bill.js';
test('sums', () => { assert.strictEqual(total([1, 2]), 3); });
test('too many', () => { total([1, 2, 3]); });
test('passes', () => { assert.ok(true); });
test('later', { skip: 'not yet' }, () => {});
test('known', { todo: 'a known bug' }, () => { assert.ok(false); });
describe('bill', () => {
  it('discounts', () => { assert.deepStrictEqual({ d: discount(10) }, { d: 10 }); });
  it('nested ok', () => {});
});
test('parent', async (t) => {
  await t.test('child fails', () => { assert.strictEqual(discount(3), 3); });
});
`;

test("node's tap reporter and its junit reporter, one run: the same cases and the same signatures", () => {
  const repo = tempRepo();
  repo.commit({ 'src/bill.js': BILL, 'test/bill.test.js': TESTS, 'package.json': '{"type":"module"}\n' });
  const run = sh(
    process.execPath,
    [
      '--test',
      '--test-reporter=junit',
      '--test-reporter-destination=r.xml',
      '--test-reporter=tap',
      '--test-reporter-destination=r.tap',
      'test/',
    ],
    { cwd: repo.dir },
  );
  assert.is(run.code, 1, run.stdout + run.stderr);
  const tap = parseReport(readFileSync(path.join(repo.dir, 'r.tap')), 'r.tap');
  const byName = Object.fromEntries(tap.cases.map((c) => [c.name, c.status]));
  assert.equal(byName, {
    sums: 'failed',
    'too many': 'failed',
    passes: 'passed',
    later: 'skipped',
    known: 'failed',
    discounts: 'failed',
    'nested ok': 'passed',
    'child fails': 'failed',
  });
  assert.equal(tap.cases.find((c) => c.name === 'discounts')!.suites, ['bill']);
  const sigs = (file: string) => {
    const r = repo.json(['signatures', file]);
    assert.is(r.code, 0, r.stderr);
    return r.out.failures
      .map((f: Record<string, unknown>) => [f.name, f.sig, f.exc, f.kind, f.frames, f.eligible])
      .sort();
  };
  const fromTap = sigs('r.tap');
  assert.equal(fromTap, sigs('r.xml'));
  assert.is(fromTap.length, 5);
  // Eligible where the JUnit reading is: the project frame, and the asserting expression read from the checkout.
  assert.ok(
    fromTap.filter((f: unknown[]) => f[0] !== 'known').every((f: unknown[]) => f[5] === true),
    JSON.stringify(fromTap),
  );
  // freeze apply reads TAP too, and a row written from the JUnit signature freezes the TAP failure.
  const sig = fromTap.find((f: unknown[]) => f[0] === 'too many')[1];
  assert.is(repo.pw(['freeze', 'init', '--version', '1']).code, 0);
  assert.is(repo.pw(['freeze', 'add', '--sig', sig, '--reason', 'r', '--owner', 'qa', '--ttl', '1d']).code, 0);
  const applied = repo.json(['freeze', 'apply', 'r.tap']);
  assert.equal(applied.out.failures.find((f: { name: string }) => f.name === 'too many').action, 'frozen');
});

withBats('bats: its report-formatter tap file', () => {
  const repo = tempRepo();
  repo.commit({
    'test/a.bats':
      '@test "addition" {\n  [ "$((2 + 2))" -eq 4 ]\n}\n@test "subtraction" {\n  result="$((2 - 2))"\n  [ "$result" -eq 1 ]\n}\n@test "later" {\n  skip "not yet"\n}\n',
  });
  sh('bats', ['--report-formatter', 'tap', '--output', '.', 'test/a.bats'], { cwd: repo.dir });
  const r = parseReport(readFileSync(path.join(repo.dir, 'report.tap')), 'report.tap');
  assert.equal(
    r.cases.map((c) => [c.name, c.status]),
    [
      ['addition', 'passed'],
      ['subtraction', 'failed'],
      ['later', 'skipped'],
    ],
  );
  assert.match(
    r.cases[1].failures[0].text,
    /\(in test file test\/a\.bats, line 6\)\n\s*`\[ "\$result" -eq 1 \]' failed/,
  );
  const s = repo.json(['signatures', 'report.tap']);
  assert.equal(
    s.out.failures.map((f: { name: string }) => f.name),
    ['subtraction'],
  );
});

withPerl('Test::More, the stream prove reads: diagnostics after the line, a skip', () => {
  const repo = tempRepo();
  repo.commit({
    't/a.t':
      "use Test::More tests => 3;\nok(1, 'first');\nis(1+1, 3, 'sum of two');\nSKIP: { skip 'no network', 1; ok(0, 'net'); }\n",
  });
  // Test::More writes diagnostics to stderr; prove --merge (and this redirection) puts them after their line.
  sh('sh', ['-c', 'perl t/a.t > a.tap 2>&1'], { cwd: repo.dir });
  const r = parseReport(readFileSync(path.join(repo.dir, 'a.tap')), 'a.tap');
  assert.equal(
    r.cases.map((c) => [c.name, c.status]),
    [
      ['first', 'passed'],
      ['sum of two', 'failed'],
      ['', 'skipped'],
    ],
  );
  assert.match(r.cases[1].failures[0].message, /Failed test 'sum of two'/);
  assert.match(r.cases[1].failures[0].text, /got: '2'\n\s+expected: '3'/);
});

test('a TAP 14 stream with subtests and YAML (node-tap shape); cut-off streams are refused', () => {
  const tap14 = [
    'TAP version 14',
    '# Subtest: bill',
    '    not ok 1 - totals add up',
    '      ---',
    '      message: should be equal',
    '      found: 4',
    '      wanted: 3',
    '      stack: |',
    '        Test.<anonymous> (test/bill.js:5:7)',
    '      ...',
    '    not ok 2 - empty # TODO later',
    '    1..2',
    'not ok 1 - bill # time=12ms',
    '1..1',
    '',
  ].join('\n');
  const r = parseReport(tap14, 'x.tap');
  assert.equal(
    r.cases.map((c) => [c.name, c.status, c.suites]),
    [
      ['totals add up', 'failed', ['bill']],
      ['empty', 'failed', ['bill']],
      ['bill', 'failed', []],
    ],
  );
  assert.is(r.cases[0].failures[0].message, 'should be equal');
  assert.match(r.cases[0].failures[0].text, /stack: \|\n\s+Test\.<anonymous> \(test\/bill\.js:5:7\)/);
  const refused = (text: string, message: RegExp) =>
    assert.throws(
      () => parseReport(text, 'cut.tap'),
      (e: Error) => message.test(e.message),
    );
  refused('TAP version 13\nok 1 - a\nnot ok 2 - b\n', /no plan \(1\.\.N\)/);
  refused('1..3\nok 1 - a\nok 2 - b\n', /the plan says 1\.\.3 but 2 test lines follow/);
  refused('1..1\nnot ok 1 - a\n  ---\n  message: x\n', /never closed/);
  const bailed = parseReport('1..2\nok 1 - a\nBail out! database down\n', 'b.tap');
  assert.equal(
    bailed.cases.map((c) => [c.name, c.status]),
    [
      ['a', 'passed'],
      ['Bail out!', 'error'],
    ],
  );
});

test('a subtest indented by other than four spaces a level is read at the level it reaches, not a crash', () => {
  for (const pad of ['  ', '      ']) {
    const text = [
      'TAP version 13',
      `${pad}# Subtest: odd`,
      `${pad}not ok 1 - inner`,
      `${pad}1..1`,
      'not ok 1 - outer',
      '1..1',
      '',
    ];
    const r = parseReport(text.join('\n'), 'odd.tap');
    assert.equal(
      r.cases.map((c) => [c.name, c.status]),
      [
        ['inner', 'failed'],
        ['outer', 'failed'],
      ],
    );
  }
});

test('a stream is read from its bytes: a BOM, CRLF line ends and UTF-8 names and diagnostics read whole', () => {
  const text = [
    '\uFEFFTAP version 13',
    '# Subtest: Größe ✓',
    'ok 1 - Größe ✓',
    '  ---',
    '  duration_ms: 0.5',
    '  ...',
    '# Subtest: naïve',
    'not ok 2 - naïve # time=1ms',
    '  ---',
    "  message: 'expected 「a」'",
    '  ...',
    '1..2',
    '',
  ].join('\r\n');
  for (const input of [text, Buffer.from(text, 'utf8')]) {
    const r = parseReport(input, 'u.tap');
    assert.equal(
      r.cases.map((c) => [c.name, c.status]),
      [
        ['Größe ✓', 'passed'],
        ['naïve', 'failed'],
      ],
    );
    assert.is(r.cases[1].failures[0].message, 'expected 「a」');
  }
});

test('a file is read chunk by chunk as if whole: lines, characters and CRLF split between chunks, a line longer than one', async () => {
  // A failing test whose block straddles each chunk boundary, a multi-byte name cut at the first, a CR and its LF at the second.
  const failing = (n: number, name: string, indent = '') =>
    [
      `# Subtest: ${name}`,
      `not ok ${n} - ${name}`,
      '  ---',
      "  failureType: 'testCodeFailure'",
      `  error: 'bad ${n}'`,
      "  code: 'ERR_TEST_FAILURE'",
      '  stack: |-',
      `    total (file:///w/src/bill${n}.js:3:9)`,
      '  ...',
    ]
      .map((l) => indent + l)
      .join('\r\n') + '\r\n';
  const parts: string[] = ['TAP version 13\r\n'];
  let size = parts[0].length;
  let n = 0;
  const push = (text: string) => {
    parts.push(text);
    size += Buffer.byteLength(text);
  };
  // Passing tests and comments up to byte `end`, exactly.
  const fillTo = (end: number) => {
    while (size < end - 400) push(`ok ${++n} - case ${n}\r\n# ${'x'.repeat(60)}\r\n`);
    push(`# ${'y'.repeat(end - size - 4)}\r\n`);
  };
  // The first boundary cuts the `✓` (3 bytes) of "Größe ✓" after its first byte: a subtest whose test fails.
  fillTo(CHUNK - 1 - Buffer.byteLength('# Subtest: Größe '));
  push('# Subtest: Größe ✓\r\n');
  push(`${failing(1, 'inner', '    ')}    1..1\r\n`);
  push(`not ok ${++n} - Größe ✓\r\n  ---\r\n  failureType: 'subtestsFailed'\r\n  ...\r\n`);
  // The second falls between the CR and the LF of a test line.
  const next = `not ok ${n + 1} - over the edge`;
  fillTo(2 * CHUNK - 1 - Buffer.byteLength(`# Subtest: over the edge\r\n${next}`));
  push(failing(++n, 'over the edge'));
  // A line longer than a chunk (a test's output), then a failure after it.
  push(`ok ${++n} - talkative\r\n# ${'z'.repeat(CHUNK + 100)}\r\n`);
  push(failing(++n, 'after the long line'));
  push(`1..${n}\r\n`);
  const text = parts.join('');
  const bytes = Buffer.from(text, 'utf8');
  assert.equal([bytes[CHUNK - 1], bytes[2 * CHUNK - 1], bytes[2 * CHUNK]], [0xe2, 13, 10]);
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-tap-'));
  try {
    const file = path.join(dir, 'r.tap');
    writeFileSync(file, bytes);
    const whole = parseReport(bytes, file);
    assert.equal(await readReport(file), whole);
    assert.equal(
      whole.cases.filter((c) => c.status === 'failed').map((c) => [c.name, c.suites]),
      [
        ['inner', ['Größe ✓']],
        ['over the edge', []],
        ['after the long line', []],
      ],
    );
    // Signing reads the failing cases alone: the same ones, and nothing else.
    assert.equal(
      (await readReport(file, { failingOnly: true })).cases,
      whole.cases.filter((c) => c.status === 'failed'),
    );
    // XML past the first chunk is read whole too.
    const cases = Array.from({ length: 12_000 }, (_, i) =>
      i % 1000
        ? `<testcase name="t${i}"/>`
        : `<testcase name="t${i}"><failure message="m${i}">trace ${'z'.repeat(90)}</failure></testcase>`,
    );
    const xml = Buffer.from(`<testsuite name="s">${cases.join('\n')}${' '.repeat(CHUNK)}</testsuite>`);
    writeFileSync(path.join(dir, 'r.xml'), xml);
    const all = parseReport(xml, 'r.xml');
    assert.is((await readReport(path.join(dir, 'r.xml'))).cases.length, 12_000);
    assert.equal(
      (await readReport(path.join(dir, 'r.xml'), { failingOnly: true })).cases.map((c) => c.name),
      all.cases.filter((c) => c.status === 'failed').map((c) => c.name),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stream refused in its first chunk is refused, the file closed', async () => {
  // A subtest whose plan its tests do not meet, then more than a chunk of passing tests.
  const text = `TAP version 13\n# Subtest: s\n    ok 1 - a\n    1..2\nok 1 - s\n${'ok 2 - more\n'.repeat(CHUNK / 12 + 1000)}1..2\n`;
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-tap-'));
  try {
    const file = path.join(dir, 'r.tap');
    writeFileSync(file, text);
    await readReport(file).then(
      () => assert.unreachable('should refuse'),
      (err: Error) => assert.match(err.message, /the plan says 1\.\.2 but 1 test line follows in a subtest/),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
