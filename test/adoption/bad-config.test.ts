// A bad config cannot lock anyone out: a typo in .patchwarden.yml is stopped
// at the commit, the push, the gate and the server, and a broken config that
// reached the judging branch anyway is judged by the last one that parsed,
// so its correction lands.
import { renameSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';

test.after.each(removeProjects);

const CONFIG = 'version: 1\nzones:\n  src: [shop/**]\n  spec: [spec/**]\n';
const TYPO = 'version: 1\nzonez:\n  src: [shop/**]\n  spec: [spec/**]\n';

/** A flat Python package with patchwarden adopted, and its bare remote guarded by the server hook. */
function guarded(): Project {
  const p = new Project({
    'pyproject.toml': '[project]\nname = "shop"\n',
    'shop/__init__.py': '',
    'shop/price.py': 'def price(n):\n    return n\n',
    'package.json': '{"name": "shop", "private": true}\n',
  });
  p.npmInstall();
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes']);
  p.write({ '.patchwarden.yml': CONFIG });
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  p.ok('git', ['push', '-q']);
  p.ok('sh', [
    path.join(p.dir, 'node_modules/patchwarden/scripts/install-server-hook.sh'),
    '--bin',
    path.join(p.dir, 'node_modules/.bin/patchwarden'),
    '--branch',
    'main',
    p.origin,
  ]);
  return p;
}

test('a typo in .patchwarden.yml is stopped by pre-commit, pre-push, the gate and the server', () => {
  const p = guarded();
  p.write({ '.patchwarden.yml': TYPO });
  const commit = p.run('git', ['commit', '-q', '-am', 'typo']);
  assert.is(commit.code, 1);
  assert.match(commit.stderr, 'patchwarden: .patchwarden.yml:2: unknown key `zonez`');
  assert.match(commit.stderr, 'git restore --staged -- .patchwarden.yml');
  p.ok('git', ['add', '.patchwarden.yml']);
  assert.is(p.pw('pre-commit').code, 2, 'the hook itself exits 2: the config cannot judge');

  p.ok('git', ['commit', '-q', '--no-verify', '-am', 'typo']);
  const push = p.run('git', ['push']);
  assert.is(push.code, 1);
  assert.match(
    push.stdout + push.stderr,
    /refused \[guard-file\] refs\/heads\/main at [0-9a-f]{12}: \.patchwarden\.yml:2: unknown key `zonez`/,
  );
  assert.match(push.stdout + push.stderr, 'git commit -m "Fix .patchwarden.yml" -- .patchwarden.yml');

  const gate = p.pw('gate', '--base', 'origin/main');
  assert.is(gate.code, 1, gate.stdout + gate.stderr);
  assert.match(gate.stdout, '.patchwarden.yml at head does not parse');

  const server = p.run('git', ['push', '--no-verify']);
  assert.is(server.code, 1);
  assert.match(
    server.stderr,
    /remote:\s+\[guard-file\] refs\/heads\/main at [0-9a-f]{12}: \.patchwarden\.yml:2: unknown key `zonez`/,
  );
  assert.match(server.stderr, '(pre-receive hook declined)');
  assert.is(
    p.ok('git', ['rev-parse', 'main'], p.origin).stdout,
    p.ok('git', ['rev-parse', 'origin/main']).stdout,
    'nothing landed',
  );
});

test('a broken config already on the judging branch: work goes on by the last rules that parsed, and the correction lands', () => {
  const p = guarded();
  // It reached the branch past the guard (an older version, a hook switched off).
  const hook = path.join(p.origin, 'hooks/pre-receive');
  renameSync(hook, `${hook}.off`);
  p.write({ '.patchwarden.yml': TYPO });
  p.ok('git', ['commit', '-q', '--no-verify', '-am', 'typo']);
  p.ok('git', ['push', '-q', '--no-verify']);
  renameSync(`${hook}.off`, hook);

  // The last rules that parsed still judge: a mixed commit is refused, not waved through.
  p.write({
    'shop/price.py': 'def price(n):\n    return n * 2\n',
    'spec/test_price.py': 'def test_price():\n    pass\n',
  });
  p.ok('git', ['add', '-A']);
  const mixed = p.run('git', ['commit', '-q', '-m', 'mixed']);
  assert.is(mixed.code, 1);
  assert.match(
    mixed.stderr,
    /HEAD:\.patchwarden\.yml:2: unknown key `zonez`.*until a correction lands, the rules of [0-9a-f]{12}, the last commit where it parses, judge/,
  );
  assert.match(mixed.stdout + mixed.stderr, 'refused [mix]');
  p.ok('git', ['reset', '-q', '--hard']);

  // The correction commits, pushes, and the server takes it.
  p.write({ '.patchwarden.yml': CONFIG });
  p.ok('git', ['commit', '-q', '-am', 'fix the config']);
  const push = p.ok('git', ['push']);
  assert.match(
    push.stderr,
    /remote: patchwarden: [0-9a-f]{40}:\.patchwarden\.yml:2: unknown key `zonez`.*push the correction to refs\/heads\/main/,
  );
  assert.match(push.stderr, 'pre-receive ok (1 ref, 1 new commit)');
  // And from then on the corrected config judges, with no note.
  p.write({ 'shop/price.py': 'def price(n):\n    return n * 3\n' });
  p.ok('git', ['commit', '-q', '-am', 'production']);
  const next = p.ok('git', ['push']);
  assert.not.match(next.stderr, 'zonez');
});

test.run();
