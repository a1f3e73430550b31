// A fresh seed must not make the gate flaky: a case the gate's fresh seed
// fails on both sides, while head passes it under the pinned seed, is a
// finding about the base, reported with the seed and the row edit that marks
// it pending, and never a refusal of an unrelated change. A change that
// breaks the same invariant under the pinned seed is still refused. Real
// pytest, real git, the real gate.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

test.after.each(cleanup);
const py = testUnless(pytestMissing);

const KEY = 'ci-secret-base-finding';
const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider spec --junitxml={junit}';

/** The one input the property draws under the pinned seed. */
const PINNED_X = Number(sh('python3', ['-c', 'import random; print(random.Random(0).randint(0, 10**6))']).stdout);

/** Right for the pinned seed's input only: every other seed finds the bug. */
const CALC = `def double(x):\n    return 2 * x if x == ${PINNED_X} else 2 * x + 1\n`;
const GREET_BUGGY = 'def greet(name):\n    return "hi " + name\n';
const GREET_FIXED = 'def greet(name):\n    return "Hello, " + name\n';

function project(revert: string): TempRepo {
  const repo = tempRepo({ env: { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' } });
  repo.commit(
    {
      '.patchwarden.yml': `version: 1\nproperties:\n  command: ${PYTEST}\nrevert:\n${revert}tamper:\n  mode: off\n`,
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'spec/invariants.yaml': [
        'version: 1',
        'invariants:',
        '  - id: double.exact',
        '    description: double is twice its input',
        '  - id: greet.polite',
        '    description: a greeting says hello',
        '    pending: {since: 2026-12-01, owner: qa-team, reason: greets with hi}',
        '',
      ].join('\n'),
      'spec/test_double.py': [
        'import os, random',
        'from calc import double',
        '',
        '',
        'def test_double(record_property):',
        '    record_property("invariant", "double.exact")',
        '    x = random.Random(int(os.environ["PROP_SEED"])).randint(0, 10**6)',
        '    assert double(x) == 2 * x, x',
        '',
      ].join('\n'),
      'spec/test_greet.py':
        'from greet import greet\n\n\ndef test_greet(record_property):\n    record_property("invariant", "greet.polite")\n    assert greet("Ada").startswith("Hello")\n',
      'src/calc.py': CALC,
      'src/greet.py': GREET_BUGGY,
    },
    'base',
  );
  repo.git(['checkout', '-q', '-b', 'topic']);
  return repo;
}

function gate(repo: TempRepo) {
  const r = repo.json(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } });
  return { ...r, layers: Object.fromEntries(r.out.layers.map((l: { layer: string }) => [l.layer, l])) as any };
}

py('a base counterexample a fresh seed finds is reported with the row edit, and the unrelated fix passes', () => {
  // Both runs at once: the head run's failure must not stop the base run early under a fresh seed.
  const repo = project('  jobs: 2\n');
  repo.commit({ 'src/greet.py': GREET_FIXED }, 'say hello');
  const r = gate(repo);
  const { properties, revert } = r.layers;
  assert.is(r.code, 0, JSON.stringify(r.out.layers, null, 1));
  assert.is(revert.details.status, 'describes_patch');
  assert.equal(revert.details.failing_on_revert, ['greet.polite']);
  const seed = properties.details.seed.value;
  assert.is.not(seed, '0');
  const found = properties.details.found;
  assert.equal(found.invariants, ['double.exact']);
  assert.is(found.seed, seed);
  assert.is(found.pinned, '0');
  assert.equal(found.cases, ['test_double']);
  assert.match(found.fix, /- id: double\.exact/);
  assert.match(found.fix, /pending: \{since: 2026-12-02, owner: NAME, reason: WHY THE BASE FAILS IT\}/);
  assert.match(
    properties.summary,
    new RegExp(`failing on the base under PROP_SEED=${seed} \\(a finding\\): double\\.exact`),
  );
  const text = repo.pw(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } });
  assert.is(text.code, 0, text.stdout);
  assert.ok(
    text.stdout.includes(
      `note: a finding about the base, not a refusal of this change: under PROP_SEED=${seed} double.exact fails`,
    ),
    text.stdout,
  );
  assert.match(text.stdout, /pending: \{since: 2026-12-02, owner: NAME/);
});

py('a change that fails the invariant on head under the pinned seed too is still refused (in place)', () => {
  // In place, the head run under the pinned seed needs the production diff put back after the reverted run.
  const repo = project('  mode: in-place\n');
  repo.commit({ 'src/greet.py': GREET_FIXED, 'src/calc.py': 'def double(x):\n    return 2 * x + 1\n' }, 'both');
  const r = gate(repo);
  const { properties } = r.layers;
  assert.is(r.code, 1);
  assert.is(properties.status, 'refused', JSON.stringify(properties));
  assert.is(properties.details.status, 'pending_unmarked');
  assert.is(properties.details.found, null);
  assert.match(properties.violations[0].message, /the base itself fails double\.exact/);
  assert.match(properties.violations[0].message, /PROP_SEED=\d+ \(derived from PATCHWARDEN_SEED_KEY/);
  assert.match(r.stderr, /running the properties on head under the pinned seed \(PROP_SEED=0\)/);
  // The working tree is as it was.
  assert.is(repo.git(['status', '--porcelain']).stdout, '');
});

test.run();
