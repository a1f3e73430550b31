// Hooks where the user's git runs them: a core.hooksPath shared through the
// global config is refused with a repository-local way out, and in a linked
// worktree (plain shims and husky) the hooks find the main worktree's
// patchwarden, and doctor says what is missing there.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects, tempDir } from './project.js';

test.after.each(removeProjects);

const PYTHON = {
  'pyproject.toml': '[project]\nname = "shop"\n',
  'shop/__init__.py': '',
  'shop/price.py': 'def price(n):\n    return n\n',
  'spec/test_price.py': 'def test_price():\n    pass\n',
};

/** A mixed commit in `dir`, which the pre-commit hook must refuse. */
function mixedCommitRefused(p: Project, dir: string): string {
  writeFileSync(path.join(dir, 'shop/price.py'), 'def price(n):\n    return n * 9\n');
  writeFileSync(path.join(dir, 'spec/test_price.py'), 'def test_price():\n    assert 9\n');
  p.ok('git', ['add', '-A'], dir);
  const r = p.run('git', ['commit', '-q', '-m', 'mixed'], dir);
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, 'refused [mix]');
  return r.stdout + r.stderr;
}

test('a global core.hooksPath: init refuses (exit 2) and writes nothing there; its repository-local way out works as printed', () => {
  const home = tempDir('pw-global-');
  const shared = path.join(home, 'hooks');
  mkdirSync(shared);
  writeFileSync(path.join(home, 'gitconfig'), `[core]\n\thooksPath = ${shared}\n`);
  const p = new Project(
    { ...PYTHON, 'package.json': '{"name": "shop", "private": true}\n' },
    { GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig') },
  );
  p.npmInstall();
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.is(init.code, 2, init.stdout + init.stderr);
  assert.match(
    init.stderr,
    `core.hooksPath is ${shared}, set in your global git config, so other repositories run hooks from that folder too; patchwarden writes no hook there`,
  );
  assert.equal(readdirSync(shared), [], 'nothing written into the shared folder');
  const fix = /Give this repository hooks of its own, then rerun: (.*)$/m.exec(init.stderr)?.[1];
  assert.ok(fix, init.stderr);
  p.ok('sh', ['-c', fix!]);
  assert.equal(readdirSync(shared), []);
  assert.ok(existsSync(path.join(p.dir, '.git/hooks/pre-commit')));
  // The printed rerun is init --yes, which makes no one an owner: the owner adds their key.
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes', '--owner-key', p.ownerKey]);
  const doctor = p.pw('doctor');
  assert.is(doctor.code, 0, doctor.stdout);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  mixedCommitRefused(p, p.dir);
});

test("a linked worktree with plain hooks: the shim finds the main worktree's patchwarden, and doctor says so; a kept hook sees its own name", () => {
  const p = new Project({ ...PYTHON, 'package.json': '{"name": "shop", "private": true}\n' });
  p.npmInstall();
  writeFileSync(path.join(p.dir, '.git/hooks/pre-commit'), '#!/bin/sh\necho "legacy hook named $(basename "$0")"\n', {
    mode: 0o755,
  });
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes', '--owner-key', p.ownerKey]);
  p.ok('git', ['add', '-A']);
  const first = p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  assert.match(first.stdout + first.stderr, 'legacy hook named pre-commit\n');
  const wt = path.join(path.dirname(p.dir), 'feature');
  p.ok('git', ['worktree', 'add', '-q', '-b', 'feature', wt]);
  assert.not.ok(existsSync(path.join(wt, 'node_modules')));
  const doctor = p.run(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['doctor'], wt);
  assert.is(doctor.code, 0, doctor.stdout);
  assert.match(
    doctor.stdout,
    `ok      binary: ${path.join(p.dir, 'node_modules/.bin/patchwarden')} (the main worktree's)`,
  );
  mixedCommitRefused(p, wt);
});

test('a linked worktree with husky: doctor names the missing .husky/_ and the command that writes it; then the guard runs there', () => {
  const p = new Project({
    ...PYTHON,
    'package.json': JSON.stringify({ name: 'shop', private: true, scripts: { prepare: 'husky' } }, null, 2),
    '.husky/pre-commit': 'echo team hook\n',
  });
  p.npmInstall('husky@9');
  p.ok('npx', ['--no-install', 'husky']);
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes', '--owner-key', p.ownerKey]);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  const wt = path.join(path.dirname(p.dir), 'feature');
  p.ok('git', ['worktree', 'add', '-q', '-b', 'feature', wt]);
  const pw = path.join(p.dir, 'node_modules/.bin/patchwarden');
  const doctor = p.run(pw, ['doctor'], wt);
  assert.is(doctor.code, 1, doctor.stdout);
  const line = doctor.stdout.split('\n').find((l) => l.startsWith('PROBLEM husky:'));
  assert.ok(line, doctor.stdout);
  assert.match(line!, '.husky/_/ is missing in this worktree');
  const fix = /run `([^`]+)`$/.exec(line!)?.[1];
  assert.is(fix, path.join(p.dir, 'node_modules/.bin/husky'));
  p.ok('sh', ['-c', fix!], wt);
  const again = p.run(pw, ['doctor'], wt);
  assert.is(again.code, 0, again.stdout);
  assert.not.match(
    mixedCommitRefused(p, wt),
    'team hook',
    "the guard runs first: the team's commands do not run on a refused commit",
  );
});

test.run();
