// pre-push judges a branch by the remote default branch's config, as the
// server judges every push by its judging branch: a topic branch forked
// before the rules grew is judged by the rules it will meet.
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';

test.after.each(removeProjects);

test("a topic branch forked before main's config grew is judged by main's config", () => {
  const p = new Project({
    'pyproject.toml': '[project]\nname = "shop"\n',
    'shop/__init__.py': '',
    'lib/util.py': 'u = 1\n',
    'package.json': '{"name": "shop", "private": true}\n',
  });
  p.npmInstall();
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes']);
  p.write({ '.patchwarden.yml': 'version: 1\nzones:\n  src: [shop/**]\n  spec: [spec/**]\n' });
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  p.ok('git', ['push', '-q']);
  p.ok('git', ['branch', 'topic']);
  // main's rules grow: lib/ is production code too.
  p.write({ '.patchwarden.yml': 'version: 1\nzones:\n  src: [shop/**, lib/**]\n  spec: [spec/**]\n' });
  p.ok('git', ['commit', '-q', '-am', 'lib is production code']);
  p.ok('git', ['push', '-q']);
  p.ok('git', ['checkout', '-q', 'topic']);
  p.write({ 'lib/util.py': 'u = 2\n', 'spec/test_util.py': 'def test_u():\n    pass\n' });
  p.ok('git', ['add', '-A']);
  // The commit is judged by HEAD's config (lib is free there); the push meets main's.
  p.ok('git', ['commit', '-q', '-m', 'lib and its spec']);
  const push = p.run('git', ['push', '-u', 'origin', 'topic']);
  assert.is(push.code, 1, push.stdout + push.stderr);
  assert.match(push.stdout + push.stderr, /refused \[mix\][\s\S]*lib\/util\.py {2}\(src, modified\)/);
});

test.run();
