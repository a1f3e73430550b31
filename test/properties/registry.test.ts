// The invariant registry's shape, and the mapping of JUnit cases to ids: on
// reports real runners wrote, including the shared corpus (where no case names
// an invariant, so a property run made of them must be refused).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CannotJudge } from '../../src/common/errors.js';
import { readReport } from '../../src/junit/read.js';
import { caseFile, headProblems, invariantIds, mapCases } from '../../src/properties/mapping.js';
import { judgeStates } from '../../src/properties/states.js';
import { parseRegistry } from '../../src/properties/registry.js';
import { sh } from '../helpers/repo.js';
import { ciInstalls, missingUnless, pytestMissing, skip, testUnless } from '../helpers/skip.js';
import { CORPUS, CORPUS_MISSING } from '../junit/corpus.js';

function refused(text: string, pattern: RegExp, line?: number) {
  try {
    parseRegistry(text, 'spec/invariants.yaml');
  } catch (err) {
    assert.instance(err, CannotJudge);
    assert.match((err as CannotJudge).describe(), pattern);
    if (line !== undefined) assert.is((err as CannotJudge).line, line);
    return;
  }
  assert.unreachable(`accepted: ${text}`);
}

test('a well-formed registry lists its invariants in order', () => {
  const r = parseRegistry(
    'version: 1\ninvariants:\n  - id: bill.total_non_negative\n    description: totals never go negative\n  - id: parse/roundtrip:v2\n    description: parse(show(x)) == x\n',
    'spec/invariants.yaml',
  );
  assert.equal(
    r.invariants.map((i) => i.id),
    ['bill.total_non_negative', 'parse/roundtrip:v2'],
  );
});

test('malformed registries are refused with file and line', () => {
  refused('version: 1\ninvariants: [\n', /^spec\/invariants\.yaml:\d+: not valid YAML/);
  refused('invariants:\n  - id: a\n    description: b\n', /missing `version: 1`/);
  refused('version: 2\ninvariants:\n  - id: a\n    description: b\n', /registry version 1/, 1);
  refused('version: 1\ninvariants: []\n', /lists no invariant/, 2);
  refused('version: 1\ninvariants:\n  - id: a\n', /invariant a has no `description`/, 3);
  refused('version: 1\ninvariants:\n  - description: b\n', /without `id`/, 3);
  refused('version: 1\ninvariants:\n  - id: a b\n    description: c\n', /without spaces or brackets/, 3);
  refused('version: 1\ninvariants:\n  - id: "a]"\n    description: c\n', /without spaces or brackets/);
  refused(
    'version: 1\ninvariants:\n  - id: a\n    description: x\n  - id: a\n    description: y\n',
    /listed twice \(first on line 3\)/,
    5,
  );
  refused('version: 1\ninvariants:\n  - id: a\n    description: x\n    owner: me\n', /unknown key `owner`/, 5);
  refused('version: 1\nrules: []\n', /unknown key `rules`/, 2);
  refused('version: 1\nversion: 1\ninvariants: []\n', /not valid YAML|unique/i);
  refused('- just\n- a list\n', /must be a mapping/);
  refused('version: 1\ninvariants:\n  - id: 12\n    description: x\n', /id: must be a non-empty string/);
});

test('an alias bomb is refused, not expanded', () => {
  const bomb = [
    'version: 1',
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'invariants: [*c]',
  ].join('\n');
  refused(bomb, /unknown key `a`/);
  refused('version: 1\ninvariants:\n  - &x {id: a, description: b}\n  - *x\n', /must be a mapping/);
});

const tmp = mkdtempSync(path.join(tmpdir(), 'pw-registry-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const hypothesisMissing = missingUnless(
  'python3',
  ['-c', 'import hypothesis, pytest'],
  ciInstalls('python3 has no pytest with hypothesis'),
);

/** The mapping of one pytest file's report, run for real. */
async function pytestMapping(name: string, source: string[], registry: ReturnType<typeof parseRegistry>) {
  writeFileSync(path.join(tmp, name), `${source.join('\n')}\n`);
  const xml = path.join(tmp, `${name}.xml`);
  sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${xml}`, name], {
    cwd: tmp,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  return mapCases((await readReport(xml)).cases, registry, { root: tmp, inSpec: () => true, exists: () => false });
}

testUnless(hypothesisMissing)(
  'a Hypothesis property that names no id is told where the id goes, and the parametrize id it shows maps',
  async () => {
    const registry = parseRegistry('version: 1\ninvariants:\n  - id: a.one\n    description: x\n', 'reg.yaml');
    const body = ['@given(st.integers())', 'def test_prop(k, x):', '    assert x * 0 == 0'];
    const head = ['import pytest', 'from hypothesis import given, strategies as st'];
    const plain = await pytestMapping(
      'test_plain_h.py',
      [...head, '@pytest.mark.parametrize("k", [0])', ...body],
      registry,
    );
    const problem = headProblems(plain, registry)[0];
    assert.match(problem, /no property test case maps to an invariant id/);
    assert.ok(problem.includes('ids=["[invariant:ID]"]'), problem);
    // As the refusal shows it, with the registry's id for ID.
    const hinted = '@pytest.mark.parametrize("k", [0], ids=["[invariant:a.one]"])';
    const fixed = await pytestMapping('test_hinted_h.py', [...head, hinted, ...body], registry);
    assert.equal(headProblems(fixed, registry), []);
    assert.equal(
      fixed.invariants.map((i) => [i.id, i.status]),
      [['a.one', 'passed']],
    );
  },
);

testUnless(pytestMissing)(
  'pytest record_property and [invariant:ID] ids map; unknown ids and unmapped failures are named',
  async () => {
    writeFileSync(
      path.join(tmp, 'test_p.py'),
      [
        'import pytest',
        'def test_prop(record_property):',
        '    record_property("invariant", "a.one")',
        '    assert True',
        '@pytest.mark.parametrize("x", [1], ids=["[invariant:a.two]"])',
        'def test_tok(x):',
        '    assert x == 2',
        'def test_stranger(record_property):',
        '    record_property("invariant", "z.unknown")',
        'def test_plain():',
        '    assert False',
      ].join('\n') + '\n',
    );
    const xml = path.join(tmp, 'r.xml');
    sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${xml}`, 'test_p.py'], {
      cwd: tmp,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const report = await readReport(xml);
    const registry = parseRegistry(
      'version: 1\ninvariants:\n  - id: a.one\n    description: x\n  - id: a.two\n    description: y\n  - id: a.three\n    description: z\n',
      'reg.yaml',
    );
    const m = mapCases(report.cases, registry, { root: tmp, inSpec: () => true, exists: () => false });
    assert.equal(
      m.invariants.map((i) => [i.id, i.status]),
      [
        ['a.one', 'passed'],
        ['a.two', 'failed'],
        ['a.three', 'missing'],
      ],
    );
    assert.equal(
      m.unregistered.map((u) => u.id),
      ['z.unknown'],
    );
    assert.equal(
      m.strays.map((s) => s.name),
      ['test_plain'],
    );
    const problems = headProblems(m, registry).join('\n');
    assert.match(problems, /names invariant z\.unknown, which reg\.yaml does not register/);
    assert.match(problems, /outside any invariant did not pass: test_plain/);
    // Judged against itself (no production diff): a.two fails in both runs, a.three has no case.
    const ev = judgeStates(m.invariants, null, registry, new Date(), 90 * 86_400_000);
    assert.equal(
      ev.invariants.map((i) => [i.id, i.state]),
      [
        ['a.one', 'holds'],
        ['a.two', 'pending'],
        ['a.three', 'missing'],
      ],
    );
    assert.match(ev.refusals.map((r) => r.message).join('\n'), /the base itself fails a\.two/);
  },
);

const kase = (name: string, status: 'passed' | 'failed' | 'error' | 'skipped', skipType?: string) => ({
  name,
  classname: 'spec.p',
  status,
  ...(skipType ? { skipType } : {}),
  failures: [],
  properties: [{ name: 'invariant', value: 'a' }],
  systemOut: '',
  systemErr: '',
  suites: [],
});

test('each case is judged against its own outcome in the reverted run', () => {
  const registry = parseRegistry('version: 1\ninvariants:\n  - id: a\n    description: x\n', 'reg.yaml');
  const place = { root: '/', inSpec: () => true, exists: () => false };
  const judge = (head: ReturnType<typeof kase>[], reverted: ReturnType<typeof kase>[]) =>
    judgeStates(
      mapCases(head, registry, place).invariants,
      mapCases(reverted, registry, place).invariants,
      registry,
      new Date(),
      1,
    ).invariants[0];
  const states = (head: ReturnType<typeof kase>[], reverted: ReturnType<typeof kase>[]) =>
    judge(head, reverted).cases.map((c) => c.state);
  assert.equal(
    states(
      [kase('p', 'passed'), kase('f', 'passed'), kase('r', 'failed'), kase('q', 'error')],
      [kase('p', 'passed'), kase('f', 'failed'), kase('r', 'passed'), kase('q', 'failed')],
    ),
    ['holds', 'fixed', 'regressed', 'pending'],
  );
  // Skip is not pass: skipping on head only regresses, skipping in both is neutral, all skipped never passes.
  assert.is(
    judge([kase('s', 'skipped'), kase('p', 'passed')], [kase('s', 'failed'), kase('p', 'passed')]).state,
    'regressed',
  );
  assert.is(
    judge([kase('s', 'skipped'), kase('p', 'passed')], [kase('s', 'skipped'), kase('p', 'passed')]).state,
    'holds',
  );
  assert.is(judge([kase('s', 'skipped')], [kase('s', 'skipped')]).state, 'skipped');
  // A case that ran on revert and is missing on head fails; xfail is the failure it is.
  assert.is(judge([kase('p', 'passed')], [kase('p', 'passed'), kase('gone', 'passed')]).state, 'regressed');
  assert.is(judge([kase('x', 'skipped', 'pytest.xfail')], [kase('x', 'passed')]).state, 'regressed');
  assert.is(judge([kase('x', 'passed')], [kase('x', 'skipped', 'pytest.xfail')]).state, 'fixed');
});

test('a pending mark needs since, owner and reason; it holds for properties.pending_ttl and then refuses', () => {
  const row = (mark: string) => `version: 1\ninvariants:\n  - id: a\n    description: x\n    pending: ${mark}\n`;
  const r = parseRegistry(row('{since: 2026-12-01, owner: Dana, reason: the base fails it}'), 'reg.yaml');
  assert.equal(r.invariants[0].pending, { since: '2026-12-01', owner: 'Dana', reason: 'the base fails it', line: 5 });
  refused(
    row('{since: 2026-12-01, owner: Dana}'),
    /pending: must be \{since: YYYY-MM-DD, owner: NAME, reason: TEXT\}; reason is missing/,
    5,
  );
  refused(
    row('{since: 2026-02-30, owner: Dana, reason: r}'),
    /pending\.since: "2026-02-30" is not a date YYYY-MM-DD/,
    5,
  );
  refused(row('{since: 2026-12-01, owner: Dana, reason: r, by: me}'), /unknown key `by` in pending/, 5);
  const place = { root: '/', inSpec: () => true, exists: () => false };
  const red = mapCases([kase('f', 'failed')], r, place).invariants;
  const day = 86_400_000;
  const within = judgeStates(red, red, r, new Date('2026-12-20T00:00:00Z'), 90 * day);
  assert.equal([within.pending, within.refusals], [['a'], []]);
  const after = judgeStates(red, red, r, new Date('2027-03-02T00:00:00Z'), 90 * day);
  assert.match(after.refusals[0].message, /the pending mark on a \(since 2026-12-01, Dana\) expired on 2027-03-01/);
});

test('a case named by property and token at once counts once per id', () => {
  const c = {
    name: 'x [invariant:a] [invariant:b]',
    classname: '',
    status: 'passed' as const,
    failures: [],
    properties: [
      { name: 'invariant', value: 'a' },
      { name: 'other', value: 'c' },
    ],
    systemOut: '',
    systemErr: '',
    suites: [],
  };
  assert.equal(invariantIds(c), ['a', 'b']);
});

test("a libtest case names its invariant by a module of its path, `__` for each `.`; never by the test's own name", () => {
  const named = (name: string) => invariantIds({ ...kase(name, 'passed'), classname: 'unknown', properties: [] });
  assert.equal(named('invariant_bill__total_non_negative::sums'), ['bill.total_non_negative']);
  assert.equal(named('props::invariant_a::invariant_b::t'), ['a', 'b']);
  assert.equal(named('invariant_a'), []);
  assert.equal(named('props::invariant_a'), []);
  assert.equal(named('x_invariant_a::t'), []);
  assert.equal(named('TestX/invariant_a::t'), []);
});

test('only cases from spec files count: file attribute, dotted classname, or (node) no location at all', () => {
  const registry = parseRegistry('version: 1\ninvariants:\n  - id: a.one\n    description: x\n', 'reg.yaml');
  const files = new Set(['spec/properties/test_bill.py', 'tests/test_extra.py']);
  const place = { root: '/repo', inSpec: (f: string) => f.startsWith('spec/'), exists: (f: string) => files.has(f) };
  const kase = (name: string, classname: string, file?: string) => ({
    name,
    classname,
    file,
    status: 'passed' as const,
    failures: [],
    properties: [{ name: 'invariant', value: 'a.one' }],
    systemOut: '',
    systemErr: '',
    suites: [],
  });
  assert.is(caseFile(kase('t', 'spec.properties.test_bill'), place), 'spec/properties/test_bill.py');
  assert.is(
    caseFile(kase('t', 'spec.properties.test_bill.TestTotals'), place),
    'spec/properties/test_bill.py',
    'a class after the module',
  );
  assert.is(caseFile(kase('t', 'x', '/repo/spec/p.test.mjs'), place), 'spec/p.test.mjs');
  assert.is(caseFile(kase('t', 'x', './tests/test_extra.py'), place), 'tests/test_extra.py');
  assert.is(caseFile(kase('t', 'test'), place), null, "node's runner says nothing of the file");
  const cases = [
    kase('honest', 'spec.properties.test_bill'),
    kase('sneaky', 'tests.test_extra'),
    kase('abs', 'x', '/elsewhere/t.py'),
    kase('deep', 'sub.test_x'),
  ];
  const m = mapCases(cases, registry, place);
  assert.equal(
    m.invariants.map((i) => [i.id, i.status, i.cases]),
    [['a.one', 'passed', ['honest']]],
  );
  assert.equal(
    m.outside.map((o) => [o.name, o.file, o.placed]),
    [
      ['sneaky', 'tests/test_extra.py', true],
      ['abs', '../elsewhere/t.py', false],
      ['deep', 'sub/test_x.py', false],
    ],
  );
  const problems = headProblems(m, registry).join('\n');
  assert.match(
    problems,
    /test case "sneaky" in tests\/test_extra\.py names invariant a\.one, but tests\/test_extra\.py is outside the spec zone/,
  );
  assert.match(
    problems,
    /test case "deep" names invariant a\.one, but its report places it in sub\/test_x\.py, which is no file of the tree/,
  );
});

test('every corpus report: no case maps, so a property run of it is refused and a revert of it is revert_broken', async () => {
  if (!existsSync(CORPUS)) return skip(CORPUS_MISSING);
  const registry = parseRegistry('version: 1\ninvariants:\n  - id: some.invariant\n    description: x\n', 'reg.yaml');
  let read = 0;
  for (const dir of readdirSync(CORPUS, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(path.join(CORPUS, dir.name)).filter((f) => f.endsWith('.xml'))) {
      let report;
      try {
        report = await readReport(path.join(CORPUS, dir.name, f));
      } catch (err) {
        assert.instance(err, CannotJudge, `${dir.name}/${f}`);
        continue;
      }
      read++;
      const m = mapCases(report.cases, registry, { root: '/', inSpec: () => true, exists: () => false });
      assert.is(m.mapped, 0, `${dir.name}/${f}`);
      const problem = headProblems(m, registry)[0];
      assert.match(problem, /no property test case maps to an invariant id/);
      // How the runner named a case, so a runner that names cases by function (Surefire's default) shows it.
      if (!m.strays.length && report.cases.length)
        assert.ok(
          problem.includes(`the report names a case ${JSON.stringify(m.unnamed)}`),
          `${dir.name}/${f}: ${problem}`,
        );
    }
  }
  assert.ok(read > 50, `read ${read} corpus reports`);
});

test('a JVM classname (Surefire, Gradle) is the source file of its class: in spec it counts, anywhere else it is refused', () => {
  const reg = parseRegistry('version: 1\ninvariants:\n  - id: bill.total\n    description: x\n', 'r.yaml');
  const kase = (classname: string) => ({
    name: 'a total is never negative [invariant:bill.total]',
    classname,
    status: 'passed' as const,
    failures: [],
    properties: [],
    systemOut: '',
    systemErr: '',
    suites: [],
  });
  const place = (files: string[]) => ({
    root: '/r',
    inSpec: (f: string) => f.startsWith('spec/'),
    exists: () => false,
    locate: (suffix: string) => files.filter((f) => f.endsWith(`/${suffix}`)),
  });
  const inSpec = place(['spec/java/shop/BillTest.java', 'src/main/java/shop/Bill.java']);
  assert.is(mapCases([kase('shop.BillTest')], reg, inSpec).mapped, 1);
  assert.is(mapCases([kase('shop.BillTest$Totals')], reg, inSpec).mapped, 1);
  // The same class under src/test too: which one ran cannot be told, so it is refused.
  const twice = mapCases(
    [kase('shop.BillTest')],
    reg,
    place(['spec/java/shop/BillTest.java', 'src/test/java/shop/BillTest.java']),
  );
  assert.equal(
    twice.outside.map((o) => o.file),
    ['src/test/java/shop/BillTest.java'],
  );
  assert.equal(mapCases([kase('shop.BillTest')], reg, place(['src/test/kotlin/shop/BillTest.kt'])).outside.length, 1);
});

test.run();
