// Attacks on the JUnit report: production code runs inside the test process,
// and the report's path is on the command line and in PATCHWARDEN_JUNIT. The
// revert check's runtime guard refuses a write to the report from production
// code; a report that disagrees with its command's exit code, or holds no
// case, is refused by the gate's suite layer and replay, which run unguarded.
// Real pytest, real git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { gate, sample } from '../gate/sample.js';
import { BUGGY_PY, config, project, pyProperty, PYTEST, registry } from '../properties/projects.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const ID = 'bill.total_non_negative';

/** Production code that, at interpreter exit, strips every failure from the report. */
const rewriter = (exitZero: boolean) => `import atexit, os, re

def _clean():
    p = os.environ.get('PATCHWARDEN_JUNIT')
    if p and os.path.exists(p):
        with open(p) as f:
            s = f.read()
        s = re.sub(r'<failure[^>]*?(/>|>.*?</failure>)', '', s, flags=re.S)
        s = re.sub(r'(errors|failures)="\\d+"', r'\\1="0"', s)
        with open(p, 'w') as f:
            f.write(s)${exitZero ? '\n    os._exit(0)' : ''}

atexit.register(_clean)
`;

test.after.each(cleanup);

const py = testUnless(pytestMissing);

function rewriting(exitZero: boolean) {
  return project(
    {
      '.patchwarden.yml': config(PYTEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': pyProperty(ID),
      'src/bill.py': BUGGY_PY,
    },
    { 'src/bill.py': rewriter(exitZero) + BUGGY_PY },
  );
}

py('production code that rewrites the report at exit: the runtime guard refuses the exit hook and the write', () => {
  const { repo, base, head } = rewriting(false);
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(r.out.reason, /runtime guard: atexit\.register at src\/bill\.py:\d+: registers _clean to run at exit/);
  assert.match(r.out.reason, /runtime guard: open at src\/bill\.py:10: writes the test report/);
});

// A rewritten report with os._exit(0) agrees with its exit code, so no
// report check can tell it from a pass: the runtime guard sees the write and
// the missing final record, and the tamper layer (docs/tamper.md) reads the code.
py(
  'production code that rewrites the report and calls os._exit(0): the runtime guard and the tamper layer each refuse it',
  () => {
    const { repo, base, head } = rewriting(true);
    const r = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(r.code, 1, r.stderr);
    assert.match(r.out.reason, /runtime guard: open at src\/bill\.py:10: writes the test report/);
    assert.match(r.out.reason, /ended without the guard's final record/);
    const t = repo.pw(['tamper', '--range', `${base}..${head}`]);
    assert.is(t.code, 1, t.stdout + t.stderr);
    assert.match(t.stdout, /exit\.process/);
    assert.match(t.stdout, /report\.write/);
  },
);

py('gate suite: production code rewriting the suite report at exit is refused, not read as a pass', () => {
  const command = 'python3 -B -m pytest -q -p no:cacheprovider tests --junitxml={junit}';
  const repo = sample(`version: 1\nsuite:\n  command: ${command}\n`, {
    'tests/test_app.py':
      'import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))\nimport app\n\ndef test_app():\n    assert app.answer() == 42\n',
    'src/app.py': 'def answer():\n    return 42\n',
  });
  repo.commit({ 'src/app.py': rewriter(false) + 'def answer():\n    return 41\n' }, 'break it, hide it');
  const r = gate(repo);
  assert.is(r.layers.suite.status, 'refused', JSON.stringify(r.layers.suite));
  assert.match(
    r.layers.suite.violations.map((v) => v.message).join('\n'),
    /suite\.command: the report disagrees with the exit code: the command exited 1 while its report shows no failing or erroring case/,
  );
  assert.is(r.code, 1);
});

py('gate suite: a run that collects nothing (empty report) is refused, not a pass', () => {
  const command = 'python3 -B -m pytest -q -p no:cacheprovider tests -k no_such_test --junitxml={junit}';
  const repo = sample(`version: 1\nsuite:\n  command: ${command}\n`, {
    'tests/test_app.py': 'def test_app():\n    assert True\n',
  });
  repo.commit({ 'src/app.js': 'x\n' }, 'code');
  const r = gate(repo);
  assert.is(r.layers.suite.status, 'refused', JSON.stringify(r.layers.suite));
  assert.match(r.layers.suite.violations[0].message, /its report holds no test case/);
});

py('replay: runs whose report was rewritten by production code are not usable, whatever the report says', () => {
  const { repo } = rewriting(false);
  const r = repo.pw(['replay', '--format', 'json', '--runs', '2', '--seed', '1', '--', PYTEST]);
  assert.is(r.code, 2, r.stderr);
  assert.match(
    JSON.parse(r.stdout).error,
    /the report disagrees with the exit code: the command exited 1 while its report shows no failing or erroring case/,
  );
});

test.run();
