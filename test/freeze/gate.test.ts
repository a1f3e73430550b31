// The signature gate on real pytest runs: a failure that only happens when an
// environment variable is set stands in for a flake.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv, cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const gate = testUnless(pytestMissing);

const CALC = `import os


def total(items):
    s = sum(items)
    return s + 1 if os.environ.get("PW_FLAKE") else s


def _connect(host):
    if os.environ.get("PW_FLAKE"):
        raise TimeoutError(f"{host} did not answer after 30 s")
    return host


def fetch(host):
    return _connect(host)
`;
const TOTAL = `from calc import total


def test_total():
    assert total([1, 2]) == 3
`;
const FETCH = `from calc import fetch


def test_fetch():
    assert fetch("db1") == "db1"
`;
const BOOM = `import os


def test_boom():
    if os.environ.get("PW_FLAKE"):
        raise RuntimeError("boom")
`;
const NOW = '2026-12-02T00:00:00Z';

function project(): TempRepo {
  const repo = tempRepo();
  repo.commit({
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'src/calc/__init__.py': CALC,
    'tests/test_total.py': TOTAL,
    'tests/test_fetch.py': FETCH,
    '.gitignore': 'report.xml\n',
  });
  // freeze add needs a ledger; these rows carry no replay evidence, as version 1 allows.
  assert.is(repo.pw(['freeze', 'init', '--version', '1']).code, 0);
  return repo;
}

/** Runs the real suite with the flake switched on; returns the report path (relative). No colour codes in the report. */
function runSuite(repo: TempRepo, flake = true): string {
  const r = sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests', '--junitxml=report.xml'], {
    cwd: repo.dir,
    env: cleanEnv({ PYTHONDONTWRITEBYTECODE: '1', PY_COLORS: '0', ...(flake ? { PW_FLAKE: '1' } : {}) }),
  });
  assert.ok(r.code === 0 || r.code === 1, `pytest could not run: ${r.stdout}${r.stderr}`);
  return 'report.xml';
}

function sigOf(repo: TempRepo, report: string, name: string): string {
  const { out } = repo.json(['signatures', report]);
  const f = out.failures.find((x: { name: string }) => x.name === name);
  assert.ok(f, `no failure named ${name}: ${JSON.stringify(out)}`);
  return f.sig;
}

function freeze(repo: TempRepo, sig: string, lastName: string, extra: string[] = []) {
  const r = repo.pw(
    [
      'freeze',
      'add',
      '--sig',
      sig,
      '--reason',
      'stand-in flake',
      '--owner',
      'qa',
      '--ttl',
      '7d',
      '--last-name',
      lastName,
      ...extra,
    ],
    { env: { PATCHWARDEN_NOW: NOW } },
  );
  assert.is(r.code, 0, r.stdout + r.stderr);
}

function apply(repo: TempRepo, report: string, now = NOW) {
  return repo.json(['freeze', 'apply', report], { env: { PATCHWARDEN_NOW: now } });
}

gate('a frozen flake passes the gate; the same run without a row is refused as new', () => {
  const repo = project();
  const report = runSuite(repo);
  let r = apply(repo, report);
  assert.is(r.code, 1);
  assert.equal(
    r.out.failures.map((f: { action: string }) => f.action),
    ['new', 'new'],
  );
  freeze(repo, sigOf(repo, report, 'test_total'), 'test_total');
  freeze(repo, sigOf(repo, report, 'test_fetch'), 'test_fetch');
  r = apply(repo, report);
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.is(r.out.ok, true);
  for (const f of r.out.failures) {
    assert.is(f.action, 'frozen');
    assert.is(f.rename, false);
    assert.match(f.sig, /^[0-9a-f]{16}$/);
  }
  const fetch = r.out.failures.find((f: { name: string }) => f.name === 'test_fetch');
  assert.ok(fetch.frames.includes('fetch'), 'the project frame counts');
  // The text rendering is the decision table.
  const text = repo.pw(['freeze', 'apply', report], { env: { PATCHWARDEN_NOW: NOW } });
  assert.is(text.code, 0);
  assert.match(text.stdout, /^observation\s+layer\s+action$/m);
  assert.match(text.stdout, /test_total: AssertionError \(equal\) sig [0-9a-f]{16}\s+ledger line \d+\s+frozen$/m);
  // With the flake gone there is nothing to judge.
  const clean = runSuite(repo, false);
  r = apply(repo, clean);
  assert.is(r.code, 0);
  assert.equal(r.out.failures, []);
});

gate('renamed and moved, the failure is still frozen and flagged as a rename', () => {
  const repo = project();
  const report = runSuite(repo);
  freeze(repo, sigOf(repo, report, 'test_total'), 'test_total');
  freeze(repo, sigOf(repo, report, 'test_fetch'), 'test_fetch');
  repo.git(['rm', '-q', 'tests/test_total.py']);
  repo.commit({ 'tests/sums/test_sums.py': TOTAL.replace('def test_total', 'def test_sum_of_two') }, 'rename and move');
  const moved = runSuite(repo);
  let r = apply(repo, moved);
  assert.is(r.code, 0, JSON.stringify(r.out));
  const renamed = r.out.failures.find((f: { name: string }) => f.name === 'test_sum_of_two');
  assert.is(renamed.action, 'frozen');
  assert.is(renamed.rename, true);
  assert.match(renamed.note, /renamed: the row was written for test_total/);
  assert.is(r.out.failures.find((f: { name: string }) => f.name === 'test_fetch').rename, false);
  const text = repo.pw(['freeze', 'apply', moved], { env: { PATCHWARDEN_NOW: NOW } });
  assert.match(text.stdout, /test_sum_of_two: .*frozen, rename$/m);
  // freeze.on_rename: refuse turns the same run into a refusal.
  repo.write('.patchwarden.yml', 'version: 1\nfreeze:\n  on_rename: refuse\n');
  r = apply(repo, moved);
  assert.is(r.code, 1);
  const refused = r.out.failures.find((f: { name: string }) => f.name === 'test_sum_of_two');
  assert.is(refused.action, 'frozen');
  assert.is(refused.rename, true);
  assert.is(refused.passes, false);
});

gate('an assertion changed from == to pytest.raises is a new failure, refused', () => {
  const repo = project();
  const report = runSuite(repo);
  const sig = sigOf(repo, report, 'test_total');
  freeze(repo, sig, 'test_total');
  freeze(repo, sigOf(repo, report, 'test_fetch'), 'test_fetch');
  repo.commit(
    {
      'tests/test_total.py':
        'import pytest\nfrom calc import total\n\n\ndef test_total():\n    with pytest.raises(ValueError):\n        total([1, 2])\n',
    },
    'weaken',
  );
  const changed = runSuite(repo);
  const r = apply(repo, changed);
  assert.is(r.code, 1);
  const f = r.out.failures.find((x: { name: string }) => x.name === 'test_total');
  assert.is(f.action, 'new');
  assert.is(f.kind, 'raises');
  assert.is.not(f.sig, sig);
  assert.is(r.out.failures.find((x: { name: string }) => x.name === 'test_fetch').action, 'frozen');
});

gate('an expired row no longer freezes: refused as expired', () => {
  const repo = project();
  const report = runSuite(repo);
  freeze(repo, sigOf(repo, report, 'test_total'), 'test_total');
  freeze(repo, sigOf(repo, report, 'test_fetch'), 'test_fetch');
  assert.is(apply(repo, report, '2026-12-08T23:59:59Z').code, 0);
  const r = apply(repo, report, '2026-12-09T00:00:00Z');
  assert.is(r.code, 1);
  assert.equal(
    r.out.failures.map((f: { action: string }) => f.action),
    ['expired', 'expired'],
  );
  assert.match(r.out.failures[0].note, /expired at 2026-12-09T00:00:00Z/);
});

gate('a failure with nothing stable to bind to is ineligible and never frozen', () => {
  const repo = project();
  repo.commit({ 'tests/test_boom.py': BOOM });
  const report = runSuite(repo);
  const { out } = repo.json(['signatures', report]);
  const boom = out.failures.find((f: { name: string }) => f.name === 'test_boom');
  assert.is(boom.eligible, false);
  freeze(repo, sigOf(repo, report, 'test_total'), 'test_total');
  freeze(repo, sigOf(repo, report, 'test_fetch'), 'test_fetch');
  // freeze add refuses it by its first digit; a row written by hand freezes nothing either.
  assert.match(boom.sig, /^0/);
  const add = repo.pw(['freeze', 'add', '--sig', boom.sig, '--reason', 'r', '--owner', 'qa', '--ttl', '7d'], {
    env: { PATCHWARDEN_NOW: NOW },
  });
  assert.is(add.code, 1);
  assert.match(add.stdout, /is an ineligible failure's \(its first digit is 0\)/);
  repo.write(
    'freeze/signatures.yaml',
    `${readFileSync(path.join(repo.dir, 'freeze/signatures.yaml'), 'utf8')}  - sig: ${boom.sig}\n    reason: r\n    owner: qa\n    expires: 2026-12-09T00:00:00Z\n`,
  );
  const r = apply(repo, report);
  assert.is(r.code, 1);
  const f = r.out.failures.find((x: { name: string }) => x.name === 'test_boom');
  assert.is(f.action, 'ineligible');
  assert.is(f.passes, false);
});

gate('a row bound to a fixture whose bytes changed is void', () => {
  const repo = project();
  const report = runSuite(repo);
  const fixture = repo.json(['fixtures', 'add', '-'], { input: '{"b": 2, "a": 1}' });
  assert.is(fixture.code, 0, JSON.stringify(fixture.out));
  const id: string = fixture.out.id;
  assert.match(id, /^[0-9a-f]{16}$/);
  freeze(repo, sigOf(repo, report, 'test_total'), 'test_total', ['--fixture', id]);
  freeze(repo, sigOf(repo, report, 'test_fetch'), 'test_fetch');
  assert.is(apply(repo, report).code, 0);
  repo.write(`fixtures/input/${id}.json`, '{"a":1,"b":3}');
  const r = apply(repo, report);
  assert.is(r.code, 1);
  const f = r.out.failures.find((x: { name: string }) => x.name === 'test_total');
  assert.is(f.action, 'new');
  assert.is(f.void, true);
  assert.match(f.note, new RegExp(`fixture ${id} no longer matches the fixture lock`));
});

gate('a ledger with broken rows stops apply with exit 2; unreadable reports too', () => {
  const repo = project();
  const report = runSuite(repo);
  repo.write(
    'freeze/signatures.yaml',
    'version: 1\nrecords:\n  - name: test_total\n    reason: r\n    owner: o\n    expires: 2026-12-09T00:00:00Z\n',
  );
  let r = apply(repo, report);
  assert.is(r.code, 2);
  assert.match(
    r.out.error,
    /freeze ledger has 1 broken row .*freeze\/signatures\.yaml:3: the row is keyed by a test name/,
  );
  repo.write('freeze/signatures.yaml', 'version: 1\n');
  r = apply(repo, 'missing.xml');
  assert.is(r.code, 2);
  assert.match(r.out.error, /missing\.xml/);
  assert.is(repo.pw(['freeze', 'apply']).code, 2);
});

test.after(cleanup);
test.run();
