// doctor warns when nothing the properties read names $PROP_SEED: the gate's
// fresh seed would then change no input. The look is by name: the command, a
// spec file, or a runner config file (conftest.py, pytest.ini, ...); a
// sealed command needs none (its runtime seeds Hypothesis and fast-check).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { sample } from '../gate/sample.js';

test.after.each(cleanup);
const py = testUnless(pytestMissing);

const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider spec --junitxml={junit}';
const REGISTRY = 'version: 1\ninvariants:\n  - id: n.ok\n    description: holds\n';
const PROPERTY = (seed: string) =>
  `import os, random\n\n\ndef test_n(record_property):\n    record_property("invariant", "n.ok")\n    rng = random.Random(${seed})\n    assert rng.randint(0, 9) >= 0\n`;

const seedCheck = (out: Record<string, any>) => out.checks.find((c: { check: string }) => c.check === 'prop-seed');

py(
  'doctor: a property command that never names PROP_SEED is a warning; a spec file, conftest.py or the command naming it is not',
  () => {
    const repo = sample(`version: 1\nproperties:\n  command: ${PYTEST}\n`, {
      'spec/invariants.yaml': REGISTRY,
      'spec/test_n.py': PROPERTY('0'),
    });
    let f = seedCheck(repo.json(['doctor']).out);
    assert.equal([f.ok, f.warn], [true, true]);
    assert.match(f.detail, /^neither properties\.command nor a spec or runner config file names \$PROP_SEED/);
    assert.match(f.detail, /--hypothesis-seed=\$PROP_SEED/);
    // The property seeds its generator from the variable.
    repo.write('spec/test_n.py', PROPERTY('int(os.environ["PROP_SEED"])'));
    f = seedCheck(repo.json(['doctor']).out);
    assert.equal([f.ok, f.warn], [true, undefined]);
    assert.is(f.detail, 'spec/test_n.py reads $PROP_SEED (seen by name only)');
    // A conftest.py outside the spec zone that seeds the run counts too.
    repo.write('spec/test_n.py', PROPERTY('0'));
    repo.write('conftest.py', 'import os, random\nrandom.seed(int(os.environ["PROP_SEED"]))\n');
    f = seedCheck(repo.json(['doctor']).out);
    assert.is(f.detail, 'conftest.py reads $PROP_SEED (seen by name only)');
    // And the command itself.
    repo.write('conftest.py', '');
    repo.write('.patchwarden.yml', `version: 1\nproperties:\n  command: env SEED=$PROP_SEED ${PYTEST}\n`);
    f = seedCheck(repo.json(['doctor']).out);
    assert.is(f.detail, 'properties.command passes $PROP_SEED to the properties');
    // A sealed command names nothing: its runtime hands the seed to Hypothesis and fast-check, so no warning.
    repo.write('.patchwarden.yml', `version: 1\nproperties:\n  command: ${PYTEST}\n  sealed: process\n`);
    f = seedCheck(repo.json(['doctor']).out);
    assert.equal([f.ok, f.warn], [true, undefined]);
    assert.match(
      f.detail,
      /^properties\.sealed is process: the sealed runtime hands \$PROP_SEED to Hypothesis and fast-check itself/,
    );
  },
);

test.run();
