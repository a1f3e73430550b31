// Reading `git commit`'s command line the way git's option parser does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { amends, LONG, subcommand } from '../../src/hooks/amend.js';

test('--amend, its abbreviations and --no-amend: the last one wins', () => {
  for (const args of [
    ['--amend'],
    ['--amen'],
    ['--am'],
    ['-q', '--amend', '-m', 'x'],
    ['--no-amend', '--amend'],
    ['--amend', '--', 'src/a.py'],
  ])
    assert.ok(amends(args), args.join(' '));
  for (const args of [
    [],
    ['--amend', '--no-amend'],
    ['--no-am'],
    ['-a'],
    ['--', '--amend'],
    ['--a'],
    ['--fixup=amend:HEAD'],
  ])
    assert.not.ok(amends(args), args.join(' '));
});

test('an option value that reads --amend is a value', () => {
  for (const args of [
    ['-m', '--amend'],
    ['-qm', '--amend'],
    ['--message', '--amend'],
    ['-F', '--amend'],
    ['-C', '--amend'],
    ['--author', '--amend'],
    ['--mess', '--amend'],
    ['--trailer', '--amend'],
  ])
    assert.not.ok(amends(args), args.join(' '));
  for (const args of [
    ['-m--amend', '--amend'],
    ['--message=--amend', '--amend'],
    ['-S', '--amend'],
    ['-uno', '--amend'],
  ])
    assert.ok(amends(args), args.join(' '));
});

test("git's own options come before the subcommand; the dashed form names it", () => {
  assert.equal(subcommand(['git', '-C', 'dir', '-c', 'a.b=c', '--no-pager', 'commit', '--amend']), {
    name: 'commit',
    args: ['--amend'],
  });
  assert.equal(subcommand(['/usr/lib/git-core/git-commit', '--amend']), { name: 'commit', args: ['--amend'] });
  assert.equal(subcommand(['git', '--git-dir', 'x', 'ci', '-q']), { name: 'ci', args: ['-q'] });
  assert.is(subcommand(['git', '-c', 'x=y']), null);
});

test("the option table is git's own: every long option of the installed git commit, each taking a value exactly where git says", () => {
  const r = spawnSync('git', ['commit', '--git-completion-helper-all'], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  // `--name=` takes a value, which the next word may be.
  const listed = r.stdout
    .trim()
    .split(/\s+/)
    .filter((w) => w.startsWith('--') && w !== '--');
  const names = new Set(listed.map((w) => w.slice(2).replace(/=$/, '')));
  const git: Record<string, boolean> = {};
  for (const w of listed) {
    const name = w.slice(2).replace(/=$/, '');
    // `--no-x` beside `--x` is its negation (git lists --no-verify beside --verify too).
    if (name.startsWith('no-') && names.has(name.slice(3))) continue;
    git[name] = w.endsWith('=');
  }
  assert.equal(
    Object.keys(LONG).sort(),
    Object.keys(git).sort(),
    'the option names: update LONG in src/hooks/amend.ts to this git',
  );
  assert.equal(LONG, git, 'which options take the next word as their value');
});

test.run();
