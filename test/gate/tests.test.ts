// `patchwarden gate` layers that run tests, with real pytest: the property
// run with the registry, the revert check, and the suite against freezes.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { gate, row, sample } from './sample.js';

const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider';
const CONFIG = `version: 1
properties:
  command: ${PYTEST} spec/properties --junitxml={junit}
suite:
  command: ${PYTEST} tests --junitxml={junit}
`;
const BUGGY = 'def total(xs):\n    return -1 if xs else 0\n';
const FIXED = 'def total(xs):\n    return sum(xs)\n';
const PROJECT = {
  'spec/invariants.yaml':
    'version: 1\ninvariants:\n  - id: bill.total_non_negative\n    description: totals never go negative\n',
  'spec/properties/test_bill.py': [
    'import os, sys',
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'src'))",
    'from bill import total',
    'def test_total_non_negative(record_property):',
    "    record_property('invariant', 'bill.total_non_negative')",
    '    for xs in ([], [1], [2, 3]):',
    '        assert total(xs) >= 0',
    '',
  ].join('\n'),
  'tests/test_app.py': 'def test_ok():\n    assert True\n',
  'src/bill.py': BUGGY,
};

test.after.each(cleanup);

const t = testUnless(pytestMissing);

t('properties and revert pass when the patch is what makes the invariant hold', () => {
  const repo = sample(CONFIG, PROJECT);
  repo.commit({ 'src/bill.py': FIXED }, 'fix totals');
  const r = gate(repo);
  assert.is(r.layers.properties.status, 'pass', r.layers.properties.summary);
  assert.is(r.layers.revert.status, 'pass', r.layers.revert.summary);
  assert.match(r.layers.revert.summary, 'describes_patch');
  assert.is(r.layers.suite.status, 'pass', r.layers.suite.summary);
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.is(r.out.ok, true);
});

t('revert: a property that stays green without the patch is refused', () => {
  const repo = sample(CONFIG, { ...PROJECT, 'src/bill.py': FIXED });
  repo.commit({ 'src/bill.py': `${FIXED}\nROUNDING = 2\n` }, 'an unused constant');
  const r = gate(repo);
  assert.is(r.layers.properties.status, 'pass');
  assert.is(r.layers.revert.status, 'refused');
  assert.match(r.layers.revert.summary, 'does_not_describe');
  assert.is(r.code, 1);
});

t('properties: an invariant failing on head is refused', () => {
  const repo = sample(CONFIG, { ...PROJECT, 'src/bill.py': FIXED });
  repo.commit({ 'src/bill.py': BUGGY }, 'break totals');
  const r = gate(repo);
  assert.is(r.layers.properties.status, 'refused');
  assert.match(r.layers.properties.violations[0].message, 'bill.total_non_negative');
  assert.is(r.code, 1);
});

t('properties and revert are skipped without properties.command, with a reason', () => {
  const repo = sample('version: 1\n');
  repo.commit({ 'src/app.js': 'x\n' }, 'code');
  const r = gate(repo);
  assert.is(r.layers.properties.status, 'skipped');
  assert.is(r.layers.revert.status, 'skipped');
  assert.match(r.layers.properties.summary, 'properties.command is not set');
  assert.is(r.layers.suite.status, 'skipped');
  assert.is(r.code, 0);
});

t('suite: a failure frozen by the base ledger passes; a new failure is refused', () => {
  // A call named in the assertion makes the failure distinctive (signatures v2): a bare `assert 1 == 2` could never be frozen.
  const failing = 'def skew():\n    return 1\n\n\ndef test_clock():\n    assert skew() == 2, "clock skew"\n';
  const config = `version: 1\nsuite:\n  command: ${PYTEST} tests --junitxml={junit}\n`;
  const repo = sample(config, { 'tests/test_clock.py': failing });
  // The failure's signature, as the signatures command computes it.
  repo.git(['checkout', '-q', 'main']);
  const run = spawnSync('sh', ['-c', `${PYTEST} tests --junitxml=report.xml`], { cwd: repo.dir });
  assert.is(run.status, 1);
  const sig = repo.json(['signatures', 'report.xml']).out.failures[0].sig as string;
  repo.commit(
    { 'freeze/signatures.yaml': `version: 1\nrecords:\n${row(sig, '    last_name: test_clock\n')}` },
    'freeze the clock failure',
  );
  repo.git(['checkout', '-q', 'topic']);
  repo.git(['reset', '-q', '--hard', 'main']);
  repo.commit({ 'src/app.js': 'x\n' }, 'code');
  let r = gate(repo);
  assert.is(r.layers.suite.status, 'pass', JSON.stringify(r.layers.suite));
  assert.equal(
    r.layers.suite.details!.failures.map((f: any) => f.action),
    ['frozen'],
  );

  repo.commit(
    { 'tests/test_tax.py': 'def test_tax():\n    raise LookupError("no tax table")\n' },
    'a new failing test',
  );
  r = gate(repo);
  assert.is(r.layers.suite.status, 'refused');
  const actions = r.layers.suite.details!.failures.map((f: any) => `${f.name}:${f.action}`).sort();
  assert.is(actions[0], 'test_clock:frozen');
  assert.match(actions[1], /^test_tax:(new|ineligible)$/);
  assert.is(r.code, 1);
});

t('suite: a command that writes no report cannot be judged (exit 2)', () => {
  const repo = sample('version: 1\nsuite:\n  command: "true"\n');
  repo.commit({ 'src/app.js': 'x\n' }, 'code');
  const r = gate(repo);
  assert.is(r.layers.suite.status, 'error');
  assert.match(r.layers.suite.summary, 'without writing its JUnit report');
  assert.is(r.code, 2);
});

test.run();
