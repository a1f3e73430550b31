// A failing Hypothesis property under the runtime guard: before Python 3.12
// Hypothesis's line tracer (its explain phase) read a frame per traced line,
// each an audit event the guard judged, which made the run about six times
// slower. The guard's pytest plugin turns that tracing off; the failure, its
// minimal example and the verdict stay as without the guard.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo } from '../helpers/repo.js';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';
import { config, registry } from './projects.js';

const hypothesisMissing = missingUnless(
  'python3',
  ['-c', 'import sys, hypothesis; sys.exit(sys.version_info >= (3, 12))'],
  ciInstalls('python3 with Hypothesis, before Python 3.12 (where it traces with sys.monitoring), is not installed'),
);

const COMMAND = 'PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml={junit}';
const PROPERTY = `from hypothesis import HealthCheck, given, settings, strategies as st
from bill import srt


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(), max_size=30))
def test_sorted(record_property, xs):
    record_property("invariant", "bill.sorted")
    ys = srt(xs)
    assert all(a <= b for a, b in zip(ys, ys[1:]))
`;

testUnless(hypothesisMissing)(
  'a failing Hypothesis property: same minimal example, no guard finding, no line tracing',
  () => {
    const repo = tempRepo();
    repo.git(['config', 'user.email', 'dev@example.com']);
    repo.git(['config', 'user.name', 'dev']);
    const base = repo.commit({
      '.patchwarden.yml': config(COMMAND),
      'spec/invariants.yaml': registry('bill.sorted'),
      'spec/properties/conftest.py':
        'import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))\n',
      'spec/properties/test_sorted.py': PROPERTY,
      'src/bill.py': 'def srt(xs):\n    return sorted(xs)\n',
    });
    const head = repo.commit({
      'src/bill.py':
        'def srt(xs):\n    ys = sorted(xs)\n    if len(ys) > 3 and ys[-1] > 10:\n        ys[0], ys[-1] = ys[-1], ys[0]\n    return ys\n',
    });
    const plain = sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'spec/properties'], {
      cwd: repo.dir,
      env: repo.env,
    });
    assert.is(plain.code, 1, plain.stdout);
    assert.match(plain.stdout, /Explanation:/);
    const example = /Falsifying example: test_sorted\([\s\S]*?xs=(\[[^\]]*\])/.exec(plain.stdout)?.[1];
    assert.ok(example, plain.stdout);

    const r = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(r.code, 1, r.stderr);
    assert.is(r.out.status, 'regressed', r.out.reason);
    assert.not.match(r.out.reason, /runtime guard/);
    assert.match(r.stderr, new RegExp(`xs=${example.replace(/[[\]]/g, '\\$&')}`));
    assert.not.match(r.stderr, /Explanation:/);
  },
);

test.after(cleanup);
test.run();
