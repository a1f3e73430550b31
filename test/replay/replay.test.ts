// `patchwarden replay` and `replay merge` end to end: the built CLI, real git
// repositories and real pytest runs.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const FIX = 'a1b2c3d4e5f60789';
const PYTEST = 'python3 -m pytest -q -p no:cacheprovider tests --junitxml={junit}';
const withPytest = testUnless(pytestMissing);

// A project whose tests each behave one way across runs: the counter files
// make a case fail on every second run, the way a flake does.
const PROJECT = {
  '.patchwarden.yml': 'version: 1\n',
  'src/calc.py': 'def add(a, b):\n    return a - b\n',
  'tests/conftest.py': 'import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent))\n',
  'tests/test_cases.py': `import os, pathlib, pytest
from src.calc import add

HERE = pathlib.Path(__file__).parent

def bump(name):
    f = HERE / name
    n = int(f.read_text()) if f.exists() else 0
    f.write_text(str(n + 1))
    return n

def test_alternate_pinned(record_property):
    record_property("fixture", "${FIX}")
    assert bump("counter-a") % 2 == 0

def test_alternate_plain():
    assert bump("counter-b") % 2 == 0

def test_always_fails():
    assert add(2, 2) == 4

def test_always_passes(record_property):
    record_property("invariant", "calc.always")
    assert True

@pytest.mark.parametrize("seed", ["4242"], ids=["invariant:seed.reaches"])
def test_seed(seed):
    assert os.environ.get("PROP_SEED") == seed

def test_unkeyed_pass():
    assert True
`,
};

function project(): TempRepo {
  const repo = tempRepo();
  repo.commit(PROJECT);
  return repo;
}

/** `replay … --format json`: the format goes before `--`, where everything after is the command. */
function replayJson(
  repo: TempRepo,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number; out: Record<string, any>; stderr: string } {
  const lead = args[0] === 'merge' ? ['merge'] : [];
  const r = repo.pw(['replay', ...lead, '--format', 'json', ...args.slice(lead.length)], { env });
  try {
    return { code: r.code, out: JSON.parse(r.stdout), stderr: r.stderr };
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
}

const byName = (out: Record<string, any>) => Object.fromEntries((out.cases as any[]).map((c) => [c.name, c]));

withPytest(
  'real pytest: flicker, stable_fail and stable_pass, keyed by id or signature, with remote freeze candidates',
  () => {
    const repo = project();
    const r = replayJson(repo, ['--runs', '4', '--seed', '4242', '--env-class', 'remote', '--', PYTEST]);
    assert.is(r.code, 1, 'a stable_fail case makes the replay exit 1');
    assert.is(r.out.ok, false);
    assert.is(r.out.env_class, 'remote');
    assert.is(r.out.runs.length, 4);
    const c = byName(r.out);
    assert.equal(Object.keys(c).sort(), [
      'test_alternate_pinned',
      'test_alternate_plain',
      'test_always_fails',
      'test_always_passes',
      'test_seed[invariant:seed.reaches]',
    ]);

    const pinned = c.test_alternate_pinned;
    assert.is(pinned.key, `fixture:${FIX}`);
    assert.is(pinned.status, 'flicker');
    assert.equal([pinned.runs, pinned.fails, pinned.passes], [4, 2, 2]);
    assert.is(pinned.freeze_candidate.fixture, FIX);
    assert.is(pinned.freeze_candidate.seed, 4242);
    assert.is(pinned.freeze_candidate.env_class, 'remote');
    assert.is(pinned.freeze_candidate.owner, null);
    assert.match(pinned.freeze_candidate.sig, /^[0-9a-f]{16}$/);
    assert.ok(
      pinned.freeze_candidate.command.startsWith(`patchwarden freeze add --sig=${pinned.freeze_candidate.sig} `),
    );

    // No id: its failing runs are keyed by signature, its passing runs are the runs without that failure.
    const plain = c.test_alternate_plain;
    assert.match(plain.key, /^sig:[0-9a-f]{16}$/);
    assert.is(plain.status, 'flicker');
    assert.equal([plain.fails, plain.passes], [2, 2]);
    assert.ok(plain.freeze_candidate);
    assert.is.not(plain.key, `sig:${pinned.freeze_candidate.sig}`);

    assert.is(c.test_always_fails.status, 'stable_fail');
    assert.match(c.test_always_fails.key, /^sig:/);
    assert.is(c.test_always_fails.freeze_candidate, null);
    assert.is(c.test_always_passes.key, 'invariant:calc.always');
    assert.is(c.test_always_passes.status, 'stable_pass');
    assert.is(c.test_always_passes.freeze_candidate, null);

    // The seed reached every run: the case that checks PROP_SEED passed each time.
    assert.is(c['test_seed[invariant:seed.reaches]'].key, 'invariant:seed.reaches');
    assert.is(c['test_seed[invariant:seed.reaches]'].status, 'stable_pass');
    for (const v of r.out.cases) assert.ok(!String(v.key).includes('test_'), `a key is never a name: ${v.key}`);

    // Progress on stderr; stdout holds only the JSON object.
    assert.match(r.stderr, /replay: run 1 of 4/);
    assert.match(r.stderr, /replay: run 4 of 4: exit 1/);
    // The ledger is never written.
    assert.is(repo.git(['status', '--porcelain', '--', 'freeze']).stdout, '');
  },
);

withPytest('real pytest: another seed reaches the command, and the seed case fails in every run', () => {
  const repo = project();
  const r = replayJson(repo, ['--runs', '2', '--seed', '77', '--', PYTEST], { CI: '' });
  const seed = byName(r.out)['test_seed[invariant:seed.reaches]'];
  assert.is(seed.status, 'stable_fail');
  assert.is(r.out.env_class, 'local', 'local when CI is not true');
});

withPytest('real pytest: --env-class local gives no candidate; CI=true makes the default remote', () => {
  const local = replayJson(project(), ['--runs', '2', '--seed', '4242', '--env-class', 'local', '--', PYTEST], {
    CI: 'true',
  });
  const c = byName(local.out);
  assert.is(c.test_alternate_pinned.status, 'flicker');
  assert.is(c.test_alternate_pinned.freeze_candidate, null);
  assert.is(c.test_alternate_plain.freeze_candidate, null);
  assert.ok(local.out.cases.every((v: any) => v.freeze_candidate === null));

  const ci = replayJson(project(), ['--runs', '2', '--seed', '4242', '--', PYTEST], { CI: 'true' });
  assert.is(ci.out.env_class, 'remote');
  assert.ok(byName(ci.out).test_alternate_pinned.freeze_candidate);
});

withPytest('real pytest: the text output prints the freeze add line for a human', () => {
  const r = project().pw(['replay', '--runs', '2', '--seed', '4242', '--env-class', 'remote', '--', PYTEST]);
  assert.is(r.code, 1);
  assert.match(r.stdout, /flicker\s+test_alternate_pinned\s+\[fixture:a1b2c3d4e5f60789\]/);
  assert.match(r.stdout, /patchwarden freeze add --sig=[0-9a-f]{16} --reason=.* --owner="\$\{OWNER:\?/);
  assert.match(r.stdout, /the ledger was not touched/);
});

test('a command that writes no report: every run counts as failed, nothing to classify, exit 2', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const r = replayJson(repo, ['--runs', '2', '--seed', '1', '--', ': {junit}; echo no report here; exit 3']);
  assert.is(r.code, 2);
  assert.is(r.out.ok, false);
  assert.match(r.out.error, /no run left a usable report \(wrote no report\)/);
});

withPytest('real pytest: a run that crashes without a report is a failed run with its exit code, not a pass', () => {
  const repo = project();
  // Every second run dies before pytest starts.
  repo.write(
    'crashy.sh',
    'n=$(cat .crashes 2>/dev/null || echo 0); echo $((n+1)) > .crashes\nif [ $((n % 2)) -eq 1 ]; then echo boom >&2; exit 9; fi\nexec "$@"\n',
  );
  const out = path.join(repo.dir, 'results.json');
  const r = replayJson(repo, [
    '--runs',
    '4',
    '--seed',
    '4242',
    '--env-class',
    'remote',
    '--out',
    out,
    '--',
    `sh crashy.sh ${PYTEST}`,
  ]);
  const passes = byName(r.out).test_always_passes;
  assert.is(passes.status, 'flicker');
  assert.equal([passes.crashed, passes.fails, passes.passes], [2, 2, 2]);
  // No failure signature was seen for it, so no freeze can be proposed.
  assert.is(passes.freeze_candidate, null);
  assert.equal(
    r.out.runs.map((x: any) => [x.exit_code, x.report]),
    [
      [1, true],
      [9, false],
      [1, true],
      [9, false],
    ],
  );
  const saved = JSON.parse(readFileSync(out, 'utf8'));
  assert.is(saved.runs[1].exit_code, 9);
  assert.match(saved.runs[1].output_tail, /boom/);
});

test('runs whose report cannot be trusted count as failed runs: truncated, empty, or disagreeing with the exit code either way', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const tries: [string, RegExp][] = [
    [`printf '<testsuite><testcase name="t"' > "$PATCHWARDEN_JUNIT"`, /its report cannot be read: .+/],
    [`printf '<testsuite tests="0"></testsuite>' > "$PATCHWARDEN_JUNIT"`, /its report holds no test case/],
    [
      `printf '<testsuite><testcase name="t"><properties><property name="invariant" value="a.b"/></properties></testcase></testsuite>' > "$PATCHWARDEN_JUNIT"; exit 3`,
      /the report disagrees with the exit code: the command exited 3 while its report shows no failing or erroring case/,
    ],
    [
      `printf '<testsuite><testcase name="t"><failure message="boom"/></testcase></testsuite>' > "$PATCHWARDEN_JUNIT"; exit 0`,
      /the report disagrees with the exit code: the command exited 0 while its report shows 1 failing or erroring case/,
    ],
  ];
  for (const [command, message] of tries) {
    const r = replayJson(repo, ['--runs', '2', '--seed', '1', '--', command]);
    assert.is(r.code, 2, command);
    assert.match(r.out.error, message);
  }
  // The same passing report with exit 0 is a usable one.
  const ok = replayJson(repo, ['--runs', '2', '--seed', '1', '--', tries[2][0].replace('; exit 3', '')]);
  assert.is(ok.code, 0);
  assert.is(ok.out.cases[0].status, 'stable_pass');
});

test('words after -- are the command, even --help and -h', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const r = replayJson(repo, [
    '--runs',
    '2',
    '--seed',
    '1',
    '--',
    ':',
    '{junit};',
    'echo',
    '--help',
    '-h',
    '>',
    'seen.txt',
  ]);
  assert.is(r.code, 2, 'it ran the command, which wrote no report');
  assert.is(readFileSync(path.join(repo.dir, 'seen.txt'), 'utf8'), '--help -h\n');
});

test('a runner killed by its timeout counts as a failed run', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const r = replayJson(repo, ['--runs', '2', '--seed', '1', '--timeout', '200ms', '--', ': {junit}; sleep 5']);
  assert.is(r.code, 2);
  assert.match(r.out.error, /timed out/);
});

withPytest(
  'real pytest: merge over two runners of different classes; passing on one and failing on the other is flicker',
  () => {
    const repo = tempRepo();
    repo.commit({
      '.patchwarden.yml': 'version: 1\n',
      'tests/test_runner.py': `import os\n\ndef test_runner_bound(record_property):\n    record_property("fixture", "${FIX}")\n    assert os.environ.get("RUNNER") != "b"\n`,
    });
    const a = path.join(repo.dir, 'a.json');
    const b = path.join(repo.dir, 'b.json');
    const ra = replayJson(repo, ['--runs', '2', '--seed', '5', '--env-class', 'local', '--out', a, '--', PYTEST], {
      RUNNER: 'a',
    });
    const rb = replayJson(repo, ['--runs', '2', '--seed', '5', '--env-class', 'remote', '--out', b, '--', PYTEST], {
      RUNNER: 'b',
    });
    assert.is(ra.out.cases[0].status, 'stable_pass');
    assert.is(ra.code, 0);
    assert.is(rb.out.cases[0].status, 'stable_fail');
    assert.is(rb.code, 1);

    const m = replayJson(repo, ['merge', a, b]);
    assert.is(m.code, 0);
    assert.is(m.out.env_class, 'remote', 'remote when any input is');
    assert.is(m.out.runs.length, 4);
    assert.equal(
      m.out.runs.map((x: any) => x.source),
      [a, a, b, b],
    );
    const [v] = m.out.cases;
    assert.is(v.key, `fixture:${FIX}`);
    assert.is(v.status, 'flicker');
    assert.equal([v.passes, v.fails], [2, 2]);
    assert.is(v.freeze_candidate.env_class, 'remote');
    assert.is(v.freeze_candidate.seed, 5);

    // Two local runners: flicker still, but no candidate.
    const a2 = path.join(repo.dir, 'a2.json');
    const local = JSON.parse(readFileSync(b, 'utf8'));
    writeFileSync(a2, JSON.stringify({ ...local, env_class: 'local' }));
    const ml = replayJson(repo, ['merge', a, a2]);
    assert.is(ml.out.env_class, 'local');
    assert.is(ml.out.cases[0].status, 'flicker');
    assert.is(ml.out.cases[0].freeze_candidate, null);

    // Another seed is another experiment: refused to merge.
    const other = path.join(repo.dir, 'other.json');
    writeFileSync(other, JSON.stringify({ ...local, seed: '6' }));
    const ms = replayJson(repo, ['merge', a, other]);
    assert.is(ms.code, 2);
    assert.match(ms.out.error, /seed 6 differs from seed 5/);
  },
);

withPytest(
  'real pytest: merge --out writes one results file, and its freeze add --from-replay line, run as printed, is accepted',
  () => {
    const repo = tempRepo();
    repo.commit({
      '.patchwarden.yml': 'version: 1\n',
      'tests/test_runner.py': 'import os\n\ndef test_runner_bound():\n    assert os.environ.get("RUNNER") != "b"\n',
    });
    assert.is(repo.pw(['freeze', 'init']).code, 0);
    const [a, b] = ['a.json', 'b.json'];
    for (const [file, runner] of [
      [a, 'a'],
      [b, 'b'],
    ])
      replayJson(repo, ['--runs', '2', '--seed', '5', '--env-class', 'remote', '--out', file, '--', PYTEST], {
        RUNNER: runner,
        // The CI run a version 2 row names, as GitHub Actions sets it.
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_ID: '4242',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'acme/shop',
      });
    // Without --out the line is the old one, which a flake without input cannot be frozen by.
    const old = replayJson(repo, ['merge', a, b]).out.cases[0];
    assert.is(old.status, 'flicker');
    assert.ok(old.freeze_candidate.command.startsWith('patchwarden freeze add --sig='), old.freeze_candidate.command);
    const m = replayJson(repo, ['merge', '--out', 'merged.json', a, b]);
    const [v] = m.out.cases;
    assert.equal([v.status, v.passes, v.fails], ['flicker', 2, 2]);
    const line: string = v.freeze_candidate.command;
    assert.ok(line.startsWith('patchwarden freeze add --from-replay=merged.json '), line);
    const merged = JSON.parse(readFileSync(path.join(repo.dir, 'merged.json'), 'utf8'));
    assert.equal(
      merged.runs.map((r: { run: number }) => r.run),
      [1, 2, 3, 4],
    );
    const added = sh('sh', ['-c', line], {
      cwd: repo.dir,
      env: { ...repo.env, OWNER: 'qa-team', REASON: 'runner b has no display' },
    });
    assert.is(added.code, 0, added.stdout + added.stderr);
    const [row] = repo.json(['freeze', 'list']).out.records;
    assert.equal(
      [row.fixture, row.runs, row.fails, row.seed, row.run],
      ['none', '4', '2', '5', 'https://github.com/acme/shop/actions/runs/4242'],
    );
    assert.is(repo.json(['freeze', 'check']).code, 0);
    // Files pinned to other environments are not one experiment: no merged file is written.
    const other = JSON.parse(readFileSync(path.join(repo.dir, b), 'utf8'));
    writeFileSync(path.join(repo.dir, 'c.json'), JSON.stringify({ ...other, env: { ...other.env, TZ: 'Asia/Tokyo' } }));
    const refused = replayJson(repo, ['merge', '--out', 'mixed.json', a, 'c.json']);
    assert.is(refused.code, 2);
    assert.match(refused.out.error, /pinned environment differs/);
  },
);

test('merge: malformed, foreign, tampered and missing results files exit 2 naming the file', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const good = {
    format: 'patchwarden-replay',
    version: 1,
    seed: '1',
    env_class: 'local',
    command: 'x',
    runner: 'h',
    started: '2026-01-01T00:00:00Z',
    runs: [
      {
        run: 1,
        exit_code: 1,
        signal: null,
        timed_out: false,
        report: true,
        elapsed_ms: 3,
        cases: [{ key: 'invariant:a.b', kind: 'invariant', name: 't', outcome: 'pass', invariant: 'a.b' }],
      },
    ],
  };
  const cases: [string, string, RegExp][] = [
    ['broken.json', '{"format": "patchwarden-replay",\n  "runs": [}', /broken\.json(:2)?: malformed JSON/],
    ['array.json', '[1, 2]', /array\.json: not a replay results file/],
    ['other.json', JSON.stringify({ format: 'something-else' }), /other\.json: not a replay results file/],
    ['v2.json', JSON.stringify({ ...good, version: 2 }), /v2\.json: unknown results version 2/],
    [
      'byname.json',
      JSON.stringify({
        ...good,
        runs: [
          {
            ...good.runs[0],
            cases: [{ key: 'name:t', kind: 'invariant', name: 't', outcome: 'pass', invariant: 'a.b' }],
          },
        ],
      }),
      /byname\.json: runs\[0\]\.cases\[0\]\.key does not follow/,
    ],
    ['env.json', JSON.stringify({ ...good, env_class: 'laptop' }), /env\.json: "env_class" must be/],
  ];
  for (const [file, content] of cases) repo.write(file, content);
  repo.write('good.json', JSON.stringify(good));
  for (const [file, , message] of cases) {
    const r = replayJson(repo, ['merge', 'good.json', file]);
    assert.is(r.code, 2, file);
    assert.match(r.out.error, message);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
  }
  const missing = replayJson(repo, ['merge', 'nope.json']);
  assert.is(missing.code, 2);
  assert.match(missing.out.error, /nope\.json: cannot read the results: ENOENT/);
  const ok = replayJson(repo, ['merge', 'good.json']);
  assert.is(ok.code, 0);
  assert.is(ok.out.cases[0].status, 'stable_pass');
});

test('usage: missing seed, too few runs, no command, bad env class exit 2', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const tries: [string[], RegExp][] = [
    [['replay', '--', 'true'], /--seed is required/],
    [['replay', '--seed', '1', '--runs', '1', '--', 'true'], /--runs must be/],
    [['replay', '--seed', '1'], /no command/],
    [['replay', '--seed', '1', '--env-class', 'laptop', '--', 'true'], /--env-class must be local or remote/],
    [['replay', '--seed', 'a b', '--', 'true'], /--seed must be/],
    [['replay', 'merge'], /at least one results file/],
  ];
  for (const [args, message] of tries) {
    const r = repo.pw(args);
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
  }
});

withPytest('real pytest: a fixture property that is not a fixture id cannot be judged', () => {
  const repo = tempRepo();
  repo.commit({
    'tests/test_bad.py':
      'def test_bad(record_property):\n    record_property("fixture", "test_bad")\n    assert False\n',
  });
  const r = replayJson(repo, ['--runs', '2', '--seed', '1', '--', PYTEST]);
  assert.is(r.code, 2);
  assert.match(
    r.out.error,
    /report of run 1: test case "test_bad" has fixture property "test_bad", which is not a fixture id/,
  );
});

test.after(cleanup);
test.run();
