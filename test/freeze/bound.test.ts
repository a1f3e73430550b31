// Freeze rows bound to their replay evidence, on real pytest runs: replay
// --out writes the results, replay prints the freeze add --from-replay line,
// the owner runs it as printed, and every later check re-reads the file kept
// under freeze/evidence/ by its digest. A timing flake (no input) is frozen
// with fixture none, under version 3 and under the default version 2.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { NOW, sample } from '../gate/sample.js';
import { GITHUB_RUN } from '../helpers/flake.js';

const t = testUnless(pytestMissing);
test.after.each(cleanup);

const LEDGER = 'freeze/signatures.yaml';
const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider tests --junitxml={junit}';
const CONFIG = `version: 1\nsuite:\n  command: ${PYTEST}\n`;
const RUN_URL = 'https://github.com/acme/shop/actions/runs/4242';
const WORK =
  'import time\n\n\ndef slow_step(seconds):\n    time.sleep(seconds)\n\n\ndef on_time(n):\n    return n % 2 == 0\n';
// A timing flake: every other run the step is slow and misses its deadline. No input, no seed reaches it.
const DEADLINE = `import pathlib
import time

from work import slow_step

COUNT = pathlib.Path(__file__).parent / "deadline.count"


def test_deadline():
    n = int(COUNT.read_text()) if COUNT.exists() else 0
    COUNT.write_text(str(n + 1))
    start = time.monotonic()
    slow_step(0.3 if n % 2 else 0.0)
    assert time.monotonic() - start < 0.2, "the step ran past its deadline"
`;
// A flake on a pinned input: the case names its fixture.
const PINNED = (id: string) => `import pathlib

from work import on_time

COUNT = pathlib.Path(__file__).parent / "pinned.count"


def test_pinned(record_property):
    record_property("fixture", "${id}")
    n = int(COUNT.read_text()) if COUNT.exists() else 0
    COUNT.write_text(str(n + 1))
    assert on_time(n), "the pinned step was late"
`;
const ALWAYS = 'from work import on_time\n\n\ndef test_always():\n    assert on_time(1), "always late"\n';
const FILES = {
  'pytest.ini': '[pytest]\npythonpath = src\n',
  'src/work.py': WORK,
  'tests/test_deadline.py': DEADLINE,
  '.gitignore': 'tests/*.count\nreplay.json\n__pycache__/\n',
};

/** main with the suite, a ledger `freeze init` wrote (of `version`, its default when none) and the given tests. */
function project(version: string | null, tests: (fixture: (input: string) => string) => Record<string, string>) {
  const repo = sample(CONFIG, FILES);
  repo.git(['checkout', '-q', 'main']);
  const fixture = (input: string) => {
    const r = repo.json(['fixtures', 'add', '-'], { input });
    assert.is(r.code, 0, r.stderr);
    return r.out.id as string;
  };
  for (const [f, text] of Object.entries(tests(fixture))) repo.write(f, text);
  const init = repo.pw(['freeze', 'init', ...(version ? ['--version', version] : [])]);
  assert.is(init.code, 0, init.stderr);
  repo.git(['add', '-A']);
  repo.git(['commit', '-qm', 'suite, inputs and ledger']);
  return repo;
}

/** replay on remote runners (GitHub's variables), its JSON cases by test name. */
function replay(repo: TempRepo) {
  const r = repo.pw(
    ['replay', '--runs', '4', '--seed', '20260917', '--out', 'replay.json', '--format', 'json', '--', PYTEST],
    { env: GITHUB_RUN },
  );
  const out = JSON.parse(r.stdout);
  return { code: r.code, byName: new Map<string, any>(out.cases.map((c: any) => [c.name, c])) };
}

/** Runs a printed line in a shell, as the owner would, with OWNER and REASON set. */
function runAsPrinted(repo: TempRepo, line: string, reason: string) {
  return sh('sh', ['-c', line], { cwd: repo.dir, env: { ...repo.env, OWNER: 'qa-team', REASON: reason } });
}

const ledger = (repo: TempRepo) => readFileSync(path.join(repo.dir, LEDGER), 'utf8');

t(
  'version 3: rows come from replay evidence; a timing flake is frozen with fixture none and the gate passes it',
  () => {
    let pinnedId = '';
    let otherId = '';
    const repo = project('3', (fixture) => {
      pinnedId = fixture('{"late": 1}');
      otherId = fixture('{"late": 2}');
      return { 'tests/test_pinned.py': PINNED(pinnedId) };
    });
    const { code, byName } = replay(repo);
    assert.is(code, 0);
    const deadline = byName.get('test_deadline');
    const pinned = byName.get('test_pinned');
    assert.is(deadline.status, 'flicker');
    const line = deadline.freeze_candidate.command as string;
    assert.match(line, /^patchwarden freeze add --from-replay=replay\.json --sig=[0-9a-f]{16} --reason="\$\{REASON:\?/);
    assert.not.match(line, /--fixture/);
    assert.is(deadline.freeze_candidate.fixture, 'none');

    // A hand-typed row, with every piece of evidence typed in, is refused under version 3.
    const typed = repo.json([
      'freeze',
      'add',
      '--sig',
      pinned.sigs[0],
      '--reason',
      'the step is late on loaded runners',
      '--owner',
      'qa',
      '--ttl',
      '7d',
      '--fixture',
      pinnedId,
      '--seed',
      '20260917',
      '--env-class',
      'remote',
      '--ci',
      'github',
      '--run',
      RUN_URL,
    ]);
    assert.is(typed.code, 1, JSON.stringify(typed.out));
    assert.match(typed.out.violations[0].message, /names no replay evidence: a version 3 row is added from the file/);

    // A reason that names no cause is refused, and nothing is left behind.
    const digest = createHash('sha256')
      .update(readFileSync(path.join(repo.dir, 'replay.json')))
      .digest('hex');
    const kept = `freeze/evidence/${digest}.json`;
    const before = ledger(repo);
    const bare = runAsPrinted(repo, line, 'flaky');
    assert.is(bare.code, 1, bare.stdout + bare.stderr);
    assert.match(bare.stdout, /gives "flaky" as its reason, which names no cause/);
    assert.is(ledger(repo), before);
    assert.not.ok(existsSync(path.join(repo.dir, kept)), 'no evidence file left');

    // The printed lines, run as printed, are accepted.
    const ok = runAsPrinted(repo, line, 'the step sleeps past its deadline on a loaded runner');
    assert.is(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, new RegExp(`git add -- freeze/signatures\\.yaml ${kept} && git commit`));
    assert.ok(existsSync(path.join(repo.dir, kept)));
    const ran = runAsPrinted(repo, pinned.freeze_candidate.command, 'the pinned step waits on a slow disk');
    assert.is(ran.code, 0, ran.stdout + ran.stderr);
    const rows = repo.json(['freeze', 'list']).out.records;
    const [none, input] = [deadline, pinned].map((c) => rows.find((r: any) => r.sig === c.sigs[0]));
    assert.equal(
      [none.fixture, none.seed, none.env_class, none.ci, none.run, none.runs, none.fails, none.evidence],
      ['none', '20260917', 'remote', 'github', RUN_URL, '4', '2', digest],
    );
    assert.is(input.fixture, pinnedId);
    assert.is(repo.json(['freeze', 'check']).code, 0);
    repo.git(['add', 'freeze']);
    repo.git(['commit', '-qm', 'freeze: two timing flakes, with their evidence']);

    // The gate passes both frozen failures, judged by the base's ledger and evidence.
    repo.git(['checkout', '-q', 'topic']);
    repo.git(['merge', '-q', 'main']);
    repo.commit({ 'README.md': 'sample, documented\n' }, 'docs');
    repo.write('tests/deadline.count', '1');
    repo.write('tests/pinned.count', '1');
    const g = repo.json(['gate', '--base', 'main']);
    const suite = g.out.layers.find((l: { layer: string }) => l.layer === 'suite');
    assert.is(suite.status, 'pass', JSON.stringify(suite));
    assert.equal(suite.details.failures.map((f: any) => [f.name, f.action]).sort(), [
      ['test_deadline', 'frozen'],
      ['test_pinned', 'frozen'],
    ]);

    // A row whose fixture is not its case's input, or claims no input for a case that has one, is refused.
    const text = ledger(repo);
    for (const [edit, why] of [
      [otherId, `fixture ${otherId} is not the input of the case it freezes \\(the evidence shows ${pinnedId}\\)`],
      ['none', `the failing case ran on input ${pinnedId}: fixture none is only for a flicker without input`],
    ]) {
      repo.write(LEDGER, text.replace(`fixture: ${pinnedId}`, `fixture: ${edit}`));
      const c = repo.json(['freeze', 'check']);
      assert.is(c.code, 1);
      assert.match(c.out.violations[0].message, new RegExp(why));
    }
    repo.commit({ [LEDGER]: text.replace(`fixture: ${pinnedId}`, `fixture: ${otherId}`) }, 'freeze: another input');
    const refused = repo.json(['gate', '--base', 'main']);
    const layer = refused.out.layers.find((l: { layer: string }) => l.layer === 'ledger');
    assert.is(layer.status, 'refused');
    assert.match(layer.violations[0].message, /is not the input of the case it freezes/);
    repo.git(['reset', '-q', '--hard', 'HEAD~1']);

    // The evidence file is re-read, by doctor too: edited or missing, the row is refused.
    const doctorLedger = () => repo.json(['doctor']).out.checks.find((c: { check: string }) => c.check === 'ledger');
    assert.is(doctorLedger().ok, true, JSON.stringify(doctorLedger()));
    const abs = path.join(repo.dir, kept);
    writeFileSync(abs, readFileSync(abs, 'utf8').replace('"20260917"', '"20260918"'));
    assert.match(repo.json(['freeze', 'check']).out.violations[0].message, /does not hash to its name/);
    const said = doctorLedger();
    assert.is(said.ok, false);
    assert.match(said.detail, /does not hash to its name/);
    assert.match(said.detail, /git checkout -- freeze\/signatures\.yaml freeze\/evidence`$/);
    rmSync(abs);
    assert.match(repo.json(['freeze', 'check']).out.violations[0].message, /is missing \(commit it with the ledger\)/);
  },
);

t(
  'version 2 (the default): an input-less flake is frozen from the printed line; no other failure uses fixture none',
  () => {
    const repo = project(null, () => ({ 'tests/test_always.py': ALWAYS }));
    assert.match(ledger(repo), /^version: 2$/m);
    const { code, byName } = replay(repo);
    assert.is(code, 1, 'a stable failure fails the replay');
    const deadline = byName.get('test_deadline');
    const always = byName.get('test_always');
    assert.is(always.status, 'stable_fail');
    assert.is(always.freeze_candidate, null);
    const line = deadline.freeze_candidate.command as string;
    assert.match(line, /^patchwarden freeze add --from-replay=replay\.json /);
    const ok = runAsPrinted(repo, line, 'the step sleeps past its deadline on a loaded runner');
    assert.is(ok.code, 0, ok.stdout + ok.stderr);
    const row = repo.json(['freeze', 'list']).out.records[0];
    assert.equal([row.fixture, row.runs, row.fails], ['none', '4', '2']);

    // The failure that fails in every run cannot borrow the same form.
    const stable = runAsPrinted(repo, line.replace(deadline.sigs[0], always.sigs[0]), 'always late, a regression');
    assert.is(stable.code, 1);
    assert.match(stable.stdout, /failed in every run with a report: a failure to fix, not a flake to freeze/);
    // Nor a hand-typed row.
    const typed = repo.pw([
      'freeze',
      'add',
      '--sig',
      always.sigs[0],
      '--reason',
      'late',
      '--owner',
      'qa',
      '--ttl',
      '7d',
      '--fixture',
      'none',
    ]);
    assert.is(typed.code, 1);
    assert.match(typed.stdout, /fixture none is only for a flake its replay shows flickering without input/);
    assert.is(repo.json(['freeze', 'list']).out.records.length, 1);
  },
);

test('an existing version 2 ledger keeps working, and migrates to 3 with its rows valid until they expire', () => {
  const repo = tempRepo({ env: { PATCHWARDEN_NOW: NOW } });
  repo.write('.patchwarden.yml', 'version: 1\nfreeze:\n  require_evidence: false\n');
  const row =
    '  - sig: 7c1a9e2b44d0af13\n    reason: clock skew\n    owner: qa\n    issued: 2026-12-01T00:00:00Z\n    expires: 2026-12-08T00:00:00Z\n';
  repo.write(LEDGER, `version: 2\nrecords:\n${row}`);
  assert.is(repo.json(['freeze', 'check']).code, 0);
  const typedArgs = [
    'freeze',
    'add',
    '--sig',
    '1234567890123456',
    '--reason',
    'slow disk',
    '--owner',
    'qa',
    '--ttl',
    '1d',
  ];
  assert.is(repo.pw(typedArgs).code, 0, 'version 2 takes a hand-typed row as before');
  repo.write(LEDGER, `version: 2\nrecords:\n${row}`);
  const moved = repo.pw(['freeze', 'migrate']);
  assert.is(moved.code, 0, moved.stdout + moved.stderr);
  assert.match(moved.stdout, /is version 3 \(its rows stay valid as version 2 rows until they expire/);
  assert.match(ledger(repo), /^version: 3$/m);
  assert.match(ledger(repo), /^migrated: 2026-12-02T00:00:00Z$/m);
  assert.is(repo.json(['freeze', 'check']).code, 0, 'the old row holds');
  const typed = repo.json(typedArgs);
  assert.is(typed.code, 1);
  assert.match(typed.out.violations[0].message, /names no replay evidence/);
  // Renewing the old row makes it a new one: it needs its evidence now.
  const renewed = repo.json(['freeze', 'extend', '--sig', '7c1a9e2b44d0af13', '--ttl', '7d'], {
    env: { PATCHWARDEN_NOW: '2026-12-03T00:00:00Z' },
  });
  assert.is(renewed.code, 1);
  assert.match(renewed.out.violations[0].message, /names no replay evidence/);
});

test.run();
