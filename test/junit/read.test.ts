import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseReport } from '../../src/junit/parse.js';
import { spawn, spawnSync } from 'node:child_process';
import { CHUNK, readReport } from '../../src/junit/read.js';
import { CannotJudge } from '../../src/common/errors.js';
import { corpus, CORPUS_MISSING, isCorrupt } from './corpus.js';
import { skip } from '../helpers/skip.js';

const entries = corpus();

test('every corpus report parses, with the manifest counts of testcases and failures/errors', async () => {
  if (!entries) return skip(CORPUS_MISSING);
  assert.ok(entries.length > 100);
  for (const e of entries.filter((x) => !isCorrupt(x))) {
    const report = await readReport(e.file);
    const records = report.cases.flatMap((c) => c.failures).filter((f) => f.tag === 'failure' || f.tag === 'error');
    assert.is(report.cases.filter((c) => !c.suiteLevel).length, e.testcases, `${e.file}: testcases`);
    assert.is(records.length, e.failuresPlusErrors, `${e.file}: failures + errors`);
  }
});

test('the deliberately corrupt corpus report is refused with its line and column', async () => {
  if (!entries) return skip(CORPUS_MISSING);
  const bad = entries.find(isCorrupt)!;
  try {
    await readReport(bad.file);
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, CannotJudge);
    assert.match(
      (err as CannotJudge).describe(),
      /corrupt-unclosed-cdata\.xml:\d+: not well-formed XML at line \d+, column \d+: a CDATA section is never closed/,
    );
  }
});

test('a suite-level <error> with no testcase is kept as a case', async () => {
  const r = parseReport(
    '<testsuite name="com.acme.BillTest" tests="0"><error type="java.lang.NoClassDefFoundError" message="boom">java.lang.NoClassDefFoundError: boom\n\tat x.Y.z(Y.java:1)</error></testsuite>',
    'r.xml',
  );
  assert.is(r.cases.length, 1);
  assert.is(r.cases[0].status, 'error');
  assert.is(r.cases[0].suiteLevel, true);
  assert.is(r.cases[0].name, 'com.acme.BillTest');
  assert.is(r.cases[0].failures[0].type, 'java.lang.NoClassDefFoundError');
});

test('nested suites, properties, skipped, system-out/err, CDATA and character references', () => {
  const xml = `\uFEFF<?xml version="1.0"?>\r\n<testsuites>\r\n <testsuite name="outer">\r\n  <testsuite name="inner">\r\n   <testcase name="a &amp; b" classname="pkg.T" file="t.py">\r\n    <properties><property name="invariant" value="bill.total"/><property name="note">text &lt;v&gt;</property></properties>\r\n    <failure message="AssertionError: x&#10;assert 1 == 2" type="AssertionError">line1\r\nline2 &#x41;<![CDATA[ <raw> &amp; ]]></failure>\r\n    <system-out>out</system-out><system-err><![CDATA[err]]></system-err>\r\n   </testcase>\r\n   <testcase name="s"><skipped message="later"/></testcase>\r\n   <testcase name="p"/>\r\n  </testsuite>\r\n </testsuite>\r\n</testsuites>\r\n`;
  const r = parseReport(Buffer.from(xml), 'r.xml');
  assert.is(r.cases.length, 3);
  const [a, s, p] = r.cases;
  assert.is(a.name, 'a & b');
  assert.equal(a.suites, ['outer', 'inner']);
  assert.is(a.file, 't.py');
  assert.is(a.status, 'failed');
  assert.equal(a.properties, [
    { name: 'invariant', value: 'bill.total' },
    { name: 'note', value: 'text <v>' },
  ]);
  assert.is(a.failures[0].message, 'AssertionError: x\nassert 1 == 2');
  assert.is(a.failures[0].text, 'line1\nline2 A <raw> &amp; ');
  assert.is(a.systemOut, 'out');
  assert.is(a.systemErr, 'err');
  assert.is(s.status, 'skipped');
  assert.is(p.status, 'passed');
});

test('Surefire: flaky records leave the case passed; reruns follow the primary failure', () => {
  const xml = `<testsuite name="s"><testcase name="flaky" classname="C"><flakyFailure message="m1" type="java.lang.AssertionError"><stackTrace>java.lang.AssertionError: m1\n\tat C.f(C.java:3)</stackTrace><system-out>o1</system-out></flakyFailure></testcase>
<testcase name="broken" classname="C"><failure message="m" type="java.lang.AssertionError">trace</failure><rerunFailure message="m2" type="java.lang.AssertionError"><stackTrace>t2</stackTrace></rerunFailure><rerunError message="m3" type="java.lang.IllegalStateException"><stackTrace>t3</stackTrace></rerunError></testcase></testsuite>`;
  const [flaky, broken] = parseReport(xml, 'r.xml').cases;
  assert.is(flaky.status, 'passed');
  assert.equal(
    flaky.failures.map((f) => [f.tag, f.text, f.systemOut]),
    [['flakyFailure', 'java.lang.AssertionError: m1\n\tat C.f(C.java:3)', 'o1']],
  );
  assert.is(broken.status, 'failed');
  assert.equal(
    broken.failures.map((f) => f.tag),
    ['failure', 'rerunFailure', 'rerunError'],
  );
});

const refused = (xml: string, pattern: RegExp) => {
  try {
    parseReport(xml, 'hostile.xml');
  } catch (err) {
    assert.instance(err, CannotJudge);
    assert.match((err as CannotJudge).describe(), pattern);
    return;
  }
  assert.unreachable(`accepted: ${xml.slice(0, 60)}`);
};

test('hostile: billion laughs is refused, nothing expanded', () => {
  const lol = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\n]>\n<testsuite><testcase name="&lol3;"/></testsuite>`;
  refused(lol, /^hostile\.xml:3: not well-formed XML at line 3, column 2: the DOCTYPE declares entities/);
});

test('hostile: an external entity is refused and never loaded', () => {
  refused(
    '<!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&xxe;"/></testsuite>',
    /DOCTYPE declares entities/,
  );
  refused(
    '<!DOCTYPE t [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]><testsuite/>',
    /DOCTYPE declares entities/,
  );
});

test('hostile: an undeclared entity is never expanded', () => {
  refused(
    '<testsuite><testcase name="&nbsp;"/></testsuite>',
    /entity &nbsp; is not one of XML's five predefined entities/,
  );
  refused(
    '<testsuite><testcase name="a"><failure>x &copy; y</failure></testcase></testsuite>',
    /line 1, column \d+: entity &copy;/,
  );
});

test('a DOCTYPE without entity declarations is skipped', () => {
  const r = parseReport(
    '<!DOCTYPE testsuite SYSTEM "junit.dtd">\n<testsuite name="s"><testcase name="a"/></testsuite>',
    'r.xml',
  );
  assert.is(r.cases.length, 1);
});

test('malformed XML names the line and column', () => {
  refused(
    '<testsuite>\n  <testcase name="a">\n  </testsuite>',
    /^hostile\.xml:3: not well-formed XML at line 3, column 3: <\/testsuite> closes <testcase>/,
  );
  refused('<testsuite>\n<testcase name="a></testsuite>', /line 2, column 10: <testcase> has a malformed attribute/);
  refused('<testsuite><testcase name="a" name="b"/></testsuite>', /attribute name repeated/);
  refused('<testsuite>a & b</testsuite>', /a bare &/);
  refused('<testsuite/><testsuite/>', /a second root element/);
  refused('', /no root element/);
  refused('<testsuite><testcase name="&#0;"/></testsuite>', /character reference &#0; is not a character XML allows/);
});

test('a truncated report is refused', () => {
  refused(
    '<testsuites><testsuite name="a"><testcase name="x"><failure message="m">trace',
    /the file ends before <failure> is closed \(truncated\?\)/,
  );
  refused('<testsuites><testsuite name="a"><testcase name="x', /the file ends inside <testcase>/);
});

test('not a JUnit report', () => {
  refused('<html><body/></html>', /not a JUnit report: the root element is <html>/);
});

test('a missing file or a folder is CannotJudge naming it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-junit-'));
  try {
    for (const [file, re] of [
      [path.join(dir, 'nope.xml'), /nope\.xml: no such report/],
      [dir, /is a folder, not a report/],
    ] as const) {
      try {
        await readReport(file);
        assert.unreachable();
      } catch (err) {
        assert.instance(err, CannotJudge);
        assert.match((err as CannotJudge).describe(), re);
      }
    }
    writeFileSync(path.join(dir, 'ok.xml'), '<testsuite><testcase name="a"/></testsuite>');
    assert.is((await readReport(path.join(dir, 'ok.xml'))).cases.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the well-formedness pass is linear: a 10 MB report with one reference at its end', () => {
  // 20,000 text nodes before the only `&`: searching to it from each one took seconds.
  const parts = ['<testsuite name="s">'];
  for (let i = 0; i < 20_000; i++)
    parts.push(`<testcase name="t${i}"><system-out>${'x'.repeat(500)}</system-out></testcase>`);
  parts.push('<testcase name="a &amp; b"/></testsuite>');
  const xml = parts.join('');
  // CPU time, not the clock: a loaded machine must not fail it, a quadratic pass must.
  const t = process.cpuUsage();
  const r = parseReport(xml, 'big.xml');
  const { user, system } = process.cpuUsage(t);
  const ms = (user + system) / 1000;
  assert.is(r.cases.length, 20_001);
  assert.is(r.cases[20_000].name, 'a & b');
  assert.ok(ms < 4000, `took ${ms.toFixed(0)} ms of CPU`);
});

test('read whole or refused: a test case or failure the reader would skip is refused with its position', () => {
  refused(
    '<testsuites>\n<testsuite name="s">\n<testcase name="outer">\n  <testcase name="inner"><failure message="m">boom</failure></testcase>\n</testcase></testsuite></testsuites>',
    /^hostile\.xml:4: not well-formed XML at line 4, column 3: a <testcase> inside another <testcase>: its result would never be read/,
  );
  refused(
    '<testsuites>\n <group name="g">\n  <testsuite name="s"><testcase name="t"><failure>boom</failure></testcase></testsuite>\n </group>\n</testsuites>',
    /line 3, column 23: a <testcase> inside <group>, which a JUnit report does not have there/,
  );
  refused(
    '<testsuite name="s">\n<testcase name="t"><result><failure message="m">boom</failure></result></testcase></testsuite>',
    /line 2, column 28: a <failure> inside <result>, which a JUnit report does not have there: the failure would never be read/,
  );
  // Elements it does not know are fine where they hold no case or failure; markup inside raw text is text.
  const r = parseReport(
    '<testsuite name="s"><testcase name="t"><attachments><a>x</a></attachments><system-out><testcase name="log"/></system-out></testcase></testsuite>',
    'r.xml',
  );
  assert.is(r.cases.length, 1);
});

test('a report larger than a chunk reads as parsed whole, from a file and from a pipe', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-junit-'));
  try {
    const cases = Array.from({ length: 30_000 }, (_, i) =>
      i % 1000
        ? `<testcase name="t${i}"/>`
        : `<testcase name="t${i}"><failure message="m${i}">trace</failure></testcase>`,
    );
    const xml = Buffer.from(`<testsuite name="s">${cases.join('\n')}${' '.repeat(CHUNK)}</testsuite>`);
    const n = CHUNK / 10;
    const tests = Array.from({ length: n }, (_, i) => `${i % 1000 ? 'ok' : 'not ok'} ${i + 1} - t${i}\n# output\n`);
    const tap = Buffer.from(`TAP version 13\n${tests.join('')}1..${n}\n`);
    for (const [name, bytes] of [
      ['r.xml', xml],
      ['r.tap', tap],
    ] as const) {
      assert.ok(bytes.length > CHUNK);
      const file = path.join(dir, name);
      writeFileSync(file, bytes);
      const whole = parseReport(bytes, file);
      assert.equal(await readReport(file), whole);
      // A pipe has no size: read to its end all the same.
      const fifo = path.join(dir, `${name}.fifo`);
      assert.is(spawnSync('mkfifo', [fifo]).status, 0);
      const writer = spawn('sh', ['-c', 'cat "$0" > "$1"', file, fifo]);
      assert.equal((await readReport(fifo)).cases, whole.cases);
      await new Promise((done) => writer.on('close', done));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
