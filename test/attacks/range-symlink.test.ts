// Symbolic links cannot carry a zone across its boundary, and an inputs
// folder that is a link is refused from objects as it is on disk.
import { chmodSync, copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, PROJECT } from '../helpers/repo.js';
import { sha } from '../gate/sample.js';
import { refused, site } from './range-site.js';

test.after.each(cleanup);

test('src/bill.py turned into a link to lib/bill.py, then lib/ and spec/ changed together: refused everywhere', () => {
  const s = site();
  const base = s.ref('main')!;
  s.work.git(['rm', '-q', 'src/bill.py']);
  s.work.write('lib/bill.py', 'def total(items):\n    return sum(items)\n');
  mkdirSync(path.join(s.work.dir, 'src'), { recursive: true });
  symlinkSync('../lib/bill.py', path.join(s.work.dir, 'src/bill.py'));
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'move the code behind a link']);
  // Through the link: free code and the property in one commit.
  s.work.commit(
    { 'lib/bill.py': 'def total(items):\n    return 0\n', 'spec/test_bill.py': 'def test_total():\n    pass\n' },
    'code and property',
  );
  const msg = 'symbolic link to "../lib/bill.py": lib/bill.py, in no zone';
  refused(s.check(`${base}..HEAD`), '[symlink]', msg);
  const g = s.work.json(['gate', '--base', base]);
  assert.is(g.code, 1);
  const mixing = g.out.layers.find((l: { layer: string }) => l.layer === 'mixing');
  assert.ok(
    mixing.violations.some(
      (v: { rule: string; paths: string[] }) => v.rule === 'symlink' && v.paths[0] === 'src/bill.py',
    ),
  );
  const before = s.refs();
  refused(s.localPush(['main']), '[symlink]');
  refused(s.push(['main']), '[symlink]', '"move the code behind a link"', `src/bill.py  (src, ${msg})`);
  assert.is(s.refs(), before);
});

test('the same link, staged: the pre-commit hook and check refuse it; a link inside its zone commits', () => {
  const s = site();
  const hook = path.join(s.work.dir, '.git/hooks/pre-commit');
  copyFileSync(path.join(PROJECT, 'hooks/pre-commit'), hook);
  chmodSync(hook, 0o755);
  s.work.git(['rm', '-q', 'src/bill.py']);
  s.work.write('lib/bill.py', 'def total(items):\n    return sum(items)\n');
  mkdirSync(path.join(s.work.dir, 'src'), { recursive: true });
  symlinkSync('../lib/bill.py', path.join(s.work.dir, 'src/bill.py'));
  s.work.git(['add', '-A']);
  const head = s.work.head();
  const msg = 'src/bill.py  (src, symbolic link to "../lib/bill.py": lib/bill.py, in no zone)';
  refused(
    s.work.git(['commit', '-q', '-m', 'move the code behind a link'], { allowFail: true }),
    '[symlink]',
    'the staged change makes a path in src a symbolic link',
    msg,
  );
  assert.is(s.work.head(), head);
  refused(s.work.pw(['check']), '[symlink]', msg);
  s.work.git(['rm', '-q', '--cached', 'src/bill.py']);
  rmSync(path.join(s.work.dir, 'src/bill.py'));
  s.work.write('src/util.py', 'x = 1\n');
  symlinkSync('util.py', path.join(s.work.dir, 'src/bill.py'));
  s.work.git(['add', '-A']);
  const r = s.work.git(['commit', '-q', '-m', 'an alias inside src'], { allowFail: true });
  assert.is(r.code, 0, r.stdout + r.stderr);
});

test('a target that climbs after a name (src/d -> ., then src/bill.py -> d/../lib/bill.py) is refused: d could be a link', () => {
  const s = site();
  s.work.git(['rm', '-q', 'src/bill.py']);
  s.work.write('lib/bill.py', 'def total(items):\n    return sum(items)\n');
  mkdirSync(path.join(s.work.dir, 'src'), { recursive: true });
  symlinkSync('.', path.join(s.work.dir, 'src/d'));
  symlinkSync('d/../lib/bill.py', path.join(s.work.dir, 'src/bill.py'));
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'relink']);
  const base = s.ref('main')!;
  const msg = 'climbs (..) after a name';
  refused(s.check(`${base}..HEAD`), '[symlink]', msg);
  const before = s.refs();
  refused(s.push(['main']), '[symlink]', msg);
  assert.is(s.refs(), before);
});

test('links inside their own zone, and links in free paths, pass', () => {
  const s = site();
  s.work.write('src/util.py', 'x = 1\n');
  symlinkSync('util.py', path.join(s.work.dir, 'src/alias.py'));
  symlinkSync('../src/bill.py', path.join(s.work.dir, 'docs-link.py'));
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'links']);
  const r = s.push(['main']);
  assert.is(r.code, 0, r.stderr);
});

test('a link in spec pointing outside the repository is refused', () => {
  const s = site();
  symlinkSync('/etc/hostname', path.join(s.work.dir, 'spec/host.txt'));
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'link out']);
  const before = s.refs();
  refused(
    s.push(['main']),
    '[symlink]',
    'spec/host.txt  (spec, symbolic link to "/etc/hostname": outside the repository)',
  );
  assert.is(s.refs(), before);
});

test('an inputs folder that is a link: fixtures verify --rev refuses it as --worktree does, and so does the server', () => {
  const s = site();
  const data = '{"items": [1, 2]}\n';
  s.work.write('data/cart.json', data);
  mkdirSync(path.join(s.work.dir, 'fixtures'));
  symlinkSync('../data', path.join(s.work.dir, 'fixtures/input'), 'dir');
  s.work.write('fixtures/inputs.sha256', `${sha(data)}  fixtures/input/cart.json\n`);
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'inputs behind a link']);
  const rev = s.work.pw(['fixtures', 'verify', '--rev', 'HEAD']);
  refused(rev, 'fixtures/input  (a symbolic link or file where the inputs folder should be)');
  refused(
    s.work.pw(['fixtures', 'verify', '--worktree']),
    'fixtures/input  (a symbolic link or file where the inputs folder should be)',
  );
  const before = s.refs();
  refused(s.push(['main']), '[fixtures]', 'fixtures/input');
  assert.is(s.refs(), before);
});

test('a parent of the inputs folder that is a link is refused from objects and on disk', () => {
  const s = site();
  const data = '{"items": [1, 2]}\n';
  s.work.write('elsewhere/input/cart.json', data);
  symlinkSync('elsewhere', path.join(s.work.dir, 'fixtures'), 'dir');
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'fixtures behind a link']);
  refused(
    s.work.pw(['fixtures', 'verify', '--rev', 'HEAD']),
    'fixtures  (a symbolic link or file where the inputs folder should be)',
  );
  refused(
    s.work.pw(['fixtures', 'verify', '--worktree']),
    'fixtures  (a symbolic link or file where the inputs folder should be)',
  );
});

test.run();
