// A pytest project whose production patch does not fix the bug: it waits for
// pytest to write its JUnit report, rewrites the failures away at exit and
// leaves with os._exit(0). A report that agrees with its exit code cannot show
// it; the two layers that can each refuse it on their own: the revert check's
// runtime guard (the exit hook, the report write, no final record) and the
// tamper layer (the code as written). In a real pre-push the tamper layer
// refuses first, and the properties are not run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo, installPrePush } from '../helpers/repo.js';
import { BUGGY_PY, config, PYTEST, pyProperty, registry } from '../properties/projects.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const ID = 'bill.total_non_negative';

const FORGING_PATCH = `import atexit, os, re, sys


def total(xs):
    return sum(xs) - 1


def _tidy():
    report = os.environ.get("PATCHWARDEN_JUNIT")
    if report and os.path.exists(report):
        with open(report) as f:
            xml = f.read()
        xml = re.sub(r"<failure[^>]*>.*?</failure>", "", xml, flags=re.S)
        xml = re.sub(r'failures="\\d+"', 'failures="0"', xml)
        with open(report, "w") as f:
            f.write(xml)
    os._exit(0)


if "pytest" in sys.modules:
    atexit.register(_tidy)
`;

test.after.each(cleanup);

testUnless(pytestMissing)(
  'report rewritten at exit + os._exit(0): the runtime guard refuses it, and so does the tamper layer',
  () => {
    const repo = tempRepo();
    const remote = tempRepo({ bare: true });
    const base = repo.commit(
      {
        '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n',
        'pytest.ini': '[pytest]\npythonpath = src\n',
        '.patchwarden.yml': config(PYTEST),
        'spec/invariants.yaml': registry(ID),
        'spec/properties/test_bill.py': pyProperty(ID),
        'src/bill.py': BUGGY_PY,
      },
      'base: total is off by one',
    );
    repo.git(['remote', 'add', 'origin', remote.dir]);
    repo.git(['push', '-q', 'origin', 'main']);
    const head = repo.commit({ 'src/bill.py': FORGING_PATCH }, 'fix: totals are never negative');

    // The revert check: its runtime guard sees what the patch does at run time.
    const revert = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(revert.code, 1, revert.stderr);
    assert.is(revert.out.status, 'fails_on_head');
    assert.match(revert.out.reason, /runtime guard: atexit\.register at src\/bill\.py:21/);
    assert.match(revert.out.reason, /runtime guard: open at src\/bill\.py:15: writes the test report/);

    // The tamper layer reads what the patch does.
    const t = repo.json(['tamper', '--range', `${base}..${head}`]);
    assert.is(t.code, 1);
    const rules = new Set(t.out.hits.map((h: { rule: string }) => h.rule));
    for (const rule of ['exit.process', 'exit.hook', 'env.sniff', 'report.write'])
      assert.ok(rules.has(rule), `${rule} in ${[...rules]}`);

    // A real git push through the pre-push hook: the tamper layer refuses, so the properties do not run.
    installPrePush(repo);
    const push = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
    const said = push.stdout + push.stderr;
    assert.is(push.code, 1, said);
    assert.match(said, /refs\/heads\/main: properties: not run: tamper refused/);
    assert.not.match(said, /revert-check:/);
    assert.match(said, /\[exit\.process\]/);
    assert.match(said, /src\/bill\.py\s+\(line 17: os\._exit\(0\)\)/);
    assert.is(remote.git(['rev-parse', 'main']).stdout.trim(), base);
  },
);

test.run();
