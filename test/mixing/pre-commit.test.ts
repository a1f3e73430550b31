// The mixing rule through real `git commit` with the installed hook.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advice, follow } from '../helpers/advice.js';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';

/** A repository with patchwarden's hooks installed and one commit. */
function guarded(config?: string): TempRepo {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'spec/props.py': 'p = 1\n',
      'tests/test_app.py': 't = 1\n',
      'freeze/signatures.yaml': 'version: 1\nrecords: []\n',
      ...(config ? { '.patchwarden.yml': config } : {}),
    },
    'start',
  );
  const init = repo.pw(['init', '--yes']);
  assert.is(init.code, 0, init.stderr);
  if (!config) repo.commit({}, 'guard config');
  return repo;
}

/**
 * HEAD and every index entry (mode, object id, stage, path), to prove a refused
 * commit left both alone. (git itself rewrites the index file's cache-tree
 * before it runs the hook, so the file's bytes are not the measure.)
 */
function snapshot(repo: TempRepo) {
  return { head: repo.head(), index: repo.git(['ls-files', '-s', '-z']).stdout };
}

function refusedCommit(repo: TempRepo, args: string[] = ['-m', 'mixed']) {
  const before = snapshot(repo);
  const r = repo.git(['commit', '-q', ...args], { allowFail: true });
  assert.is.not(r.code, 0, 'the commit should have been refused');
  assert.equal(snapshot(repo), before, 'HEAD and the index are as they were');
  // git shows a hook's stdout on its stderr.
  return { ...r, stdout: r.stdout + r.stderr };
}

test.after.each(cleanup);

test('src and spec in one commit is refused, naming each path, its zone and how to split', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 2\n').write('spec/props.py', 'p = 2\n');
  repo.git(['add', '-A']);
  const r = refusedCommit(repo);
  assert.match(r.stdout, /refused \[mix\]/);
  assert.match(r.stdout, /src\/app\.py {2}\(src, modified\)/);
  assert.match(r.stdout, /spec\/props\.py {2}\(spec, modified\)/);
  assert.match(r.stdout, /git read-tree [0-9a-f]{40}\n {4}git commit -m 'oracle change'\n/);
});

test('src and tests together are allowed; spec alone is allowed', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 2\n').write('tests/test_app.py', 't = 2\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'fix with test']);
  repo.write('spec/props.py', 'p = 3\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'spec']);
  assert.is(repo.git(['rev-list', '--count', 'HEAD']).stdout.trim(), '4');
});

test('a rename from src into fixtures counts for both paths', () => {
  const repo = guarded();
  repo.write('fixtures/README', 'inputs\n').commit({}, 'fixtures folder');
  repo.git(['mv', 'src/app.py', 'fixtures/app.py']);
  const r = refusedCommit(repo);
  assert.match(r.stdout, /src\/app\.py {2}\(src, deleted\)/);
  assert.match(r.stdout, /fixtures\/app\.py {2}\(fixtures, added\)/);
});

test('deleting the ledger beside a src change is refused', () => {
  const repo = guarded();
  repo.git(['rm', '-q', 'freeze/signatures.yaml']);
  repo.write('src/app.py', 'x = 5\n');
  repo.git(['add', '-A']);
  assert.match(refusedCommit(repo).stdout, /freeze\/signatures\.yaml {2}\(freeze, deleted\)/);
});

test('the guard config or .husky/ beside src is refused', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 6\n').write('.patchwarden.yml', 'version: 1\nmix:\n  range: allow\n');
  repo.git(['add', '-A']);
  assert.match(refusedCommit(repo).stdout, /\.patchwarden\.yml {2}\(guard, modified\)/);
  repo.git(['reset', '-q']);
  repo.write('.husky/pre-commit', 'true\n');
  repo.git(['add', 'src/app.py', '.husky/pre-commit']);
  assert.match(refusedCommit(repo).stdout, /\.husky\/pre-commit {2}\(guard, added\)/);
});

test('paths with a newline, quotes, non-ASCII and a leading dash are read and shown', () => {
  const repo = guarded();
  const odd = 'src/new\nline "q" ü.py';
  repo.write(odd, 'y = 1\n').write('spec/-dash.py', 'z = 1\n');
  repo.git(['add', '-A']);
  const { code, out } = repo.json(['check']);
  assert.is(code, 1);
  assert.equal(out.violations[0].rule, 'mix');
  assert.ok(out.violations[0].paths.includes(odd), 'the newline path is whole');
  assert.ok(out.violations[0].paths.includes('spec/-dash.py'));
  const r = refusedCommit(repo);
  assert.match(r.stdout, /"src\/new\\nline \\"q\\" ü\.py"/);
  // The printed trees hold each path whole: followed, the oracle commit holds the dash path alone.
  const start = repo.head();
  follow(
    repo.dir,
    repo.env,
    advice(r.stdout).filter((c) => c !== 'git push'),
  );
  assert.is(repo.git(['diff', '--name-only', start, 'HEAD~1']).stdout, 'spec/-dash.py\n');
  assert.equal(repo.git(['diff', '-z', '--name-only', 'HEAD~1', 'HEAD']).stdout, `${odd}\0`);
});

test('a mode change and a submodule entry count as changes to their zone', () => {
  const repo = guarded();
  repo.git(['update-index', '--chmod=+x', 'src/app.py']);
  repo.write('spec/props.py', 'p = 9\n');
  repo.git(['add', 'spec/props.py']);
  assert.match(refusedCommit(repo).stdout, /src\/app\.py {2}\(src, modified\)/);
  repo.git(['reset', '-q']);
  repo.git(['update-index', '--add', '--cacheinfo', `160000,${repo.head()},src/vendored`]);
  repo.git(['add', 'spec/props.py']);
  assert.match(refusedCommit(repo).stdout, /src\/vendored {2}\(src, added\)/);
});

test('git commit -a and git commit PATH are judged by the index git hands the hook', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 7\n').write('spec/props.py', 'p = 7\n');
  // Nothing staged: the real index is clean, but `commit -a` stages both.
  refusedCommit(repo, ['-a', '-m', 'all']);
  // spec is staged in the real index, yet `git commit src/app.py` commits src alone.
  repo.git(['add', 'spec/props.py']);
  repo.git(['commit', '-q', '-m', 'only src', '--', 'src/app.py']);
  assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']).stdout.trim(), 'src/app.py');
  assert.equal(repo.git(['diff', '--cached', '--name-only']).stdout.trim(), 'spec/props.py');
});

test('core.ignorecase makes zone matching ignore case; diff.renames does not matter', () => {
  const repo = guarded();
  // With ignorecase git folds a new path into a folder the index already has,
  // so the src folder goes first and SRC/ arrives new.
  repo.git(['rm', '-q', 'src/app.py']);
  repo.commit({}, 'no src yet');
  repo.git(['config', 'core.ignorecase', 'true']);
  repo.git(['config', 'diff.renames', 'copies']);
  repo.write('SRC/Other.py', 'o = 1\n').write('spec/props.py', 'p = 8\n');
  repo.git(['add', '-A']);
  assert.match(refusedCommit(repo).stdout, /SRC\/Other\.py {2}\(src, added\)/);
  repo.git(['config', 'core.ignorecase', 'false']);
  assert.is(repo.pw(['check']).code, 0, 'SRC/ is no zone when case matters');
});

test('a range that splits a mixed change is refused; mix.range: allow on the base side relaxes it, an uncommitted one does not', () => {
  // A config without owners: the range rule alone (init's own would also require an owner's signature on the spec commit).
  const repo = guarded('version: 1\n');
  const base = repo.head();
  repo.commit({ 'src/app.py': 'x = 10\n' }, 'src');
  repo.commit({ 'spec/props.py': 'p = 10\n' }, 'spec');
  const { code, out } = repo.json(['check', '--range', `${base}..HEAD`]);
  assert.is(code, 1);
  assert.equal(
    out.violations.map((v: { rule: string }) => v.rule),
    ['mix-range'],
  );
  assert.equal(out.commits.length, 2);
  assert.is(repo.pw(['check', '--commit', 'HEAD']).code, 0, 'each commit alone is clean');
  repo.write('.patchwarden.yml', 'version: 1\nmix:\n  range: allow\n');
  assert.is(repo.pw(['check', '--range', `${base}..HEAD`]).code, 1, 'the working tree does not judge');
  assert.is(
    repo.pw(['check', '--range', `${base}..HEAD`, '--config', '.patchwarden.yml']).code,
    0,
    '--config names the judge',
  );
  const relaxed = repo.commit({}, 'relax the range rule');
  assert.is(repo.pw(['check', '--range', `${base}..HEAD`]).code, 1, 'a config in the range does not judge it');
  repo.commit({ 'src/app.py': 'x = 11\n' }, 'src');
  repo.commit({ 'spec/props.py': 'p = 11\n' }, 'spec');
  assert.is(repo.pw(['check', '--range', `${relaxed}..HEAD`]).code, 0, 'the config at the range start judges');
});

test('a malformed config stops the commit with exit 2 and names file, line and key', () => {
  const repo = guarded('version: 1\nzones:\n  src: [src/**]\n');
  repo.write('.patchwarden.yml', 'version: 1\nzones:\n  src: [src/**]\n  sorce: [x/**]\n');
  repo.git(['add', '-A']);
  const r = refusedCommit(repo);
  assert.match(
    r.stderr,
    /patchwarden: \.patchwarden\.yml:4: unknown key `zones\.sorce`.*; correct it and stage it again \(git add -- \.patchwarden\.yml\), or leave it out of this commit \(git restore --staged -- \.patchwarden\.yml\)/,
  );
  assert.is(repo.pw(['pre-commit']).code, 2);
  repo.git(['commit', '-q', '--no-verify', '-m', 'malformed']);
  assert.is(repo.pw(['check']).code, 2);
  const named = ['check', '--config', '.patchwarden.yml'];
  repo.write('.patchwarden.yml', 'version: 3\n');
  assert.match(repo.pw(named).stderr, /\.patchwarden\.yml:1: version: unknown version 3/);
  repo.write('.patchwarden.yml', 'version: 1\nzones:\n  src: "src/{a"\n');
  assert.match(repo.pw(named).stderr, /\.patchwarden\.yml:3: zones\.src: bad glob/);
  repo.write('.patchwarden.yml', 'version: 1\nfreeze:\n  max_ttl: soon\n');
  assert.match(repo.pw(named).stderr, /\.patchwarden\.yml:3: freeze\.max_ttl: must be a duration/);
  repo.write('.patchwarden.yml', 'version: 1\nmix: [\n');
  assert.match(repo.pw(named).stderr, /\.patchwarden\.yml:\d+: not valid YAML/);
});

test('a missing binary fails closed with a clear message', () => {
  const repo = guarded();
  repo.write('tests/test_app.py', 't = 4\n');
  repo.git(['add', '-A']);
  const before = snapshot(repo);
  const r = repo.git(['commit', '-q', '-m', 'clean but unguarded'], {
    allowFail: true,
    env: { PATH: '/usr/bin:/bin' },
  });
  assert.is(r.code, 1, 'git reports the hook failed');
  assert.match(r.stderr, /the pre-commit hook is installed but patchwarden is not/);
  assert.equal(snapshot(repo), before);
  repo.git(['commit', '-q', '-m', 'clean']);
  assert.is.not(repo.head(), before.head, 'with the binary on PATH the same commit goes through');
});

test.run();
