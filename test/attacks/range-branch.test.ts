// The judging branch cannot be rewound, deleted or left unguarded.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, PROJECT, sh, tempRepo } from '../helpers/repo.js';
import { INSTALL, refused, site, START } from './range-site.js';

test.after.each(cleanup);

test('a force push that rewinds main past an owner oracle commit is refused; the server keeps it', () => {
  const s = site();
  const start = s.ref('main')!;
  const oracle = s.work.commit(
    { 'spec/test_bill.py': 'def test_total():\n    assert total([]) == 0\n' },
    'owner: property',
  );
  assert.is(s.push(['main']).code, 0);
  s.work.git(['reset', '-q', '--hard', start]);
  s.work.commit({ 'src/bill.py': 'def total(items):\n    return 1\n' }, 'code, on the old tip');
  const before = s.refs();
  const r = s.push(['--force', 'main']);
  refused(
    r,
    '[judging-branch] a non-fast-forward update of refs/heads/main',
    `${oracle.slice(0, 12)} is not in the new history`,
    'pre_receive.judging_branch: protect',
  );
  assert.is(s.refs(), before);
  assert.is(s.ref('main'), oracle);
  // Another branch may still be rewound.
  assert.is(s.push(['main:refs/heads/topic']).code, 0);
  s.work.commit({ 'README.md': 'x\n' }, 'docs');
  s.work.git(['reset', '-q', '--hard', 'HEAD~2']);
  assert.is(s.push(['--force', 'main:refs/heads/topic']).code, 0);
});

test('main moved to commits already on the server: a fast-forward passes, a rewind is refused (the push brings no commit of its own)', () => {
  const s = site();
  const start = s.ref('main')!;
  const ahead = s.work.commit({ 'README.md': 'ahead\n' }, 'docs');
  assert.is(s.push(['main:refs/heads/topic']).code, 0);
  const r = s.push(['main']);
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), ahead);
  s.work.git(['checkout', '-q', '-b', 'side', start]);
  s.work.commit({ 'README.md': 'side\n' }, 'side docs');
  assert.is(s.push(['side']).code, 0);
  const before = s.refs();
  refused(
    s.push(['--force', 'side:main']),
    '[judging-branch] a non-fast-forward update of refs/heads/main',
    `${ahead.slice(0, 12)} is not in the new history`,
  );
  assert.is(s.refs(), before);
});

test('two commands for main in one hand-made push (a rewind beside a fast-forward): refused, main unmoved', () => {
  const s = site();
  const start = s.ref('main')!;
  // An orphan history that loosens the config and mixes code with its property, and a clean decoy on main.
  s.work.git(['checkout', '-q', '--orphan', 'evil']);
  const evil = s.work.commit(
    {
      '.patchwarden.yml': 'version: 1\nmix:\n  range: allow\n',
      'src/bill.py': 'def total(items):\n    return 666\n',
      'spec/test_bill.py': 'def test_total():\n    pass\n',
    },
    'evil',
  );
  s.work.git(['checkout', '-q', 'main']);
  const decoy = s.work.commit({ 'README.md': 'bill, documented\n' }, 'decoy');
  // git push never sends this; receive-pack takes it from any client that writes the commands itself.
  const pkt = (line: string) =>
    Buffer.concat([Buffer.from((Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')), Buffer.from(line)]);
  const pack = spawnSync('git', ['pack-objects', '-q', '--stdout', '--revs'], {
    cwd: s.work.dir,
    env: s.work.env,
    input: `${evil}\n${decoy}\n^${start}\n`,
  }).stdout;
  const input = Buffer.concat([
    pkt(`${start} ${evil} refs/heads/main\0report-status\n`),
    pkt(`${start} ${decoy} refs/heads/main\n`),
    Buffer.from('0000'),
    pack,
  ]);
  const r = spawnSync('git', ['receive-pack', s.bare.dir], { cwd: s.work.dir, env: s.work.env, input });
  const said = `${r.stdout}${r.stderr}`;
  assert.match(said, '[duplicate-ref] refs/heads/main is updated by more than one command of this push');
  assert.match(said, 'pre-receive hook declined');
  assert.is(s.ref('main'), start);
});

test('pre_receive.judging_branch: allow lets an administrator rewind it', () => {
  const s = site('version: 1\npre_receive:\n  judging_branch: allow\n');
  s.work.commit({ 'README.md': 'x\n' }, 'docs');
  assert.is(s.push(['main']).code, 0);
  s.work.git(['reset', '-q', '--hard', 'HEAD~1']);
  const r = s.push(['--force', 'main']);
  assert.is(r.code, 0, r.stderr);
});

test('deleting main is refused even where the server itself only warns (receive.denyDeleteCurrent=warn)', () => {
  const s = site();
  s.bare.git(['config', 'receive.denyDeleteCurrent', 'warn']);
  const before = s.refs();
  const r = s.push([':main']);
  refused(r, '[judging-branch] deleting refs/heads/main is refused');
  assert.is(s.refs(), before);
  // The fix fits a deletion: an administrator records another judging branch on the server, then main goes.
  assert.match(
    r.stderr,
    'keep refs/heads/main; to retire it, an administrator first records another judging branch on the server (git config patchwarden.branch refs/heads/NAME), then deletes it',
  );
  assert.is(s.push(['main:refs/heads/release']).code, 0);
  s.bare.git(['config', 'patchwarden.branch', 'refs/heads/release']);
  const retired = s.push([':main']);
  assert.is(retired.code, 0, retired.stderr);
});

test('install: a bare repository whose HEAD names master with no commits is refused without --branch', () => {
  const bare = tempRepo({ bare: true });
  bare.git(['symbolic-ref', 'HEAD', 'refs/heads/master']);
  const r = sh('sh', [INSTALL, bare.dir]);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'HEAD names refs/heads/master, which has no commits');
  assert.match(r.stderr, '--branch main');
});

test('HEAD=master while the project pushes main: a hook copied in without a recorded branch refuses, never reads as unguarded', () => {
  const bare = tempRepo({ bare: true });
  bare.git(['symbolic-ref', 'HEAD', 'refs/heads/master']);
  copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), path.join(bare.dir, 'hooks/pre-receive'));
  chmodSync(path.join(bare.dir, 'hooks/pre-receive'), 0o755);
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', bare.dir]);
  work.commit({ '.patchwarden.yml': 'version: 1\n', ...START }, 'start');
  work.commit({ 'src/bill.py': 'x\n', 'spec/test_bill.py': 'y\n' }, 'mixed');
  const r = work.git(['push', 'origin', 'main'], { allowFail: true });
  refused(
    r,
    'refs/heads/master, the branch whose .patchwarden.yml judges this repository, does not exist',
    'git config patchwarden.branch refs/heads/NAME',
  );
  assert.not.match(r.stderr, 'not guarded');
  assert.is(bare.git(['for-each-ref']).stdout, '');
});

test('HEAD=master, installed with --branch main --bootstrap: the first push lands, then main judges', () => {
  const bare = tempRepo({ bare: true });
  bare.git(['symbolic-ref', 'HEAD', 'refs/heads/master']);
  const inst = sh('sh', [INSTALL, '--branch', 'main', '--bootstrap', bare.dir]);
  assert.is(inst.code, 0, inst.stderr);
  assert.is(bare.git(['config', 'patchwarden.branch']).stdout.trim(), 'refs/heads/main');
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', bare.dir]);
  work.commit({ '.patchwarden.yml': 'version: 1\n', ...START }, 'start');
  let r = work.git(['push', 'origin', 'main'], { allowFail: true });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'bootstrap: refs/heads/main has no .patchwarden.yml yet');
  // The config is on main; bootstrap still set is said, and main judges.
  work.commit({ 'src/bill.py': 'x\n', 'spec/test_bill.py': 'y\n' }, 'mixed');
  r = work.git(['push', 'origin', 'main'], { allowFail: true });
  refused(r, '[mix]', 'patchwarden.bootstrap is still set');
  bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  r = work.git(['push', 'origin', 'main'], { allowFail: true });
  refused(r, '[mix]');
  assert.not.match(r.stderr, 'bootstrap');
});

test('a judging branch whose config was removed refuses every push until an administrator acts', () => {
  const s = site();
  s.work.git(['rm', '-q', '.patchwarden.yml']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'drop the config']);
  // Judged by the config it removes: a guard-only commit passes the mixing rule.
  assert.is(s.push(['main']).code, 0);
  s.work.commit({ 'README.md': 'x\n' }, 'docs');
  const before = s.refs();
  refused(
    s.push(['main']),
    'refs/heads/main, the branch whose .patchwarden.yml judges this repository, has no .patchwarden.yml',
  );
  assert.is(s.refs(), before);
});

test.run();
