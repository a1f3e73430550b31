// The Python runtime guard under pytest-xdist: each worker is an interpreter
// of its own, started by xdist (execnet), and loads the guard through the
// same PYTHONPATH. The static layer is off, so only the guard stands between
// each attack and a green revert check; an honest fix distributed over two
// workers must pass with the guard on. Real pytest with real workers, real git.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { ciInstalls, testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, FIXED_PY, GC_SWAP_PY, project, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';

/** The first interpreter here with both pytest and pytest-xdist. */
const python = ['python3', '/usr/bin/python3'].find((py) => spawnSync(py, ['-c', 'import pytest, xdist']).status === 0);
const xdist = testUnless(
  python ? null : ciInstalls('no python3 here has both pytest and pytest-xdist (Debian: python3-pytest-xdist)'),
);

const COMMAND = `PYTHONDONTWRITEBYTECODE=1 ${python} -m pytest -q -p no:cacheprovider -n 2 spec/properties --junitxml={junit}`;

// Several cases, so both workers get some.
const PROPERTY = `import pytest
from bill import total


@pytest.mark.parametrize("xs", [[], [1, 2], [0, 5], [3], [4, 4], [9, 1]])
def test_total_non_negative(record_property, xs):
    record_property("invariant", "${ID}")
    assert total(xs) >= 0
`;

const baseFiles = () => ({
  '.patchwarden.yml': config(COMMAND, 'tamper:\n  mode: off\n'),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': PROPERTY,
  'src/bill.py': BUGGY_PY,
});

test.after.each(cleanup);

function revertCheck(patch: Record<string, string>) {
  const { repo, base, head } = project(baseFiles(), patch);
  return repo.json(['revert-check', '--base', base, '--head', head]);
}

xdist('an honest fix run on two xdist workers passes with the guard in each', () => {
  const r = revertCheck({ 'src/bill.py': FIXED_PY });
  assert.is(r.code, 0, `${r.stderr}\n${JSON.stringify(r.out)}`);
  assert.is(r.out.status, 'describes_patch', r.out.reason);
});

xdist('the test function swapped through gc inside a worker: refused, naming the event and the line', () => {
  const r = revertCheck({ 'src/bill.py': GC_SWAP_PY });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.out.reason, /runtime guard: gc\.get_objects at src\/bill\.py:8/);
});

xdist('a worker that leaves through os._exit before the session ends: refused, the run failed closed', () => {
  const r = revertCheck({
    'src/bill.py': `import os


def total(xs):
    if sum(xs) - 1 < 0:
        os._exit(0)
    return sum(xs) - 1
`,
  });
  assert.is(r.code, 1, r.stderr);
  assert.match(r.out.reason, /the python process \d+ ended without the guard's final record/);
});

test.run();
