// freeze apply and the gate's suite layer on what signatures v2 changed:
// flaky cases are judged like failures, v1 rows are recognized and never
// matched, and a freeze of a row written for another test is always shown.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { gate, row, sample } from '../gate/sample.js';

const NOW = { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' };
const LEDGER = 'freeze/signatures.yaml';

// A Surefire report: one case that failed and passed on a rerun, one that failed every time.
const SUREFIRE = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.acme.BillTest" tests="2" failures="1" flakes="1">
  <testcase name="lock" classname="com.acme.BillTest">
    <flakyFailure message="lock busy" type="java.lang.IllegalStateException"><stackTrace>java.lang.IllegalStateException: lock busy
\tat com.acme.Bill.lock(Bill.java:12)
\tat com.acme.BillTest.lock(BillTest.java:9)</stackTrace></flakyFailure>
  </testcase>
  <testcase name="total" classname="com.acme.BillTest">
    <failure message="no stock" type="java.lang.IllegalStateException">java.lang.IllegalStateException: no stock
\tat com.acme.Bill.reserve(Bill.java:20)
\tat com.acme.BillTest.total(BillTest.java:14)</failure>
    <rerunFailure message="no stock" type="java.lang.IllegalStateException"><stackTrace>java.lang.IllegalStateException: no stock
\tat com.acme.Bill.reserve(Bill.java:20)</stackTrace></rerunFailure>
  </testcase>
</testsuite>
`;

const rowFor = (sig: string, lastName: string) =>
  `  - sig: ${sig}\n    reason: known flake\n    owner: qa\n    expires: 2026-12-09T00:00:00Z\n    last_name: ${lastName}\n`;

test('a flaky case is listed with its signature and judged like a failure: refused until a row freezes it', () => {
  const repo = tempRepo();
  repo.write('r.xml', SUREFIRE);
  const listed = repo.json(['signatures', 'r.xml']).out.failures;
  assert.equal(
    listed.map((f: { name: string; flaky?: boolean }) => [f.name, f.flaky ?? false]),
    [
      ['lock', true],
      ['total', false],
    ],
  );
  assert.equal(listed[0].frames, ['Bill.lock']);
  assert.is(listed[0].eligible, true);
  assert.match(repo.pw(['signatures', 'r.xml']).stdout, /\(flaky\)/);

  let r = repo.json(['freeze', 'apply', 'r.xml'], { env: NOW });
  assert.is(r.code, 1);
  const lock = r.out.failures.find((f: { name: string }) => f.name === 'lock');
  assert.is(lock.action, 'new');
  assert.is(lock.flaky, true);
  assert.match(lock.note, /^flaky \(failed, then passed when rerun\), judged like a failure: no ledger row/);

  repo.write(LEDGER, `version: 1\nrecords:\n${rowFor(listed[0].sig, 'lock')}${rowFor(listed[1].sig, 'total')}`);
  r = repo.json(['freeze', 'apply', 'r.xml'], { env: NOW });
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.equal(
    r.out.failures.map((f: { action: string }) => f.action),
    ['frozen', 'frozen'],
  );
});

test('a v1 row is recognized, never matched, and the refusal names the v2 signature to re-key it with', () => {
  const repo = tempRepo();
  repo.write('r.xml', SUREFIRE);
  const total = repo.json(['signatures', 'r.xml']).out.failures[1];
  assert.match(total.v1, /^[0-9a-f]{16}$/);
  assert.is.not(total.v1, total.sig);
  // v1 hashed the same parts without the expression, under "v1".
  const v1 = createHash('sha256')
    .update(JSON.stringify(['v1', total.exc, total.kind, total.frames, total.message]))
    .digest('hex')
    .slice(0, 16);
  assert.is(total.v1, v1);
  repo.write(LEDGER, `version: 1\nrecords:\n${rowFor(v1, 'total')}`);
  const r = repo.json(['freeze', 'apply', 'r.xml'], { env: NOW });
  assert.is(r.code, 1);
  const f = r.out.failures.find((x: { name: string }) => x.name === 'total');
  assert.is(f.action, 'new');
  assert.match(
    f.note,
    new RegExp(
      `the row at freeze/signatures\\.yaml:3 holds this failure's v1 signature, which freezes nothing since signatures v2 \\(re-key it: sig ${total.sig};`,
    ),
  );
});

test("freeze apply shows the row's name beside the failure's and warns on a rename in --format github", () => {
  const repo = tempRepo();
  repo.write('r.xml', SUREFIRE);
  const [lock, total] = repo.json(['signatures', 'r.xml']).out.failures;
  repo.write(LEDGER, `version: 1\nrecords:\n${rowFor(lock.sig, 'lock_was_named_so')}${rowFor(total.sig, 'total')}`);
  const text = repo.pw(['freeze', 'apply', 'r.xml'], { env: NOW });
  assert.is(text.code, 0, text.stdout + text.stderr);
  assert.match(
    text.stdout,
    /lock: IllegalStateException \(unknown\) sig [0-9a-f]{16}\s+ledger line 3 \(row for lock_was_named_so\)\s+frozen, rename$/m,
  );
  const gh = repo.pw(['freeze', 'apply', 'r.xml', '--format', 'github'], { env: NOW });
  assert.match(
    gh.stdout,
    /^::warning title=patchwarden freeze rename::lock: flaky .*renamed: the row was written for lock_was_named_so/m,
  );
});

testUnless(pytestMissing)(
  'gate --format github warns on a freeze match whose row was written for another name; the text names both',
  () => {
    const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider';
    const repo = sample(`version: 1\nsuite:\n  command: ${PYTEST} tests --junitxml={junit}\n`, {
      'tests/test_clock.py': 'def skew():\n    return 1\n\n\ndef test_clock():\n    assert skew() == 2\n',
    });
    repo.git(['checkout', '-q', 'main']);
    spawnSync('sh', ['-c', `${PYTEST} tests --junitxml=report.xml`], { cwd: repo.dir });
    const sig = repo.json(['signatures', 'report.xml']).out.failures[0].sig as string;
    repo.commit(
      { 'freeze/signatures.yaml': `version: 1\nrecords:\n${row(sig, '    last_name: test_clock_before\n')}` },
      'freeze',
    );
    repo.git(['checkout', '-q', 'topic']);
    repo.git(['reset', '-q', '--hard', 'main']);
    repo.commit({ 'src/app.js': 'export const a = 2;\n' }, 'code');
    const r = gate(repo);
    assert.is(r.layers.suite.status, 'pass', JSON.stringify(r.layers.suite));
    const gh = repo.pw(['gate', '--base', 'main', '--format', 'github']);
    assert.is(gh.code, 0, gh.stdout + gh.stderr);
    assert.match(
      gh.stdout,
      /^::warning title=patchwarden freeze rename::test_clock \(frozen, sig [0-9a-f]{16}\) matched the row at line 3, written for test_clock_before$/m,
    );
    const text = repo.pw(['gate', '--base', 'main']);
    assert.match(
      text.stdout,
      /suite: frozen by a row written for another name:\n {2}test_clock {2}\(row at line 3 was written for test_clock_before\)/,
    );
  },
);

test.after.each(cleanup);
test.run();
