// Ledger version 2 on real pytest runs: rows carry replay evidence, a rename
// needs its owner's edit, protected paths are never frozen, and a version 1
// ledger keeps today's behaviour while saying what version 2 would refuse.
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, PROJECT, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { NOW, sample } from '../gate/sample.js';

const t = testUnless(pytestMissing);
test.after.each(cleanup);

const CALC =
  'import os\n\n\ndef _clock():\n    if os.environ.get("PW_FLAKE"):\n        raise TimeoutError("the clock did not answer")\n\n\ndef total(items):\n    _clock()\n    return sum(items)\n';
const TOTAL = 'from calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n';
const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider';
const CONFIG = `version: 1\nsuite:\n  command: ${PYTEST} tests --junitxml={junit}\n`;
const LEDGER = 'freeze/signatures.yaml';
const FLAKE = { PW_FLAKE: '1', PATCHWARDEN_NOW: NOW };

/** A project on main with the flaky test, a pinned fixture and a ledger of the given version; HEAD on a topic branch. */
function project(version: 1 | 2, config = CONFIG): { repo: TempRepo; sig: string; fixture: string } {
  const repo = sample(config, {
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'src/calc/__init__.py': CALC,
    'tests/test_total.py': TOTAL,
    '.gitignore': 'report.xml\n',
    [LEDGER]: `version: ${version}\nrecords: []\n`,
  });
  repo.git(['checkout', '-q', 'main']);
  const add = repo.json(['fixtures', 'add', '-'], { input: '{"items": [1, 2]}' });
  assert.is(add.code, 0, add.stderr);
  repo.git(['add', '-A']);
  repo.git(['commit', '-qm', 'pin the input']);
  repo.git(['checkout', '-q', 'topic']);
  repo.git(['merge', '-q', 'main']);
  const r = sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests', '--junitxml=report.xml'], {
    cwd: repo.dir,
    env: cleanEnv({ PYTHONDONTWRITEBYTECODE: '1', PW_FLAKE: '1' }),
  });
  assert.is(r.code, 1, r.stdout);
  const sig = repo.json(['signatures', 'report.xml']).out.failures[0].sig;
  return { repo, sig, fixture: add.out.id };
}

const evidence = (fixture: string) => [
  '--fixture',
  fixture,
  '--seed',
  '20260917',
  '--env-class',
  'remote',
  '--ci',
  'github',
  '--run',
  'https://github.com/acme/shop/actions/runs/42',
];
const add = (repo: TempRepo, sig: string, extra: string[], reason = 'clock skew on leap-smear hosts') =>
  repo.json(
    [
      'freeze',
      'add',
      '--sig',
      sig,
      '--reason',
      reason,
      '--owner',
      'qa',
      '--ttl',
      '7d',
      '--last-name',
      'test_total',
      ...extra,
    ],
    { env: { PATCHWARDEN_NOW: NOW } },
  );

t(
  'version 2: freeze add refuses each missing piece of evidence, a TODO or template reason and a local env class; writes nothing',
  () => {
    const { repo, sig, fixture } = project(2);
    const before = readFileSync(path.join(repo.dir, LEDGER), 'utf8');
    const all = evidence(fixture);
    const without = (flag: string) => all.filter((_, i) => all[i] !== flag && all[i - 1] !== flag);
    const cases: [string[], string, RegExp][] = [
      [without('--fixture'), 'the cause', /no fixture \(pin the failing input/],
      [
        [...without('--fixture'), '--fixture', 'a1b2c3d4e5f60789'],
        'the cause',
        /fixture a1b2c3d4e5f60789 is not in the fixture lock/,
      ],
      [without('--seed'), 'the cause', /no seed/],
      [[...without('--env-class'), '--env-class', 'local'], 'the cause', /env_class is local, not remote/],
      [without('--ci'), 'the cause', /no ci/],
      [without('--run'), 'the cause', /no run/],
      [
        all,
        'flicker: 3 of 7 runs failed under seed 20260917 on remote runners (TODO: the cause)',
        /its reason still says TODO/,
      ],
      [
        all,
        'flicker: 3 of 7 runs failed under seed 20260917 on remote runners',
        /its reason is replay's template alone/,
      ],
    ];
    for (const [extra, reason, message] of cases) {
      const r = add(repo, sig, extra, reason);
      assert.is(r.code, 1, `${extra.join(' ')}: ${JSON.stringify(r.out)}`);
      assert.is(r.out.written, false);
      assert.equal(
        r.out.violations.map((v: { rule: string }) => v.rule),
        ['ledger-evidence'],
      );
      assert.match(r.out.violations[0].message, message);
      assert.is(readFileSync(path.join(repo.dir, LEDGER), 'utf8'), before);
    }
    const ok = add(repo, sig, all);
    assert.is(ok.code, 0, JSON.stringify(ok.out));
    assert.equal(
      [ok.out.record.ci, ok.out.record.run, ok.out.record.env_class],
      ['github', 'https://github.com/acme/shop/actions/runs/42', 'remote'],
    );
    // The same row by a version 1 ledger is today's behaviour: written, and the check says what version 2 would refuse.
    const old = project(1);
    const v1 = add(old.repo, old.sig, []);
    assert.is(v1.code, 0, JSON.stringify(v1.out));
    const check = old.repo.pw(['freeze', 'check'], { env: { PATCHWARDEN_NOW: NOW } });
    assert.is(check.code, 0);
    assert.match(
      check.stdout,
      /1 row without replay evidence, which version 2 would refuse: patchwarden freeze migrate --check/,
    );
    const migrate = old.repo.json(['freeze', 'migrate', '--check'], { env: { PATCHWARDEN_NOW: NOW } });
    assert.is(migrate.code, 1);
    assert.match(
      migrate.out.violations[0].message,
      /freeze\/signatures\.yaml:3: the row for sig \w+ carries no replay evidence: no fixture .*; no seed; env_class is missing/,
    );
    assert.is(
      old.repo.json(['freeze', 'migrate'], { env: { PATCHWARDEN_NOW: NOW } }).code,
      1,
      'migrate refuses while rows lack evidence',
    );
    assert.match(readFileSync(path.join(old.repo.dir, LEDGER), 'utf8'), /^version: 1$/m);
    // A ledger whose rows carry their evidence migrates.
    const fresh = project(1);
    assert.is(fresh.repo.json(['freeze', 'migrate', '--check']).code, 0);
    const done = fresh.repo.json(['freeze', 'migrate']);
    assert.is(done.code, 0, JSON.stringify(done.out));
    assert.match(readFileSync(path.join(fresh.repo.dir, LEDGER), 'utf8'), /^version: 2$/m);
    assert.is(fresh.repo.json(['freeze', 'check']).out.version, 2);
  },
);

t(
  'version 2: a renamed test under a frozen row is refused by default, with the exact ledger edit; the owner commits it and the gate passes',
  () => {
    const { repo, sig, fixture } = project(2);
    repo.git(['checkout', '-q', 'main']);
    assert.is(add(repo, sig, evidence(fixture)).code, 0);
    repo.git(['commit', '-qam', 'freeze the flake']);
    repo.git(['checkout', '-q', 'topic']);
    repo.git(['merge', '-q', 'main']);
    repo.git(['rm', '-q', 'tests/test_total.py']);
    repo.commit({ 'tests/test_sums.py': TOTAL.replace('def test_total', 'def test_sum_of_two') }, 'rename the test');
    let r = repo.json(['gate', '--base', 'main'], { env: FLAKE });
    const suite = r.out.layers.find((l: { layer: string }) => l.layer === 'suite');
    assert.is(r.code, 1, JSON.stringify(r.out));
    assert.is(suite.status, 'refused');
    assert.match(
      suite.violations[0].message,
      /test_sum_of_two: frozen, renamed .*a rename needs its owner's acknowledgment \(freeze.on_rename is refuse under a version 2 ledger\)/,
    );
    assert.match(suite.violations[0].fix, /- {2}last_name: test_total\n\+ {2}last_name: test_sum_of_two$/);
    assert.equal(suite.details.failures[0].edit, {
      line: 3,
      from: 'last_name: test_total',
      to: 'last_name: test_sum_of_two',
    });
    const text = repo.pw(['gate', '--base', 'main'], { env: FLAKE });
    assert.match(
      text.stdout,
      /fix: a rename needs a human: an owner of freeze\/signatures\.yaml who judges the renamed test the same flake commits this edit on its own:/,
    );
    // freeze apply says the same on a report of the renamed test.
    sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests', '--junitxml=report.xml'], {
      cwd: repo.dir,
      env: cleanEnv({ PYTHONDONTWRITEBYTECODE: '1', PW_FLAKE: '1' }),
    });
    const applied = repo.json(['freeze', 'apply', 'report.xml'], { env: { PATCHWARDEN_NOW: NOW } });
    assert.is(applied.code, 1);
    assert.equal(
      [applied.out.failures[0].action, applied.out.failures[0].rename, applied.out.failures[0].passes],
      ['frozen', true, false],
    );
    // The owner applies exactly the printed edit on main, in a commit of its own.
    repo.git(['checkout', '-q', 'main']);
    const file = path.join(repo.dir, LEDGER);
    const edit = suite.details.failures[0].edit;
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.trim() === edit.from);
    assert.ok(at > 0);
    lines[at] = lines[at].replace(edit.from, edit.to);
    repo.write(LEDGER, lines.join('\n'));
    repo.git(['commit', '-qam', 'acknowledge the rename of test_total']);
    repo.git(['checkout', '-q', 'topic']);
    r = repo.json(['gate', '--base', 'main'], { env: FLAKE });
    assert.is(r.code, 0, JSON.stringify(r.out.layers));
  },
);

t(
  'version 2 with freeze.on_rename: warn lets a rename through, flagged; a version 1 ledger freezes without evidence and the gate lists what version 2 would refuse',
  () => {
    const { repo, sig, fixture } = project(2, `${CONFIG}freeze:\n  on_rename: warn\n`);
    assert.is(add(repo, sig, evidence(fixture)).code, 0);
    repo.git(['rm', '-q', 'tests/test_total.py']);
    repo.write('tests/test_sums.py', TOTAL.replace('def test_total', 'def test_sum_of_two'));
    sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests', '--junitxml=report.xml'], {
      cwd: repo.dir,
      env: cleanEnv({ PYTHONDONTWRITEBYTECODE: '1', PW_FLAKE: '1' }),
    });
    const warned = repo.json(['freeze', 'apply', 'report.xml'], { env: { PATCHWARDEN_NOW: NOW } });
    assert.is(warned.code, 0, JSON.stringify(warned.out));
    assert.equal([warned.out.failures[0].rename, warned.out.failures[0].passes], [true, true]);
    // Version 1: the row without evidence still freezes; the gate says so in its notes.
    const old = project(1);
    old.repo.git(['checkout', '-q', 'main']);
    assert.is(add(old.repo, old.sig, []).code, 0);
    old.repo.git(['commit', '-qam', 'freeze without evidence']);
    old.repo.git(['checkout', '-q', 'topic']);
    old.repo.git(['merge', '-q', 'main']);
    old.repo.commit({ 'README.md': 'touched\n' }, 'docs');
    const g = old.repo.json(['gate', '--base', 'main'], { env: FLAKE });
    assert.is(g.code, 0, JSON.stringify(g.out.layers));
    const layer = (name: string) => g.out.layers.find((l: { layer: string }) => l.layer === name);
    assert.match(
      layer('ledger').notes[0],
      /1 row of freeze\/signatures\.yaml carry no replay evidence \(line 3\): a version 2 ledger would refuse them; patchwarden freeze migrate --check/,
    );
    assert.match(
      layer('suite').notes[0],
      /test_total is frozen by the row at line 3, which carries no replay evidence \(no fixture/,
    );
    assert.equal(layer('suite').details.failures[0].unevidenced.length > 0, true);
    const text = old.repo.pw(['gate', '--base', 'main'], { env: FLAKE });
    assert.match(text.stdout, /\nsuite:\n {2}note: test_total is frozen by the row at line 3/);
  },
);

t('freeze.forbid: a failure whose project frames lie in a protected path is never frozen, row or not', () => {
  const { repo, sig, fixture } = project(2, `${CONFIG}freeze:\n  forbid: [src/calc/**]\n`);
  assert.is(add(repo, sig, evidence(fixture)).code, 0);
  const r = repo.json(['freeze', 'apply', 'report.xml'], { env: { PATCHWARDEN_NOW: NOW } });
  assert.is(r.code, 1);
  assert.is(r.out.failures[0].action, 'forbidden');
  assert.match(
    r.out.failures[0].note,
    /its project frames lie in src\/calc\/__init__\.py, which freeze\.forbid protects/,
  );
});

t('freeze extend renews a row; under version 2 only a row with its evidence', () => {
  const { repo, sig, fixture } = project(2);
  assert.is(add(repo, sig, evidence(fixture)).code, 0);
  const later = '2026-12-08T00:00:00Z';
  const r = repo.json(['freeze', 'extend', '--sig', sig, '--ttl', '7d'], { env: { PATCHWARDEN_NOW: later } });
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.equal([r.out.record.issued, r.out.record.expires], [later, '2026-12-15T00:00:00Z']);
  assert.match(
    readFileSync(path.join(repo.dir, LEDGER), 'utf8'),
    /issued: 2026-12-08T00:00:00Z\n\s+expires: 2026-12-15T00:00:00Z/,
  );
  assert.is(repo.pw(['freeze', 'extend', '--sig', 'f'.repeat(16), '--ttl', '7d']).code, 2);
  assert.is(
    repo.json(['freeze', 'extend', '--sig', sig, '--ttl', '90d'], { env: { PATCHWARDEN_NOW: later } }).code,
    1,
    'past freeze.max_ttl',
  );
});

t('strict gate: gate.require refuses a layer that is not configured as unproven; --require adds to it', () => {
  const repo = sample('version: 1\ngate:\n  require: [properties]\n');
  repo.commit({ 'src/app.js': 'export const a = 2;\n' }, 'change');
  let r = repo.json(['gate', '--base', 'main']);
  assert.is(r.code, 1);
  const props = r.out.layers.find((l: { layer: string }) => l.layer === 'properties');
  assert.equal([props.status, props.violations[0].rule], ['refused', 'unproven']);
  assert.match(
    props.violations[0].message,
    /^unproven: gate.require names properties, but properties.command is not set/,
  );
  assert.equal(r.out.required, ['properties']);
  r = repo.json(['gate', '--base', 'main', '--require', 'fixtures,freeze']);
  const refused = r.out.layers
    .filter((l: { status: string }) => l.status === 'refused')
    .map((l: { layer: string }) => l.layer);
  assert.equal(refused, ['fixtures', 'properties', 'suite']);
  assert.is(repo.pw(['gate', '--base', 'main', '--require', 'tests']).code, 2);
  // Without a requirement the same layers are skipped, as before.
  const loose = sample();
  loose.commit({ 'src/app.js': 'export const a = 2;\n' }, 'change');
  assert.is(loose.json(['gate', '--base', 'main']).code, 0);
});

test('version 2: pre-commit refuses a staged row without its evidence; a version 1 ledger takes it, as before', () => {
  for (const version of [2, 1]) {
    const repo = tempRepo({ env: { PATCHWARDEN_NOW: NOW } });
    repo.commit({ 'src/app.py': 'x = 1\n', [LEDGER]: `version: ${version}\nrecords: []\n` }, 'start');
    copyFileSync(path.join(PROJECT, 'hooks/pre-commit'), path.join(repo.dir, '.git/hooks/pre-commit'));
    repo.write(
      LEDGER,
      `version: ${version}\nrecords:\n  - sig: 7c1a9e2b44d0af13\n    reason: clock skew\n    owner: qa\n    expires: 2026-12-09T00:00:00Z\n    seed: "7"\n    env_class: remote\n`,
    );
    repo.git(['add', LEDGER]);
    const r = repo.git(['commit', '-qm', 'freeze'], { allowFail: true });
    if (version === 2) {
      assert.is.not(r.code, 0, 'refused');
      assert.match(
        r.stderr + r.stdout,
        /\[ledger-evidence\] freeze\/signatures\.yaml:3: the row for sig 7c1a9e2b44d0af13 carries no replay evidence: no fixture .*; no ci .*; no run/,
      );
    } else {
      assert.is(r.code, 0, r.stderr);
    }
  }
});

test.run();
