// init and doctor against real repositories: plain hooks, husky, a foreign
// hook, core.hooksPath, HUSKY=0 and linked worktrees.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { CLI, PROJECT, cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { ownerKey } from '../helpers/owner.js';

function withSource(): TempRepo {
  const repo = tempRepo();
  repo.commit({ 'src/a.py': 'a = 1\n', 'spec/p.py': 'p = 1\n' }, 'start');
  return repo;
}

/** Stages a mixed change and tries to commit it; true when the hook refused. */
function mixedCommitRefused(repo: TempRepo, env: NodeJS.ProcessEnv = {}): boolean {
  repo.write('src/a.py', `a = ${Math.random()}\n`).write('spec/p.py', `p = ${Math.random()}\n`);
  repo.git(['add', 'src/a.py', 'spec/p.py']);
  const r = repo.git(['commit', '-q', '-m', 'mixed'], { allowFail: true, env });
  if (r.code !== 0) repo.git(['reset', '-q']);
  return r.code !== 0;
}

test.after.each(cleanup);

test('plain install: shims in .git/hooks, the shipped file, idempotent', () => {
  const repo = withSource();
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const hook = path.join(repo.dir, '.git/hooks/pre-commit');
  assert.equal(readFileSync(hook, 'utf8'), readFileSync(path.join(PROJECT, 'hooks/pre-commit'), 'utf8'));
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  const second = repo.json(['init', '--yes', '--owner-key', ownerKey()]);
  assert.equal(second.out.actions, [
    '.patchwarden.yml: kept as it is',
    '.git/hooks/pre-commit: already installed',
    '.git/hooks/pre-merge-commit: already installed',
    '.git/hooks/commit-msg: already installed',
    '.git/hooks/pre-push: already installed',
  ]);
  assert.equal(readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'), config);
  repo.commit({}, 'config');
  assert.ok(mixedCommitRefused(repo));
  const doctor = repo.pw(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout);
  assert.match(doctor.stdout, 'commit-msg: .git/hooks/commit-msg installed and would run');
  // Without it, doctor says so and how to put it back.
  rmSync(path.join(repo.dir, '.git/hooks/commit-msg'));
  const missing = repo.pw(['doctor']);
  assert.is(missing.code, 1, missing.stdout);
  assert.match(
    missing.stdout,
    'PROBLEM commit-msg: .git/hooks/commit-msg does not exist; run `patchwarden init --yes`',
  );
});

test('the shipped shims are one file under three names', () => {
  const body = readFileSync(path.join(PROJECT, 'hooks/pre-commit'));
  for (const name of ['pre-push', 'pre-receive'])
    assert.ok(body.equals(readFileSync(path.join(PROJECT, 'hooks', name))), name);
});

test('the shipped .pre-commit-hooks.yaml offers each hook at its stage, commit-msg with the message file', () => {
  const hooks = parse(readFileSync(path.join(PROJECT, '.pre-commit-hooks.yaml'), 'utf8'));
  assert.equal(
    hooks.map((h: { id: string; stages: string[] }) => [h.id, h.stages]),
    [
      ['patchwarden-pre-commit', ['pre-commit']],
      ['patchwarden-commit-msg', ['commit-msg']],
      ['patchwarden-pre-push', ['pre-push']],
    ],
  );
  assert.is(hooks[1].pass_filenames, undefined, 'the framework passes the message file by default');
});

test('a foreign hook is kept, runs first, and can still stop the commit', () => {
  const repo = withSource();
  const hook = path.join(repo.dir, '.git/hooks/pre-commit');
  const log = path.join(repo.dir, 'foreign.log');
  writeFileSync(hook, `#!/bin/sh\necho ran >> "${log}"\nexit "\${FOREIGN_EXIT:-0}"\n`, { mode: 0o755 });
  const r = repo.json(['init', '--yes', '--owner-key', ownerKey()]);
  assert.ok(
    r.out.actions.some((a: string) => /kept as pre-commit\.pre-patchwarden and runs first/.test(a)),
    JSON.stringify(r.out.actions),
  );
  assert.ok(readFileSync(hook + '.pre-patchwarden', 'utf8').includes('echo ran'));
  repo.commit({}, 'config');
  repo.write('tests/t.py', 't\n').git(['add', 'tests/t.py']);
  const refused = repo.git(['commit', '-q', '-m', 'x'], { allowFail: true, env: { FOREIGN_EXIT: '3' } });
  assert.is.not(refused.code, 0, 'the foreign hook still has its say');
  repo.git(['commit', '-q', '-m', 'x']);
  assert.is(readFileSync(log, 'utf8'), 'ran\nran\n');
  assert.ok(mixedCommitRefused(repo));
  assert.match(repo.pw(['doctor']).stdout, /runs pre-commit\.pre-patchwarden first/);
});

test('--no-chain refuses to touch a foreign hook and says how to proceed', () => {
  const repo = withSource();
  const hook = path.join(repo.dir, '.git/hooks/pre-commit');
  writeFileSync(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const r = repo.pw(['init', '--yes', '--owner-key', ownerKey(), '--no-chain']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /is a hook patchwarden did not write; rerun without --no-chain/);
  assert.is(readFileSync(hook, 'utf8'), '#!/bin/sh\nexit 0\n');
});

test('core.hooksPath is honoured', () => {
  const repo = withSource();
  repo.git(['config', 'core.hooksPath', 'githooks']);
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  assert.ok(existsSync(path.join(repo.dir, 'githooks/pre-commit')));
  assert.not.ok(existsSync(path.join(repo.dir, '.git/hooks/pre-commit')));
  repo.commit({}, 'config and hooks');
  assert.ok(mixedCommitRefused(repo));
});

test("husky: the guard goes into .husky/ before the user's commands; HUSKY=0 and a missing .husky/_ are named", () => {
  const repo = withSource();
  repo.write('package.json', JSON.stringify({ name: 'x', devDependencies: { husky: '^9' } }));
  repo.write('.husky/pre-commit', 'echo lint-staged would run here\n');
  const husky = sh(process.execPath, [path.join(PROJECT, 'node_modules/husky/bin.js')], {
    cwd: repo.dir,
    env: repo.env,
  });
  assert.is(husky.code, 0, husky.stderr + husky.stdout);
  const init = repo.json(['init', '--yes', '--owner-key', ownerKey()]);
  assert.is(init.out.style, 'husky');
  const file = readFileSync(path.join(repo.dir, '.husky/pre-commit'), 'utf8');
  assert.ok(file.startsWith('# patchwarden-managed'), 'the guard runs first');
  assert.ok(file.endsWith('\necho lint-staged would run here\n'), "the user's line is kept, after it");
  assert.match(file, /"\$pw" pre-commit "\$@"/);
  assert.ok(existsSync(path.join(repo.dir, '.husky/pre-push')));
  assert.match(readFileSync(path.join(repo.dir, '.husky/commit-msg'), 'utf8'), /"\$pw" commit-msg "\$@"/);
  repo.commit({}, 'guard');
  assert.ok(mixedCommitRefused(repo), 'husky runs the guard');
  assert.not.ok(mixedCommitRefused(repo, { HUSKY: '0' }), 'HUSKY=0 skips it (so the server and CI gate exist)');
  assert.is(repo.pw(['doctor']).code, 0, repo.pw(['doctor']).stdout);
  const skipped = repo.pw(['doctor'], { env: { HUSKY: '0' } });
  assert.is(skipped.code, 1);
  assert.match(skipped.stdout, /HUSKY=0 is set/);
  // A linked worktree has no .husky/_ (husky's generated, ignored folder).
  const wt = mkdtempSync(path.join(tmpdir(), 'pw-wt-'));
  repo.git(['worktree', 'add', '-q', '--detach', wt]);
  const linked = sh(process.execPath, [CLI, 'doctor', '-C', wt], { env: repo.env });
  assert.is(linked.code, 1);
  assert.match(linked.stdout, /\.husky\/_\/ is missing in this worktree/);
  repo.git(['worktree', 'remove', '--force', wt]);
});

test('doctor names a hook that is not executable and a missing binary', () => {
  const repo = withSource();
  repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  chmodSync(path.join(repo.dir, '.git/hooks/pre-push'), 0o644);
  const r = repo.json(['doctor'], { env: { PATH: '/usr/bin:/bin' } });
  assert.is(r.code, 1);
  const problems = r.out.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { check: string }) => c.check);
  assert.equal(problems, ['pre-push', 'binary']);
});

test('doctor reports a malformed config', () => {
  const repo = withSource();
  repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  repo.write('.patchwarden.yml', 'version: 1\nzones: 3\n');
  const r = repo.json(['doctor']);
  assert.is(r.code, 1);
  assert.match(JSON.stringify(r.out.checks), /\.patchwarden\.yml:2: zones: must be a mapping/);
});

test('doctor checks the ledger, the fixture lock and the registry in the working tree', () => {
  const repo = withSource();
  repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  repo.write('fixtures/input/a.json', '{"a":1}\n');
  assert.is(repo.pw(['fixtures', 'lock']).code, 0);
  repo.write('spec/invariants.yaml', 'version: 1\ninvariants:\n  - id: a.b\n    description: d\n');
  // A registry that nothing runs is a problem, with the fix at the end of its line.
  const unrun = repo.pw(['doctor']);
  assert.is(unrun.code, 1);
  assert.match(
    unrun.stdout,
    /PROBLEM registry: spec\/invariants\.yaml lists invariants but properties\.command is not set.*`\$EDITOR \.patchwarden\.yml`\n/,
  );
  repo.write(
    '.patchwarden.yml',
    readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8').replace(
      // The first commented command is the properties' (the suite's comes after it).
      '  # command: ',
      '  command: ',
    ),
  );
  const good = repo.json(['doctor']);
  assert.is(good.code, 0, JSON.stringify(good.out.checks));
  assert.equal(
    good.out.checks.slice(-4).map((c: { check: string }) => c.check),
    ['ledger', 'fixtures', 'registry', 'tamper-allow'],
  );
  repo.write(
    'freeze/signatures.yaml',
    'version: 1\nrecords:\n  - sig: 7c1a9e2b44d0af13\n    reason: r\n    expires: 2026-01-01T00:00:00Z\n',
  );
  repo.write('fixtures/input/a.json', '{"a":2}\n');
  repo.write('spec/invariants.yaml', 'version: 1\ninvariants: 3\n');
  repo.write(
    '.patchwarden/tamper-allow.yaml',
    'version: 1\nallow:\n  - path: src/**\n    rule: exit.nothing\n    owner: o\n    reason: r\n',
  );
  const bad = repo.json(['doctor']);
  assert.is(bad.code, 1);
  const problems = Object.fromEntries(
    bad.out.checks
      .filter((c: { ok: boolean }) => !c.ok)
      .map((c: { check: string; detail: string }) => [c.check, c.detail]),
  );
  assert.match(problems.ledger, /owner/);
  assert.match(problems.fixtures, /differ from fixtures\/inputs\.sha256/);
  assert.match(problems.registry, /spec\/invariants\.yaml:2/);
  assert.match(problems['tamper-allow'], /tamper-allow\.yaml:4: rule: "exit\.nothing" is not a tamper rule/);
});

test.run();
