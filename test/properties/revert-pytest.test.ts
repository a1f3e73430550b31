// The revert check on sample projects under real pytest, in temporary
// worktrees; after each check the user's tree, index, stash, refs and
// worktree list are exactly as before.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, sh, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, fingerprint, FIXED_PY, project, pyProperty, PYTEST, registry } from './projects.js';

const ID = 'bill.total_non_negative';
const baseFiles = (extra: Record<string, string> = {}) => ({
  '.patchwarden.yml': config(PYTEST),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': BUGGY_PY,
  ...extra,
});

/** Runs revert-check with JSON output and proves the user's state did not move. */
function check(repo: TempRepo, base: string, head: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const before = fingerprint(repo);
  const r = repo.json(['revert-check', '--base', base, '--head', head, ...extra], { env });
  assert.equal(fingerprint(repo), before, 'the working tree, index, stash, refs and worktrees are as before');
  return r;
}

const pyTest = testUnless(pytestMissing);

test.after.each(cleanup);

pyTest("an editable install (a .pth naming the repository's src): each run imports its own tree", () => {
  // No `pythonpath = src`: the project is importable only through the install,
  // into a .venv inside the repository as uv makes it.
  const { repo, base, head } = project(
    baseFiles({ 'pytest.ini': '[pytest]\n', '.gitignore': '.venv/\n__pycache__/\n.pytest_cache/\nbuild/\n' }),
    { 'src/bill.py': FIXED_PY },
  );
  const venv = path.join(repo.dir, '.venv');
  sh('python3', ['-m', 'venv', '--system-site-packages', '--without-pip', venv]);
  const python = path.join(venv, 'bin', 'python3');
  const site = sh(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])']).stdout.trim();
  writeFileSync(path.join(site, '__editable__.bill-0.1.pth'), `${realpathSync(repo.dir)}/src\n`);
  assert.match(sh(python, ['-c', 'import bill; print(bill.__file__)'], { cwd: venv }).stdout, realpathSync(repo.dir));
  const r = check(repo, base, head, [], { PATH: `${path.dirname(python)}:${process.env.PATH}` });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.equal(r.out.failing_on_revert, [ID]);
});

pyTest('a bug fix whose property fails without it: describes_patch, exit 0', () => {
  const { repo, base, head } = project(baseFiles(), { 'src/bill.py': FIXED_PY });
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.equal(r.out.failing_on_revert, [ID]);
  assert.equal(r.out.reverted, [{ path: 'src/bill.py', action: 'restored' }]);
  assert.is(r.out.head_run.invariants[0].status, 'passed');
  assert.is(r.out.revert_run.invariants[0].status, 'failed');
  assert.match(r.stderr, /revert-check: running the properties on head/);
  assert.match(r.stderr, /\[\d+(\.\d)?m?s\]/, 'progress lines carry the time spent');
});

pyTest('the [invariant:ID] token in pytest case ids maps cases too', () => {
  const { repo, base, head } = project(baseFiles({ 'spec/properties/test_bill.py': pyProperty(ID, { token: true }) }), {
    'src/bill.py': FIXED_PY,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.is(r.out.revert_run.invariants[0].cases.length, 2);
});

pyTest('a patch the property does not describe: does_not_describe, exit 1', () => {
  const { repo, base, head } = project(baseFiles({ 'src/bill.py': FIXED_PY }), {
    'src/bill.py': FIXED_PY + '\ndef fmt(x):\n    return f"{x:.2f}"\n',
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.ok, false);
  assert.is(r.out.status, 'does_not_describe');
  assert.equal(r.out.failing_on_revert, []);
  const text = repo.pw(['revert-check', '--base', base, '--head', head]);
  assert.match(text.stdout, /refused \[revert\] does_not_describe/);
  assert.match(text.stdout, /src\/bill\.py/);
  // What the property command said comes from the run that decided, and says which it was.
  assert.match(text.stderr, /the property command said, with the production diff reverted:/);
});

pyTest('a patch that does not fix a red base: pending_unmarked, exit 1, the row edit and pytest output shown', () => {
  const { repo, base, head } = project(baseFiles(), { 'src/bill.py': BUGGY_PY + 'TRIED = 1\n' });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'pending_unmarked');
  assert.match(r.out.reason, /the base itself fails bill\.total_non_negative .*: mark it pending, reviewed, or fix it/);
  assert.match(r.out.fix, /pending: \{since: \d{4}-\d{2}-\d{2}, owner: NAME, reason: WHY THE BASE FAILS IT\}/);
  assert.equal(
    r.out.states.map((i: any) => [i.id, i.state]),
    [[ID, 'pending']],
  );
  assert.match(r.stderr, /the property command said, on head:/);
  assert.match(r.stderr, /assert -1 >= 0/);
});

pyTest('a registered invariant no case exercises is refused, naming it', () => {
  const { repo, base, head } = project(baseFiles({ 'spec/invariants.yaml': registry(ID, 'bill.rounding') }), {
    'src/bill.py': FIXED_PY,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(r.out.reason, /exercised by no test case: bill\.rounding/);
});

pyTest('a case naming an unregistered invariant is refused, naming it', () => {
  const { repo, base, head } = project(baseFiles({ 'spec/properties/test_extra.py': pyProperty('bill.made_up') }), {
    'src/bill.py': FIXED_PY,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(
    r.out.reason,
    /names invariant bill\.made_up, which [0-9a-f]{12}:spec\/invariants\.yaml does not register/,
  );
});

pyTest(
  'the registry and the properties come from the base side: dropping an id and its property in the patch changes nothing',
  () => {
    const { repo, base, head } = project(
      baseFiles({
        'spec/invariants.yaml': registry(ID, 'bill.rounding'),
        'spec/properties/test_round.py': pyProperty('bill.rounding'),
      }),
      { 'src/bill.py': FIXED_PY, 'spec/invariants.yaml': registry(ID), 'spec/properties/test_round.py': null },
    );
    const r = check(repo, base, head);
    assert.is(r.code, 0, r.stderr);
    assert.equal(
      r.out.head_run.invariants.map((i: any) => [i.id, i.status]),
      [
        [ID, 'passed'],
        ['bill.rounding', 'passed'],
      ],
    );
    assert.equal(r.out.failing_on_revert, [ID, 'bill.rounding']);
    assert.equal(r.out.outside_src, ['spec/invariants.yaml', 'spec/properties/test_round.py']);
  },
);

pyTest('a patch that adds and renames src files: the reverted tree is the base tree in src', () => {
  const listing = path.join(mkdtempSync(path.join(tmpdir(), 'pw-listing-')), 'listing.txt');
  const cmd = `find src -type f | LC_ALL=C sort >> "$PW_LISTING"; echo --- >> "$PW_LISTING"; ${PYTEST}`;
  const { repo, base, head } = project(
    baseFiles({
      '.patchwarden.yml': config(cmd),
      'src/bill.py': 'from helpers_old import offset\n\ndef total(xs):\n    return sum(xs) - offset\n',
      'src/helpers_old.py': 'offset = 1\n',
      'src/keep me.py': 'x = 1\n',
    }),
    {
      'src/helpers_old.py': null,
      'src/helpers.py': 'offset = 0\n',
      'src/pkg/extra.py': 'y = 2\n',
      'src/bill.py': 'from helpers import offset\n\ndef total(xs):\n    return sum(xs) - offset\n',
    },
  );
  try {
    const r = check(repo, base, head, [], { PW_LISTING: listing });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.out.status, 'describes_patch');
    const [onRevert, onHead] = readFileSync(listing, 'utf8').split('---\n'); // the base runs first
    assert.is(onHead, 'src/bill.py\nsrc/helpers.py\nsrc/keep me.py\nsrc/pkg/extra.py\n');
    assert.is(onRevert, 'src/bill.py\nsrc/helpers_old.py\nsrc/keep me.py\n');
    const actions = Object.fromEntries(r.out.reverted.map((x: { path: string; action: string }) => [x.path, x.action]));
    assert.equal(actions, {
      'src/bill.py': 'restored',
      'src/helpers.py': 'removed',
      'src/helpers_old.py': 'restored',
      'src/pkg/extra.py': 'removed',
    });
  } finally {
    rmSync(path.dirname(listing), { recursive: true, force: true });
  }
});

pyTest('properties that cannot even be imported on the reverted tree: revert_broken, exit 1', () => {
  const { repo, base, head } = project(baseFiles({ 'src/bill.py': 'def subtotal(xs):\n    return sum(xs)\n' }), {
    'src/bill.py': FIXED_PY,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'revert_broken');
  assert.match(r.out.reason, /could not be collected/);
  assert.match(r.stderr, /ImportError|cannot import name/);
});

pyTest('a range without production code: not_applicable, exit 0, nothing run', () => {
  const { repo, base, head } = project(baseFiles(), {
    'docs/guide.md': 'words\n',
    'tests/test_x.py': 'def test_x():\n    pass\n',
  });
  const r = check(repo, base, head);
  assert.is(r.code, 0);
  assert.is(r.out.status, 'not_applicable');
  assert.is(r.out.head_run, null);
});

pyTest('a command past properties.timeout is killed and refused', () => {
  const cmd = `sleep 60; ${PYTEST}`;
  const { repo, base, head } = project(baseFiles({ '.patchwarden.yml': config(cmd, '  timeout: 1s\n') }), {
    'src/bill.py': FIXED_PY,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(r.out.reason, /ran past properties\.timeout \(1\.0s\) and was killed/);
});

pyTest('a command that writes no report is refused, saying so', () => {
  const { repo, base, head } = project(baseFiles({ '.patchwarden.yml': config('echo ran without a report') }), {
    'src/bill.py': FIXED_PY,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.match(r.out.reason, /without writing its JUnit report/);
  assert.match(r.stderr, /ran without a report/);
});

pyTest('a malformed registry cannot judge: exit 2 naming the file and line', () => {
  const { repo, base, head } = project(
    baseFiles({
      'spec/invariants.yaml': 'version: 1\ninvariants:\n  - id: a\n    description: x\n  - id: a\n    description: y\n',
    }),
    { 'src/bill.py': FIXED_PY },
  );
  const r = check(repo, base, head);
  assert.is(r.code, 2);
  assert.match(r.out.error, /spec\/invariants\.yaml:5: invariant a is listed twice/);
});

pyTest('no --base and no upstream: exit 2 saying how to name one; an upstream gives the merge-base', () => {
  const { repo, base, head } = project(baseFiles(), { 'src/bill.py': FIXED_PY });
  const r = repo.json(['revert-check']);
  assert.is(r.code, 2);
  assert.match(r.out.error, /has no upstream branch; name one with --base REV/);
  repo.git(['branch', 'reviewed', base]);
  repo.git(['branch', '--set-upstream-to=reviewed']);
  const up = repo.json(['revert-check']);
  assert.is(up.code, 0, up.stderr);
  assert.is(up.out.base, base);
  assert.is(up.out.head, head);
});

test.run();
