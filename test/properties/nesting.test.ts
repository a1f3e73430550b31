// Parent cases folded into the invariants their children name, on reports in
// the shapes go (gotestsum), Surefire (a class hook's nameless case) and a
// suite-level failure take; and no case of the shared corpus (where none
// names an invariant) is ever folded away.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseReport } from '../../src/junit/parse.js';
import { headProblems, invariantIds, mapCases } from '../../src/properties/mapping.js';
import { foldParents } from '../../src/properties/nesting.js';
import { parseRegistry } from '../../src/properties/registry.js';
import { testUnless } from '../helpers/skip.js';
import { CORPUS, CORPUS_MISSING, corpus } from '../junit/corpus.js';

const registry = parseRegistry(
  'version: 1\ninvariants:\n  - id: a.one\n    description: x\n  - id: a.two\n    description: y\n',
  'spec/invariants.yaml',
);
const place = { root: '/r', inSpec: () => true, exists: () => false };
const FAIL = '<failure message="Failed">boom</failure>';

/** A gotestsum report of TestX with two subtests; each entry: the case's name and whether it fails. */
function goReport(cases: [string, boolean][]): string {
  const rows = cases
    .map(([n, f]) => `<testcase classname="example.com/m/spec" name="${n}">${f ? FAIL : ''}</testcase>`)
    .join('');
  return `<testsuites><testsuite name="example.com/m/spec">${rows}</testsuite></testsuites>`;
}
const mapped = (xml: string) => mapCases(parseReport(xml, 'r.xml').cases, registry, place);
const statuses = (xml: string) => mapped(xml).invariants.map((i) => [i.id, i.status]);

test('go: a parent failing beside its failing subtest is its children, not a stray', () => {
  const xml = goReport([
    ['TestX/[invariant:a.one]', true],
    ['TestX/[invariant:a.two]', false],
    ['TestX', true],
  ]);
  const m = mapped(xml);
  assert.equal(m.strays, []);
  assert.equal(headProblems(m, registry), []);
  assert.equal(statuses(xml), [
    ['a.one', 'failed'],
    ['a.two', 'passed'],
  ]);
});

test('go: a parent failing while every subtest passes fails each of their invariants', () => {
  const xml = goReport([
    ['TestX/[invariant:a.one]', false],
    ['TestX/[invariant:a.two]', false],
    ['TestX', true],
  ]);
  assert.equal(statuses(xml), [
    ['a.one', 'failed'],
    ['a.two', 'failed'],
  ]);
  const folded = foldParents(parseReport(xml, 'r.xml').cases, (c) => invariantIds(c).length > 0);
  assert.match(folded[0].failures[0].message, /its parent case "TestX" failed while it passed: Failed/);
});

test('go: an intermediate subtest that names nothing folds too; a failing one is its own children', () => {
  const xml = goReport([
    ['TestX/group/[invariant:a.one]', false],
    ['TestX/group/[invariant:a.two]', false],
    ['TestX/other/[invariant:a.two]', false],
    ['TestX/group', true],
    ['TestX/other', false],
    ['TestX', true],
  ]);
  const cases = foldParents(parseReport(xml, 'r.xml').cases, (c) => invariantIds(c).length > 0);
  assert.equal(
    cases.map((c) => [c.name, c.status]),
    [
      ['TestX/group/[invariant:a.one]', 'failed'],
      ['TestX/group/[invariant:a.two]', 'failed'],
      ['TestX/other/[invariant:a.two]', 'passed'],
    ],
  );
});

test('go: a parent with a subtest outside every invariant stays, and fails as a stray', () => {
  const xml = goReport([
    ['TestX/[invariant:a.one]', false],
    ['TestX/helper', false],
    ['TestX', true],
  ]);
  assert.equal(
    mapped(xml).strays.map((s) => s.name),
    ['TestX'],
  );
  // A test of the same prefix but no subtest of it (TestXY) is no child.
  const apart = goReport([
    ['TestX/[invariant:a.one]', false],
    ['TestXY', true],
  ]);
  assert.equal(
    mapped(apart).strays.map((s) => s.name),
    ['TestXY'],
  );
});

test('surefire: a nameless case of a class (an @AfterAll failure) fails the invariants of its class and nested classes', () => {
  const xml = `<testsuite name="p.BillTest">
    <testcase name="total [invariant:a.one]" classname="p.BillTest"/>
    <testcase name="count [invariant:a.two]" classname="p.BillTest$Nested"/>
    <testcase name="" classname="p.BillTest"><failure message="afterAll failed"/></testcase>
  </testsuite>`;
  assert.equal(statuses(xml), [
    ['a.one', 'failed'],
    ['a.two', 'failed'],
  ]);
  assert.equal(mapped(xml).strays, []);
});

test('a suite-level failure fails the invariants of the cases in that suite', () => {
  const xml = `<testsuites><testsuite name="root">
    <testsuite name="bill">${FAIL}<testcase name="total [invariant:a.one]" classname="test"/></testsuite>
    <testcase name="count [invariant:a.two]" classname="test"/>
  </testsuite></testsuites>`;
  assert.equal(statuses(xml), [
    ['a.one', 'failed'],
    ['a.two', 'passed'],
  ]);
});

testUnless(corpus() === null ? CORPUS_MISSING : null)('no case of the corpus is folded away', () => {
  for (const e of corpus()!) {
    if (e.file.includes('corrupt')) continue;
    let cases;
    try {
      cases = parseReport(readFileSync(path.join(CORPUS, e.file)), e.file).cases;
    } catch {
      continue; // reports the parser refuses are the parser's tests
    }
    assert.is(foldParents(cases, (c) => invariantIds(c).length > 0).length, cases.length, e.file);
  }
});

test.run();
