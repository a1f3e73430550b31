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
import { caseFile, headProblems, invariantIds, mapCases, revertOutcome } from '../../src/properties/mapping.js';
import { parseRegistry } from '../../src/properties/registry.js';
import { sh } from '../helpers/repo.js';
import { pytestMissing, skip, testUnless } from '../helpers/skip.js';
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
  const r = parseRegistry('version: 1\ninvariants:\n  - id: bill.total_non_negative\n    description: totals never go negative\n  - id: parse/roundtrip:v2\n    description: parse(show(x)) == x\n', 'spec/invariants.yaml');
  assert.equal(r.invariants.map((i) => i.id), ['bill.total_non_negative', 'parse/roundtrip:v2']);
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
  refused('version: 1\ninvariants:\n  - id: a\n    description: x\n  - id: a\n    description: y\n', /listed twice \(first on line 3\)/, 5);
  refused('version: 1\ninvariants:\n  - id: a\n    description: x\n    owner: me\n', /unknown key `owner`/, 5);
  refused('version: 1\nrules: []\n', /unknown key `rules`/, 2);
  refused('version: 1\nversion: 1\ninvariants: []\n', /not valid YAML|unique/i);
  refused('- just\n- a list\n', /must be a mapping/);
  refused('version: 1\ninvariants:\n  - id: 12\n    description: x\n', /id: must be a non-empty string/);
});

test('an alias bomb is refused, not expanded', () => {
  const bomb = ['version: 1', 'a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'invariants: [*c]'].join('\n');
  refused(bomb, /unknown key `a`/);
  refused('version: 1\ninvariants:\n  - &x {id: a, description: b}\n  - *x\n', /must be a mapping/);
});

const tmp = mkdtempSync(path.join(tmpdir(), 'pw-registry-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

testUnless(pytestMissing)('pytest record_property and [invariant:ID] ids map; unknown ids and unmapped failures are named', async () => {
  writeFileSync(path.join(tmp, 'test_p.py'), [
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
  ].join('\n') + '\n');
  const xml = path.join(tmp, 'r.xml');
  sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${xml}`, 'test_p.py'], { cwd: tmp, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  const report = await readReport(xml);
  const registry = parseRegistry('version: 1\ninvariants:\n  - id: a.one\n    description: x\n  - id: a.two\n    description: y\n  - id: a.three\n    description: z\n', 'reg.yaml');
  const m = mapCases(report.cases, registry, { root: tmp, inSpec: () => true, exists: () => false });
  assert.equal(m.invariants.map((i) => [i.id, i.status]), [['a.one', 'passed'], ['a.two', 'failed'], ['a.three', 'missing']]);
  assert.equal(m.unregistered.map((u) => u.id), ['z.unknown']);
  assert.equal(m.strays.map((s) => s.name), ['test_plain']);
  const problems = headProblems(m, registry).join('\n');
  assert.match(problems, /fail on the patched tree: a\.two/);
  assert.match(problems, /exercised by no test case: a\.three/);
  assert.match(problems, /names invariant z\.unknown, which reg\.yaml does not register/);
  assert.match(problems, /outside any invariant did not pass: test_plain/);
  assert.is(revertOutcome(m).status, 'describes_patch');
  assert.equal(revertOutcome(m).failing, ['a.two']);
});

test('a case named by property and token at once counts once per id', () => {
  const c = { name: 'x [invariant:a] [invariant:b]', classname: '', status: 'passed' as const, failures: [], properties: [{ name: 'invariant', value: 'a' }, { name: 'other', value: 'c' }], systemOut: '', systemErr: '', suites: [] };
  assert.equal(invariantIds(c), ['a', 'b']);
});

test('only cases from spec files count: file attribute, dotted classname, or (node) no location at all', () => {
  const registry = parseRegistry('version: 1\ninvariants:\n  - id: a.one\n    description: x\n', 'reg.yaml');
  const files = new Set(['spec/properties/test_bill.py', 'tests/test_extra.py']);
  const place = { root: '/repo', inSpec: (f: string) => f.startsWith('spec/'), exists: (f: string) => files.has(f) };
  const kase = (name: string, classname: string, file?: string) => ({ name, classname, file, status: 'passed' as const, failures: [], properties: [{ name: 'invariant', value: 'a.one' }], systemOut: '', systemErr: '', suites: [] });
  assert.is(caseFile(kase('t', 'spec.properties.test_bill'), place), 'spec/properties/test_bill.py');
  assert.is(caseFile(kase('t', 'spec.properties.test_bill.TestTotals'), place), 'spec/properties/test_bill.py', 'a class after the module');
  assert.is(caseFile(kase('t', 'x', '/repo/spec/p.test.mjs'), place), 'spec/p.test.mjs');
  assert.is(caseFile(kase('t', 'x', './tests/test_extra.py'), place), 'tests/test_extra.py');
  assert.is(caseFile(kase('t', 'test'), place), null, "node's runner says nothing of the file");
  const cases = [kase('honest', 'spec.properties.test_bill'), kase('sneaky', 'tests.test_extra'), kase('abs', 'x', '/elsewhere/t.py'), kase('deep', 'sub.test_x')];
  const m = mapCases(cases, registry, place);
  assert.equal(m.invariants.map((i) => [i.id, i.status, i.cases]), [['a.one', 'passed', ['honest']]]);
  assert.equal(m.outside.map((o) => [o.name, o.file, o.placed]), [['sneaky', 'tests/test_extra.py', true], ['abs', '../elsewhere/t.py', false], ['deep', 'sub/test_x.py', false]]);
  const problems = headProblems(m, registry).join('\n');
  assert.match(problems, /test case "sneaky" in tests\/test_extra\.py names invariant a\.one, but tests\/test_extra\.py is outside the spec zone/);
  assert.match(problems, /test case "deep" names invariant a\.one, but its report places it in sub\/test_x\.py, which is no file of the tree/);
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
      assert.match(headProblems(m, registry)[0], /no property test case maps to an invariant id/);
      assert.is(revertOutcome(m).status, 'revert_broken');
    }
  }
  assert.ok(read > 50, `read ${read} corpus reports`);
});

test.run();
