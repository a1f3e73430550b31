// Honest merges commit: a merge with a conflict, resolved and committed, is
// judged by what its resolution authors, at the commit and at the push; a
// resolution that mixes is refused without a partial-commit split (git
// refuses one during a merge); a merge git commits on its own runs the
// pre-merge-commit hook.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';

test.after.each(removeProjects);

/** A Python project adopted with plain hooks; main gains an oracle commit while topic changes the same production line. */
function diverged(): Project {
  const p = new Project({
    'pyproject.toml': '[project]\nname = "shop"\n',
    'shop/__init__.py': '',
    'shop/price.py': 'def price(n):\n    return n\n',
    'spec/test_price.py': 'def test_price():\n    pass\n',
    'package.json': '{"name": "shop", "private": true}\n',
  });
  p.npmInstall();
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.match(init.stdout, '.git/hooks/pre-merge-commit: installed');
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  p.ok('git', ['push', '-q']);
  p.ok('git', ['checkout', '-q', '-b', 'topic']);
  p.write({ 'shop/price.py': 'def price(n):\n    return n * 2\n' });
  p.ok('git', ['commit', '-q', '-am', 'topic: double']);
  p.ok('git', ['push', '-q', '-u', 'origin', 'topic']);
  p.ok('git', ['checkout', '-q', 'main']);
  p.write({ 'spec/test_price.py': 'def test_price():\n    assert True\n' });
  p.ok('git', ['commit', '-q', '-S', '-am', 'main: the oracle']); // the owner's, signed
  p.ok('git', ['push', '-q']);
  p.write({ 'shop/price.py': 'def price(n):\n    return n + n\n' });
  p.ok('git', ['commit', '-q', '-am', 'main: production']);
  p.ok('git', ['push', '-q']);
  p.ok('git', ['checkout', '-q', 'topic']);
  const merge = p.run('git', ['merge', 'main']);
  assert.is(merge.code, 1, 'the production line conflicts');
  assert.match(merge.stdout, 'CONFLICT (content): Merge conflict in shop/price.py');
  return p;
}

test('a merge with a conflict, resolved and committed, then pushed: the resolution authors production code only', () => {
  const p = diverged();
  p.write({ 'shop/price.py': 'def price(n):\n    return n * 2\n' });
  p.ok('git', ['add', 'shop/price.py']);
  const commit = p.run('git', ['commit', '--no-edit']);
  assert.is(commit.code, 0, commit.stdout + commit.stderr);
  assert.match(commit.stdout + commit.stderr, 'patchwarden: pre-commit ok');
  const push = p.run('git', ['push']);
  assert.is(push.code, 0, push.stdout + push.stderr);
  assert.match(push.stdout + push.stderr, 'patchwarden: pre-push ok');
});

test('a resolution that also edits an oracle is refused, with advice that fits a merge', () => {
  const p = diverged();
  p.write({
    'shop/price.py': 'def price(n):\n    return n * 2\n',
    'spec/test_price.py': 'def test_price():\n    assert 1\n',
  });
  p.ok('git', ['add', '-A']);
  const commit = p.run('git', ['commit', '--no-edit']);
  assert.is(commit.code, 1);
  const said = commit.stdout + commit.stderr;
  assert.match(said, "refused [mix] this merge's own changes");
  assert.match(said, 'git merge --abort');
  assert.not.match(said, 'git commit --', 'no partial commit: git refuses one during a merge');
  assert.ok(existsSync(path.join(p.dir, '.git/MERGE_HEAD')), 'the merge is still in progress');
});

test('a merge git commits on its own runs pre-merge-commit, and passes', () => {
  const p = diverged();
  p.ok('git', ['merge', '--abort']);
  p.ok('git', ['checkout', '-q', '-b', 'side']);
  p.write({ 'README.md': 'shop\n' });
  p.ok('git', ['add', 'README.md']);
  p.ok('git', ['commit', '-q', '-m', 'docs']);
  p.ok('git', ['checkout', '-q', 'topic']);
  p.write({ 'shop/price.py': 'def price(n):\n    return 2 * n\n' });
  p.ok('git', ['commit', '-q', '-am', 'topic: again']);
  const clean = p.run('git', ['merge', '--no-edit', 'side']);
  assert.is(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout + clean.stderr, 'patchwarden: pre-merge-commit ok');
  assert.is(p.ok('git', ['rev-list', '--count', '--merges', 'HEAD^!']).stdout.trim(), '1', 'git made the merge commit');
});

test.run();
