// patchwarden uninstall takes out exactly what init put in: hook files (a
// kept hook goes back in place), husky lines, manager commands, the
// "prepare" line; the config stays.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';

test.after.each(removeProjects);

const read = (p: Project, f: string) => readFileSync(path.join(p.dir, f), 'utf8');

test('plain hooks: the shims go, the hook that was there comes back, "prepare" is as it was', () => {
  const p = new Project({
    'src/app.py': 'x = 1\n',
    'package.json':
      JSON.stringify({ name: 'shop', private: true, scripts: { prepare: 'echo prepared' } }, null, 2) + '\n',
  });
  p.npmInstall();
  const legacy = '#!/bin/sh\necho the team hook\n';
  writeFileSync(path.join(p.dir, '.git/hooks/pre-push'), legacy, { mode: 0o755 });
  const before = read(p, 'package.json');
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes']);
  assert.match(read(p, 'package.json'), 'echo prepared && patchwarden init --yes --if-repo');
  const r = p.pw('uninstall');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'patchwarden: .git/hooks/pre-push: removed; pre-push.pre-patchwarden is back in place');
  assert.not.ok(existsSync(path.join(p.dir, '.git/hooks/pre-commit')));
  assert.not.ok(existsSync(path.join(p.dir, '.git/hooks/pre-merge-commit')));
  assert.not.ok(existsSync(path.join(p.dir, '.git/hooks/commit-msg')));
  assert.is(read(p, '.git/hooks/pre-push'), legacy);
  assert.is(read(p, 'package.json'), before);
  assert.ok(existsSync(path.join(p.dir, '.patchwarden.yml')), "the config is the project's now");
  assert.match(p.pw('uninstall').stdout, "nothing of patchwarden's is installed here");
});

test("husky: the guard's lines go, the team's stay; a file init created goes", () => {
  const p = new Project({
    'src/app.py': 'x = 1\n',
    'package.json': JSON.stringify({ name: 'shop', private: true, scripts: { prepare: 'husky' } }, null, 2) + '\n',
    '.husky/pre-commit': 'npx lint-staged\n',
  });
  p.npmInstall('husky@9');
  p.ok('npx', ['--no-install', 'husky']);
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes']);
  assert.match(read(p, '.husky/pre-commit'), 'patchwarden-managed');
  const r = p.pw('uninstall');
  assert.is(r.code, 0, r.stderr);
  assert.is(read(p, '.husky/pre-commit'), 'npx lint-staged\n');
  assert.not.ok(existsSync(path.join(p.dir, '.husky/pre-push')));
  assert.match(read(p, 'package.json'), '"prepare": "husky"');
});

test.run();
