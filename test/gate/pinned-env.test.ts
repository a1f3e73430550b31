// Pinned runs: the property run and the suite see TZ=UTC, a C.UTF-8 locale,
// PYTHONHASHSEED=0 and the seed variable whatever the caller's environment
// holds, and the gate's JSON records what they got; runner.env changes them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { gate, sample } from './sample.js';

test.after.each(cleanup);
const t = testUnless(pytestMissing);

const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider';
const ENV_CHECK = (invariant: string) =>
  [
    'import os, subprocess, sys',
    `def test_env(record_property):`,
    invariant ? `    record_property('invariant', '${invariant}')` : '    pass',
    '    got = {k: os.environ.get(k) for k in ("TZ", "LANG", "LC_ALL", "PYTHONHASHSEED", "PROP_SEED")}',
    '    assert got == dict(WANT), got',
    '    # the hash seed holds for the interpreters the run starts, too',
    '    h = [subprocess.run([sys.executable, "-c", "print(hash(\'patchwarden\'))"], capture_output=True, text=True).stdout for _ in range(2)]',
    '    assert h[0] == h[1]',
    '',
  ].join('\n');

t(
  "a property run and the suite see the pinned TZ, locale and hash seed, not the caller's; recorded in the gate's JSON",
  () => {
    const want = '{"TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0", "PROP_SEED": "0"}';
    const repo = sample(
      `version: 1\nproperties:\n  command: ${PYTEST} spec --junitxml={junit}\nsuite:\n  command: ${PYTEST} tests --junitxml={junit}\n`,
      {
        'spec/invariants.yaml': 'version: 1\ninvariants:\n  - id: env.pinned\n    description: runs are pinned\n',
        'spec/test_env.py': ENV_CHECK('env.pinned').replace('WANT', want),
        'tests/test_env.py': ENV_CHECK('').replace('WANT', want),
      },
    );
    repo.commit({ 'README.md': 'docs only\n' }, 'docs');
    const caller = {
      TZ: 'America/New_York',
      LANG: 'de_DE.UTF-8',
      LC_ALL: 'de_DE.UTF-8',
      PYTHONHASHSEED: 'random',
      PROP_SEED: '99',
    };
    const r = repo.json(['gate', '--base', 'main'], { env: caller });
    const layers = Object.fromEntries(r.out.layers.map((l: { layer: string }) => [l.layer, l]));
    assert.is(layers.properties.status, 'pass', JSON.stringify(layers.properties));
    assert.is(layers.suite.status, 'pass', JSON.stringify(layers.suite));
    // GOFLAGS gets -count=1 so that go never replays a cached result.
    assert.equal(layers.suite.details.env, { ...JSON.parse(want), GOFLAGS: '-count=1' });
    // runner.env changes a variable (and null leaves the caller's): the same property now fails on TZ.
    repo.git(['checkout', '-q', 'main']);
    repo.commit(
      {
        '.patchwarden.yml': `version: 1\nproperties:\n  command: ${PYTEST} spec --junitxml={junit}\nrunner:\n  env:\n    TZ: Europe/Paris\n`,
      },
      'runner env',
    );
    repo.git(['checkout', '-q', 'topic']);
    const changed = gate(repo);
    assert.is(changed.layers.properties.status, 'refused');
    assert.match(changed.layers.properties.violations[0].message, /env\.pinned/);
    assert.equal(changed.layers.properties.details!.env.TZ, 'Europe/Paris');
  },
);

test.run();
