// replay as the evidence step, on real pytest runs: a flake whose failing
// frames move is unpinned entropy (no candidate, with or without a fixture
// id); a CI run's id is read from the provider's variables into the row;
// --pin writes a stable failure's counterexample as a fixture; a flake that
// a row freezes already gets no second row; every run gets the pinned
// environment, and says so.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { missingUnless, pytestMissing, testUnless } from '../helpers/skip.js';
import { GITHUB_RUN } from '../helpers/flake.js';

test.after.each(cleanup);
const t = testUnless(pytestMissing);
const withHypothesis = testUnless(
  pytestMissing ?? missingUnless('python3', ['-c', 'import hypothesis'], 'hypothesis is not installed'),
);

const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider tests --junitxml={junit}';
const COUNTER = `import pathlib
HERE = pathlib.Path(__file__).parent


def bump(name):
    f = HERE / name
    n = int(f.read_text()) if f.exists() else 0
    f.write_text(str(n + 1))
    return n
`;
// Fails in one project function on one run, passes on the next, fails in another function on the third.
const MOVING = `from tests.counter import bump
from src.shop import charge, refund


def run(n):
    if n % 3 == 0:
        charge(-1)
    elif n % 3 == 2:
        refund(-1)


def test_moving():
    run(bump("moving"))


def test_moving_pinned(record_property):
    record_property("fixture", "a1b2c3d4e5f60789")
    run(bump("moving-pinned"))
`;
const SHOP =
  'def charge(x):\n    if x < 0:\n        raise ValueError("negative charge")\n\n\ndef refund(x):\n    if x < 0:\n        raise ValueError("negative refund")\n';

function project(files: Record<string, string>): TempRepo {
  const repo = tempRepo();
  repo.commit({
    'src/__init__.py': '',
    'src/shop.py': SHOP,
    'tests/__init__.py': '',
    'tests/counter.py': COUNTER,
    'tests/conftest.py': 'import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent))\n',
    '.gitignore': 'tests/moving*\ntests/flake*\n',
    ...files,
  });
  return repo;
}

function replay(repo: TempRepo, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = repo.pw(['replay', '--format', 'json', ...args], { env });
  try {
    return { code: r.code, out: JSON.parse(r.stdout) as Record<string, any>, stderr: r.stderr };
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
}

t(
  'a flake whose failing frames differ between runs is unpinned entropy: it fails, with or without a fixture id, and no candidate',
  () => {
    const repo = project({ 'tests/test_moving.py': MOVING });
    const r = replay(repo, ['--runs', '6', '--seed', '7', '--env-class', 'remote', '--', PYTEST]);
    assert.is(r.code, 1, JSON.stringify(r.out));
    const moving = r.out.cases.filter((c: { name: string }) => c.name === 'test_moving');
    assert.is(moving.length, 2, 'two signatures, one per frame');
    const pinned = r.out.cases.filter((c: { name: string }) => c.name === 'test_moving_pinned');
    assert.equal(
      pinned.map((c: { key: string }) => c.key),
      ['fixture:a1b2c3d4e5f60789'],
    );
    for (const c of [...moving, ...pinned]) {
      assert.is(c.status, 'flicker');
      assert.is(c.action, 'unpinned_entropy');
      assert.is(c.freeze_candidate, null);
      assert.match(c.note, /^unpinned entropy: fail\./);
    }
    assert.match(pinned[0].note, /charge \| refund|refund \| charge/);
  },
);

t(
  'in CI: remote by the provider, its run recorded in the candidate; the owner adds it to a version 2 ledger; replayed again it is already frozen',
  () => {
    const repo = project({
      'tests/test_flake.py':
        'from tests.counter import bump\nfrom src.shop import charge\n\n\ndef test_flake(record_property):\n    record_property("fixture", FIXTURE)\n    if bump("flake") % 2 == 0:\n        charge(-1)\n',
      'freeze/signatures.yaml': 'version: 2\nrecords: []\n',
    });
    const add = repo.json(['fixtures', 'add', '-'], { input: '{"amount": -1}' });
    const fixture = add.out.id;
    repo.write(
      'tests/test_flake.py',
      readFileSync(path.join(repo.dir, 'tests/test_flake.py'), 'utf8').replace('FIXTURE', JSON.stringify(fixture)),
    );
    repo.git(['add', '-A']);
    repo.git(['commit', '-qm', 'pin the input']);
    const r = replay(repo, ['--runs', '4', '--seed', '20260917', '--out', 'results.json', '--', PYTEST], GITHUB_RUN);
    assert.is(r.code, 0, JSON.stringify(r.out));
    assert.is(r.out.env_class, 'remote', 'GITHUB_ACTIONS makes it remote without --env-class');
    assert.equal(r.out.ci, { provider: 'github', run: 'https://github.com/acme/shop/actions/runs/4242' });
    assert.equal(r.out.env, {
      TZ: 'UTC',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      PYTHONHASHSEED: '0',
      PROP_SEED: '20260917',
      GOFLAGS: '-count=1',
    });
    const [c] = r.out.cases;
    assert.is(c.action, 'freeze_candidate');
    const cand = c.freeze_candidate;
    assert.equal(
      [cand.fixture, cand.ci, cand.run, cand.env_class],
      [fixture, 'github', 'https://github.com/acme/shop/actions/runs/4242', 'remote'],
    );
    assert.match(cand.command, /--ci=github --run=https:\/\/github\.com\/acme\/shop\/actions\/runs\/4242$/);
    const results = JSON.parse(readFileSync(path.join(repo.dir, 'results.json'), 'utf8'));
    assert.equal([results.ci.run, results.env.TZ], ['https://github.com/acme/shop/actions/runs/4242', 'UTC']);
    // The template reason is refused by the version 2 ledger; with the cause said, the printed line writes the row.
    const pasted = sh('sh', ['-c', `OWNER=qa-team; ${cand.command}`], { cwd: repo.dir, env: repo.env });
    assert.is(pasted.code, 1, pasted.stdout);
    assert.match(pasted.stdout, /its reason still says TODO/);
    const said = cand.command.replace(/--reason='[^']*'/, "--reason='charges race the ledger clock'");
    const written = sh('sh', ['-c', `OWNER=qa-team; ${said}`], { cwd: repo.dir, env: repo.env });
    assert.is(written.code, 0, written.stdout + written.stderr);
    // Replayed again, the flake gets no second row.
    const again = replay(repo, ['--runs', '4', '--seed', '20260917', '--', PYTEST], GITHUB_RUN);
    assert.is(again.out.cases[0].action, 'already_frozen');
    assert.is(again.out.cases[0].freeze_candidate, null);
    assert.match(
      again.out.cases[0].note,
      /already frozen by line 3 of freeze\/signatures\.yaml until \S+Z; to renew it, its owner runs patchwarden freeze extend --sig [0-9a-f]{16} --ttl 7d/,
    );
  },
);

withHypothesis("--pin: a stable failure's shrunk counterexample is written as a fixture and locked", () => {
  const repo = project({
    'tests/test_prop.py':
      'from hypothesis import given, settings, strategies as st\n\n\n@settings(database=None, derandomize=True)\n@given(st.integers())\ndef test_total(n):\n    assert n < 10\n',
  });
  const r = replay(repo, ['--runs', '2', '--seed', '1', '--pin', '--', PYTEST]);
  assert.is(r.code, 1);
  const [c] = r.out.cases;
  assert.is(c.status, 'stable_fail');
  assert.is(readFileSync(path.join(repo.dir, c.pinned.path), 'utf8'), '{"n":10}');
  assert.match(c.note, new RegExp(`pinned as fixture ${c.pinned.id}`));
  assert.is(repo.json(['fixtures', 'verify', '--worktree']).code, 0);
});

t('every run gets the pinned TZ, locale and hash seed, whatever the caller has; runner.env changes them', () => {
  const check =
    'import os\n\n\ndef test_env():\n    got = {k: os.environ.get(k) for k in ("TZ", "LANG", "LC_ALL", "PYTHONHASHSEED", "PROP_SEED")}\n    assert got == {"TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0", "PROP_SEED": "3"}, got\n';
  const repo = project({ 'tests/test_env.py': check });
  const caller = { TZ: 'America/New_York', LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8', PYTHONHASHSEED: '123' };
  const r = replay(repo, ['--runs', '2', '--seed', '3', '--', PYTEST], caller);
  assert.is(r.code, 2, 'nothing failed and nothing is keyed: nothing to classify');
  assert.match(r.stderr, /nothing to classify/);
  repo.write('.patchwarden.yml', 'version: 1\nrunner:\n  env:\n    TZ: Europe/Paris\n    LC_ALL: null\n');
  const changed = replay(repo, ['--runs', '2', '--seed', '3', '--', PYTEST], caller);
  assert.is(changed.code, 1);
  assert.match(changed.out.cases[0].note, /failed in all 2 runs/);
  assert.equal(changed.out.env, {
    TZ: 'Europe/Paris',
    LANG: 'C.UTF-8',
    PYTHONHASHSEED: '0',
    PROP_SEED: '3',
    GOFLAGS: '-count=1',
  });
});

test.run();
