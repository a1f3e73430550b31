// Attacks on the revert check through files the patch controls besides its
// production code: a root conftest.py, runner configuration that pulls in a
// test of the patch's own, a helper the property imports, and a branch that
// forked before the property was strengthened. The judged tree is the base
// plus the production diff, so each is refused, saying why. Real pytest,
// real node --test, real git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, sh, tempRepo, type TempRepo, installPrePush } from '../helpers/repo.js';
import { gate } from '../gate/sample.js';
import {
  BUGGY_JS,
  BUGGY_PY,
  config,
  FIXED_PY,
  jsProperty,
  NODE_TEST,
  project,
  pyProperty,
  PYTEST,
  registry,
} from '../properties/projects.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const ID = 'bill.total_non_negative';
const pyBase = (extra: Record<string, string> = {}) => ({
  '.patchwarden.yml': config(PYTEST),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': BUGGY_PY,
  ...extra,
});

/** Runs a property command straight in the checkout, as a check that trusted head's files would. */
function trustingRun(repo: TempRepo, command: string): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-trusting-'));
  try {
    return sh('sh', ['-c', command.replaceAll('{junit}', path.join(dir, 'r.xml'))], { cwd: repo.dir }).code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const revertCheck = (repo: TempRepo, base: string, head: string) =>
  repo.json(['revert-check', '--base', base, '--head', head]);

test.after.each(cleanup);

const py = testUnless(pytestMissing);

// Turns every failure into a pass while the patch's marker file is in src.
const FORCING_CONFTEST = `import os, pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and os.path.exists(os.path.join(os.path.dirname(__file__), 'src', 'marker.py')):
        report.outcome = 'passed'
`;

py(
  'a root conftest.py that forces passes while a marker sits in src: refused (the base still fails), naming conftest.py',
  () => {
    const { repo, base, head } = project(pyBase(), { 'conftest.py': FORCING_CONFTEST, 'src/marker.py': '# on\n' });
    assert.is(trustingRun(repo, PYTEST), 0, 'the attack is real: head with its own conftest is green');
    const r = revertCheck(repo, base, head);
    assert.is(r.code, 1, r.stderr);
    assert.is(r.out.status, 'pending_unmarked');
    assert.match(r.out.reason, /the base itself fails bill\.total_non_negative/);
    assert.match(r.out.reason, /outside the src zone \(conftest\.py\)/);
    assert.match(r.out.reason, /they must land first, reviewed, in a change of their own/);
    assert.equal(r.out.outside_src, ['conftest.py']);
  },
);

const EXTRA_CLAIM = `def test_extra_claim(record_property):
    record_property("invariant", "${ID}")
    try:
        from extra import rounded
    except ImportError:
        rounded = None
    assert rounded is not None and rounded(1.25) == 1.2
`;

py('pytest.ini addopts pulling in a test of the patch that claims an invariant: not run, does_not_describe', () => {
  const { repo, base, head } = project(pyBase({ 'src/bill.py': FIXED_PY }), {
    'pytest.ini': '[pytest]\npythonpath = src\naddopts = tests/test_extra.py\n',
    'tests/test_extra.py': EXTRA_CLAIM,
    'src/extra.py': 'def rounded(x):\n    return round(x - 0.05, 1)\n',
  });
  const r = revertCheck(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.is(
    r.out.status,
    'does_not_describe',
    'the base pytest.ini ran: the extra case was not there to fail on revert',
  );
  assert.equal(
    r.out.head_run.invariants.map((i: any) => i.cases),
    [['test_total_non_negative']],
  );
  assert.equal(r.out.outside_src, ['pytest.ini', 'tests/test_extra.py']);
});

// Free paths need no owner: a test there that names an invariant, landed
// earlier, must not stand for the property when a later patch makes it pass.
py('a base harness that runs tests/ too: a case there naming an invariant is refused by name and file', () => {
  const command = PYTEST.replace('spec/properties', 'spec/properties tests');
  const { repo, base, head } = project(
    pyBase({ '.patchwarden.yml': config(command), 'src/bill.py': FIXED_PY, 'tests/test_extra.py': EXTRA_CLAIM }),
    {
      'src/extra.py': 'def rounded(x):\n    return round(x - 0.05, 1)\n',
    },
  );
  const r = revertCheck(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(
    r.out.reason,
    /test case "test_extra_claim" in tests\/test_extra\.py names invariant bill\.total_non_negative, but tests\/test_extra\.py is outside the spec zone: only cases in spec files count/,
  );
});

py('an honest fix with a legitimate test change in tests/ still passes', () => {
  const { repo, base, head } = project(
    pyBase({ 'tests/test_unit.py': 'from bill import total\n\ndef test_one():\n    assert total([1]) == 0\n' }),
    {
      'src/bill.py': FIXED_PY,
      'tests/test_unit.py': 'from bill import total\n\ndef test_one():\n    assert total([1]) == 1\n',
    },
  );
  const r = revertCheck(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.equal(r.out.outside_src, ['tests/test_unit.py']);
});

// Weak: never negative. Strong, written by an owner on main after the branch forked: exact.
const STRONG = `from bill import total\n\ndef test_total_exact(record_property):\n    record_property("invariant", "${ID}")\n    for xs in ([], [1, 2], [0, 5]):\n        assert total(xs) == sum(xs)\n`;
const CLAMPED = 'def total(xs):\n    return max(sum(xs) - 1, 0)\n';

function staleBranch(): { repo: TempRepo; fork: string; main: string; topic: string } {
  const repo = tempRepo();
  const fork = repo.commit(
    { '.gitignore': '__pycache__/\n', 'pytest.ini': '[pytest]\npythonpath = src\n', ...pyBase() },
    'base',
  );
  repo.git(['checkout', '-q', '-b', 'topic']);
  const topic = repo.commit({ 'src/bill.py': CLAMPED }, 'clamp totals');
  repo.git(['checkout', '-q', 'main']);
  const main = repo.commit({ 'spec/properties/test_bill.py': STRONG }, 'owners: totals are exact');
  repo.git(['checkout', '-q', 'topic']);
  return { repo, fork, main, topic };
}

py('a stale branch judged against the base whose property is stronger: refused', () => {
  const { repo, fork, main, topic } = staleBranch();
  assert.is(
    revertCheck(repo, fork, topic).out.status,
    'describes_patch',
    'by its own, older property the branch would pass',
  );
  const r = revertCheck(repo, main, topic);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked');
  assert.match(r.out.reason, /the base itself fails bill\.total_non_negative/);
  assert.match(r.out.reason, /spec\/properties\/test_bill\.py/);
});

py('gate: a stale branch is judged by the target branch, not by the fork point', () => {
  const { repo } = staleBranch();
  const r = gate(repo);
  assert.is(r.layers.properties.status, 'refused', r.layers.properties.summary);
  assert.match(r.layers.properties.violations[0].message, /the base itself fails bill\.total_non_negative/);
  assert.is(r.code, 1);
});

// node: a free helper the property imports, made lenient while a marker sits in src.
const HELPER = "import assert from 'node:assert/strict';\nexport const check = (ok) => assert.ok(ok);\n";
const LENIENT =
  "import assert from 'node:assert/strict';\nimport { existsSync } from 'node:fs';\nexport const check = (ok) => { if (!existsSync('src/marker.mjs')) assert.ok(ok); };\n";
const HELPED = `import { test } from 'node:test';\nimport { check } from '../../tests/helpers.mjs';\nimport { total } from '../../src/bill.mjs';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  for (const xs of [[], [1, 2]]) check(total(xs) >= 0);\n});\n`;

test('node --test: a helper in tests/ the property imports, made lenient by the patch: refused (the base still fails), naming it', () => {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(NODE_TEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': HELPED,
      'tests/helpers.mjs': HELPER,
      'src/bill.mjs': BUGGY_JS,
    },
    { 'tests/helpers.mjs': LENIENT, 'src/marker.mjs': 'export {};\n' },
  );
  assert.is(trustingRun(repo, NODE_TEST), 0, 'the attack is real: head with its own helper is green');
  const r = revertCheck(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked');
  assert.match(r.out.reason, /outside the src zone \(tests\/helpers\.mjs\)/);
});

test("node --test: the property itself is the base one, not the patch's weakened copy", () => {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(NODE_TEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': BUGGY_JS,
    },
    {
      'spec/properties/bill.test.mjs': jsProperty(ID).replace('assert.ok(total(xs) >= 0)', 'assert.ok(true)'),
      'src/bill.mjs': BUGGY_JS.replace('- 1', '- 2'),
    },
  );
  const r = revertCheck(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked');
});

test('git push: the lenient-helper patch is refused by the pre-push hook and the remote keeps its tip', () => {
  const remote = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(
    {
      '.patchwarden.yml': config(NODE_TEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': HELPED,
      'tests/helpers.mjs': HELPER,
      'src/bill.mjs': BUGGY_JS,
    },
    'start',
  );
  assert.is(repo.git(['push', '-q', 'origin', 'main'], { allowFail: true }).code, 0);
  const tip = remote.git(['rev-parse', 'main']).stdout.trim();
  repo.commit({ 'tests/helpers.mjs': LENIENT, 'src/marker.mjs': 'export {};\n' }, 'fix totals');
  const r = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
  assert.is.not(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /pending_unmarked/);
  assert.match(r.stdout + r.stderr, /tests\/helpers\.mjs/);
  assert.is(remote.git(['rev-parse', 'main']).stdout.trim(), tip);
});

test.run();
