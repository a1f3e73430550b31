// A pytest project whose production patch does not fix the bug: it waits for
// pytest to write its JUnit report, rewrites the failures away at exit and
// leaves with os._exit(0). The revert check alone is fooled (the head "passes",
// the base fails); the tamper layer refuses the patch, in a real pre-push.
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

testUnless(pytestMissing)('report rewritten at exit + os._exit(0): the revert check passes it, the tamper layer refuses it', () => {
  const repo = tempRepo();
  const remote = tempRepo({ bare: true });
  const base = repo.commit({
    '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n',
    'pytest.ini': '[pytest]\npythonpath = src\n',
    '.patchwarden.yml': config(PYTEST),
    'spec/invariants.yaml': registry(ID),
    'spec/properties/test_bill.py': pyProperty(ID),
    'src/bill.py': BUGGY_PY,
  }, 'base: total is off by one');
  repo.git(['remote', 'add', 'origin', remote.dir]);
  repo.git(['push', '-q', 'origin', 'main']);
  const head = repo.commit({ 'src/bill.py': FORGING_PATCH }, 'fix: totals are never negative');

  // The revert check alone: the forged head "passes", the base fails, so it "describes the patch".
  const revert = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(revert.code, 0, revert.stderr);
  assert.is(revert.out.status, 'describes_patch');

  // The tamper layer reads what the patch does.
  const t = repo.json(['tamper', '--range', `${base}..${head}`]);
  assert.is(t.code, 1);
  const rules = new Set(t.out.hits.map((h: { rule: string }) => h.rule));
  for (const rule of ['exit.process', 'exit.hook', 'env.sniff', 'report.write']) assert.ok(rules.has(rule), `${rule} in ${[...rules]}`);

  // A real git push through the pre-push hook: the revert check runs and passes; the tamper layer refuses.
  installPrePush(repo);
  const push = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
  const said = push.stdout + push.stderr;
  assert.is(push.code, 1, said);
  assert.match(said, /revert-check: done: describes_patch/);
  assert.match(said, /\[exit\.process\]/);
  assert.match(said, /src\/bill\.py\s+\(line 17: os\._exit\(0\)\)/);
  assert.not.match(said, /\[revert\]/);
  assert.is(remote.git(['rev-parse', 'main']).stdout.trim(), base);
});

test.run();
