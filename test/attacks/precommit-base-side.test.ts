// Commits the pre-commit hook must judge from the base side, through real
// `git commit` with the installed hook: an unstaged edit of the config may not
// loosen the rule, and an amend is judged together with the commit it amends.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';

/** A repository with the hooks installed, the config committed, and src, spec and tests. */
function guarded(config = 'version: 1\n'): TempRepo {
  const repo = tempRepo();
  repo.commit(
    {
      '.patchwarden.yml': config,
      'src/app.py': 'x = 1\n',
      'lib/util.py': 'u = 1\n',
      'spec/props.py': 'p = 1\n',
      'tests/test_app.py': 't = 1\n',
    },
    'start',
  );
  const init = repo.pw(['init', '--yes']);
  assert.is(init.code, 0, init.stderr);
  return repo;
}

function state(repo: TempRepo) {
  return { head: repo.head(), index: repo.git(['ls-files', '-s', '-z']).stdout };
}

/** Runs `git ARGS`, expects the hook to refuse, and checks HEAD and the index are untouched. */
function refused(repo: TempRepo, args: string[]): string {
  const before = state(repo);
  const r = repo.git(args, { allowFail: true });
  assert.is.not(r.code, 0, `git ${args.join(' ')} should have been refused`);
  assert.equal(state(repo), before, 'HEAD and the index are as they were');
  return r.stdout + r.stderr;
}

test.after.each(cleanup);

test("an unstaged edit of .patchwarden.yml does not loosen the rule: HEAD's config judges", () => {
  const repo = guarded();
  // The working tree moves spec out of every oracle zone; nothing of it is staged.
  repo.write('.patchwarden.yml', 'version: 1\nzones:\n  spec: ["nowhere/**"]\n  src: ["nowhere-either/**"]\n');
  repo.write('src/app.py', 'x = 2\n').write('spec/props.py', 'p = 2\n');
  repo.git(['add', 'src/app.py', 'spec/props.py']);
  const out = refused(repo, ['commit', '-q', '-m', 'mixed']);
  assert.match(out, /refused \[mix\]/);
  assert.match(out, /spec\/props\.py {2}\(spec, modified\)/);
});

test('a committed config change takes effect on the next commit (the cache follows the blob)', () => {
  const repo = guarded();
  repo.write('lib/util.py', 'u = 2\n').write('spec/props.py', 'p = 2\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'lib is no zone yet']);
  repo.write('.patchwarden.yml', 'version: 1\nzones:\n  src: ["src/**", "lib/**"]\n');
  repo.git(['add', '.patchwarden.yml']);
  repo.git(['commit', '-q', '-m', 'lib is production code']);
  repo.write('lib/util.py', 'u = 3\n').write('spec/props.py', 'p = 3\n');
  repo.git(['add', '-A']);
  assert.match(refused(repo, ['commit', '-q', '-m', 'mixed']), /lib\/util\.py {2}\(src, modified\)/);
});

test('a damaged cache entry is parsed again, and a malformed committed config is never cached: the last one that parsed judges, every time', () => {
  const repo = guarded('version: 1\nzones:\n  src: ["src/**", "lib/**"]\n');
  repo.write('tests/test_app.py', 't = 2\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'fills the cache']);
  const dir = path.join(repo.dir, '.git/patchwarden/config-cache');
  const entries = readdirSync(dir);
  assert.ok(entries.length >= 1, 'the config was cached');
  for (const e of entries) writeFileSync(path.join(dir, e), '{"build":');
  repo.write('lib/util.py', 'u = 4\n').write('spec/props.py', 'p = 4\n');
  repo.git(['add', '-A']);
  assert.match(refused(repo, ['commit', '-q', '-m', 'mixed']), /lib\/util\.py {2}\(src, modified\)/);
  repo.git(['reset', '-q']);
  repo.commit({ '.patchwarden.yml': 'version: 1\nzones:\n  sorce: ["x/**"]\n' }, 'malformed config');
  repo.write('lib/util.py', 'u = 5\n').write('spec/props.py', 'p = 5\n');
  repo.git(['add', '-A']);
  for (let i = 0; i < 2; i++) {
    const said = refused(repo, ['commit', '-q', '-m', 'mixed']);
    assert.match(
      said,
      /HEAD:\.patchwarden\.yml:3: unknown key `zones\.sorce`.*until a correction lands, the rules of [0-9a-f]{12}, the last commit where it parses, judge/,
    );
    assert.match(said, /lib\/util\.py {2}\(src, modified\)/);
  }
});

test("a first commit is judged by the staged config, not the working tree's", () => {
  const repo = tempRepo();
  repo.pw(['init', '--yes']);
  repo.write('.patchwarden.yml', 'version: 1\nzones:\n  src: ["lib/**"]\n');
  repo.write('lib/util.py', 'u = 1\n').write('spec/props.py', 'p = 1\n');
  repo.git(['add', '-A']);
  // Unstaged, the working tree's config would make lib free.
  repo.write('.patchwarden.yml', 'version: 1\n');
  const r = repo.git(['commit', '-q', '-m', 'first'], { allowFail: true });
  assert.is.not(r.code, 0);
  assert.match(r.stdout + r.stderr, /lib\/util\.py {2}\(src, added\)/);
  assert.is(repo.git(['rev-parse', '--verify', '-q', 'HEAD'], { allowFail: true }).code, 1, 'no commit was made');
});

test('git commit --amend that adds spec to a src commit is refused, however it is spelled', () => {
  const repo = guarded();
  repo.git(['config', 'alias.ci', 'commit -q']);
  repo.write('src/app.py', 'x = 2\n');
  repo.git(['add', 'src/app.py']);
  repo.git(['commit', '-q', '-m', 'production change']);
  repo.write('spec/props.py', 'p = 2\n');
  repo.git(['add', 'spec/props.py']);
  // A renamed argv[0] does not hide git: the program is read too.
  const renamed = refused(repo, ['-c', 'alias.x=!bash -c "exec -a notgit git commit -q --amend --no-edit"', 'x']);
  assert.match(renamed, /this amend/);
  for (const args of [
    ['commit', '-q', '--amend', '--no-edit'],
    ['commit', '-q', '--amend', '-m', 'reworded'],
    ['-c', 'user.name=X', 'commit', '--amen', '-qm', 'abbreviated'],
    ['ci', '--amend', '--no-edit'],
    ['commit', '-q', '-a', '--amend', '-C', 'HEAD'],
  ]) {
    const out = refused(repo, args);
    assert.match(
      out,
      /this amend \(the staged change with the commit it amends, HEAD\) changes production code/,
      args.join(' '),
    );
    assert.match(out, /src\/app\.py {2}\(src, modified\)/);
    assert.match(out, /spec\/props\.py {2}\(spec, modified\)/);
    assert.match(out, /git commit {3}\(without --amend\)/);
  }
});

test('amends that do not mix pass; -C HEAD and --no-amend are new commits, judged against HEAD', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 2\n');
  repo.git(['add', 'src/app.py']);
  repo.git(['commit', '-q', '-m', 'production change']);
  const first = repo.head();
  repo.write('src/app.py', 'x = 3\n').write('tests/test_app.py', 't = 3\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '--amend', '--no-edit']);
  assert.is.not(repo.head(), first, 'the amend went through');
  assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']).stdout.trim().split('\n'), [
    'src/app.py',
    'tests/test_app.py',
  ]);
  // The oracle change as a commit of its own reuses HEAD's message: not an amend.
  repo.write('spec/props.py', 'p = 3\n');
  repo.git(['add', 'spec/props.py']);
  repo.git(['commit', '-q', '-C', 'HEAD', '--amend', '--no-amend']);
  assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']).stdout.trim(), 'spec/props.py');
  // An option's value that reads "--amend" is a message, not the option.
  repo.write('spec/props.py', 'p = 4\n');
  repo.git(['add', 'spec/props.py']);
  repo.git(['commit', '-q', '-m', '--amend']);
  assert.equal(repo.git(['log', '-1', '--format=%s']).stdout.trim(), '--amend');
});

test('through husky (hooks a few shells deep) the amend is still seen and refused', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'spec/props.py': 'p = 1\n',
      'package.json': JSON.stringify({ name: 'x', devDependencies: { husky: '^9' } }),
    },
    'start',
  );
  repo.write('.husky/pre-commit', 'echo lint-staged would run here\n');
  const husky = sh(process.execPath, [path.join(PROJECT, 'node_modules/husky/bin.js')], {
    cwd: repo.dir,
    env: repo.env,
  });
  assert.is(husky.code, 0, husky.stderr + husky.stdout);
  assert.is(repo.json(['init', '--yes']).out.style, 'husky');
  repo.commit({}, 'guard');
  repo.write('src/app.py', 'x = 2\n');
  repo.git(['add', 'src/app.py']);
  repo.git(['commit', '-q', '-m', 'production change']);
  repo.write('spec/props.py', 'p = 2\n');
  repo.git(['add', 'spec/props.py']);
  assert.match(refused(repo, ['commit', '-q', '--amend', '-m', 'reworded']), /this amend/);
});

test('core.ignorecase is asked when a lower-case path meets an upper-case pattern', () => {
  const repo = guarded('version: 1\nzones:\n  guard: ["Makefile"]\n');
  repo.write('makefile', 'all:\n').write('src/app.py', 'x = 2\n');
  repo.git(['add', '-A']);
  repo.git(['config', 'core.ignorecase', 'true']);
  assert.match(refused(repo, ['commit', '-q', '-m', 'mixed']), /makefile {2}\(guard, added\)/);
  repo.git(['config', 'core.ignorecase', 'false']);
  repo.git(['commit', '-q', '-m', 'makefile is no guard file when case matters']);
});

test("an amend is judged by the config at the amended commit's parent", () => {
  const repo = guarded('version: 1\nzones:\n  src: ["src/**", "lib/**"]\n');
  repo.write('lib/util.py', 'u = 2\n');
  repo.git(['add', 'lib/util.py']);
  repo.git(['commit', '-q', '-m', 'production change in lib']);
  // The working tree's and even the index's config would make lib free; the parent's does not.
  repo.write('.patchwarden.yml', 'version: 1\n');
  repo.write('spec/props.py', 'p = 2\n');
  repo.git(['add', 'spec/props.py']);
  const out = refused(repo, ['commit', '-q', '--amend', '--no-edit']);
  assert.match(out, /lib\/util\.py {2}\(src, modified\)/);
});

test('a replace ref that shows HEAD with the oracle change already in it: the hook and check read the real HEAD', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 2\n').write('spec/props.py', 'p = 2\n');
  repo.git(['add', 'spec/props.py']);
  const tree = repo.git(['write-tree']).stdout.trim();
  const decoy = repo.git(['commit-tree', tree, '-p', 'HEAD', '-m', 'decoy']).stdout.trim();
  repo.git(['replace', 'HEAD', decoy]);
  repo.git(['add', 'src/app.py']);
  assert.match(repo.pw(['check']).stdout, '[mix]');
  assert.match(refused(repo, ['commit', '-q', '-m', 'mixed']), 'spec/props.py  (spec, modified)');
});

test('the guard binary where the shims look first is a guard file: committed beside code, refused', () => {
  const repo = guarded();
  repo.write('node_modules/.bin/patchwarden', '#!/bin/sh\nexit 0\n').write('src/app.py', 'x = 3\n');
  repo.git(['add', '-f', 'node_modules/.bin/patchwarden', 'src/app.py']);
  assert.match(
    refused(repo, ['commit', '-q', '-m', 'a quieter guard']),
    'node_modules/.bin/patchwarden  (guard, added)',
  );
});

test.run();
