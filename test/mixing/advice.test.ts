// A refusal's split advice works when followed: its commands are run as
// printed, and the result is pushed through the pre-push hook into a remote.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advice, cloneOf, follow, ownerEnv } from '../helpers/advice.js';
import { ownerKey } from '../helpers/owner.js';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';

/**
 * A clone of an empty remote (so `git push` has its upstream), hooks installed
 * by init with an owner's key; `owned: false` leaves owners optional, as a
 * config from before owners were required does.
 */
function guardedClone(owned = true): { repo: TempRepo; origin: TempRepo } {
  const origin = tempRepo({ bare: true });
  const repo = cloneOf(origin);
  assert.is(repo.pw(['init', '--yes', ...(owned ? ['--owner-key', ownerKey()] : [])]).code, 0);
  if (!owned) {
    const file = path.join(repo.dir, '.patchwarden.yml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('required: true', 'required: false'));
  }
  return { repo, origin };
}

/** The owner following the advice: their identity and key, git set to sign every commit. */
const asOwner = (repo: TempRepo) => ownerEnv(repo.env, 'author@example.com', ownerKey().replace(/\.pub$/, ''));

/** Both commits landed on the remote, each on its own. */
function assertSplitPushed(repo: TempRepo, origin: TempRepo, oracle: string, src: string): void {
  const log = origin.git(['log', '--format=%H', 'main']).stdout.trim().split('\n');
  const files = (c: string) => origin.git(['show', '--format=', '--name-only', c]).stdout.trim();
  assert.is(files(log[0]), src);
  assert.is(files(log[1]), oracle);
  assert.is(repo.git(['status', '--porcelain', '--untracked-files=no']).stdout, '');
}

function start(repo: TempRepo): void {
  repo.write('src/app.py', 'x = 1\n').write('spec/test_p.py', 'p = 1\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'start', '--no-verify']);
  repo.git(['push', '-q']);
}

test('after git add -A: the advice splits the commit, and both pushes go through', () => {
  const { repo, origin } = guardedClone();
  start(repo);
  repo.write('src/app.py', 'x = 2\n').write('spec/test_p.py', 'p = 2\n');
  repo.git(['add', '-A']);
  const r = repo.git(['commit', '-q', '-m', 'mixed'], { allowFail: true });
  assert.is(r.code, 1);
  follow(repo.dir, asOwner(repo), advice(r.stderr));
  repo.git(['push', '-q']);
  assertSplitPushed(repo, origin, 'spec/test_p.py', 'src/app.py');
});

test('after git commit -a (nothing staged): the advice works the same', () => {
  const { repo, origin } = guardedClone();
  start(repo);
  repo.write('src/app.py', 'x = 2\n').write('spec/test_p.py', 'p = 2\n');
  const r = repo.git(['commit', '-q', '-a', '-m', 'mixed'], { allowFail: true });
  assert.is(r.code, 1);
  assert.is(repo.git(['diff', '--cached', '--name-only']).stdout, '', 'commit -a left nothing staged');
  follow(repo.dir, asOwner(repo), advice(r.stderr));
  repo.git(['push', '-q']);
  assertSplitPushed(repo, origin, 'spec/test_p.py', 'src/app.py');
});

test("on a repository's first commit (no HEAD): the advice works, free paths go with the production code", () => {
  const { repo, origin } = guardedClone();
  repo.write('src/app.py', 'x = 1\n').write('spec/test_p.py', 'p = 1\n').write('README.md', 'app\n');
  repo.git(['add', 'src', 'spec', 'README.md']);
  const r = repo.git(['commit', '-q', '-m', 'first'], { allowFail: true });
  assert.is(r.code, 1);
  follow(repo.dir, repo.env, advice(r.stderr));
  repo.git(['push', '-q']);
  const log = origin.git(['log', '--format=%H', 'main']).stdout.trim().split('\n');
  assert.is(log.length, 2);
  assert.is(origin.git(['show', '--format=', '--name-only', log[0]]).stdout.trim(), 'README.md\nsrc/app.py');
  assert.match(readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'), /version: 2/);
});

test('a push whose range mixes across commits: the printed pushes, oracle first, both go through', () => {
  // Owners optional: with an owner required, the unsigned oracle commit is refused for its signature first.
  const { repo, origin } = guardedClone(false);
  start(repo);
  repo.write('spec/test_p.py', 'p = 2\n');
  repo.git(['commit', '-q', '-am', 'spec: p is two']);
  repo.write('src/app.py', 'x = 2\n');
  repo.git(['commit', '-q', '-am', 'x is two']);
  const r = repo.git(['push', '-q'], { allowFail: true });
  const said = r.stdout + r.stderr;
  assert.is(r.code, 1, said);
  assert.match(said, /refused \[mix-range\]/);
  const commands = advice(said, 'push the oracle commits on their own first');
  assert.equal(
    commands.map((c) => c.split(' ').slice(0, 3).join(' ')),
    ['git push origin', 'git push origin'],
  );
  follow(repo.dir, repo.env, commands);
  assertSplitPushed(repo, origin, 'spec/test_p.py', 'src/app.py');
});

test.after.each(cleanup);
test("a new project's first commit, with no remote yet: the advice prints no push, and its commands all run", () => {
  const repo = tempRepo();
  assert.is(repo.pw(['init', '--yes']).code, 0);
  repo.write('src/app.py', 'x = 1\n').write('spec/test_p.py', 'p = 1\n');
  repo.git(['add', '-A']);
  const r = repo.git(['commit', '-q', '-m', 'start'], { allowFail: true });
  assert.is(r.code, 1);
  const commands = advice(r.stderr);
  assert.not.ok(
    commands.some((c) => c.startsWith('git push')),
    commands.join('\n'),
  );
  follow(repo.dir, repo.env, commands);
  const log = repo.git(['log', '--format=%s']).stdout.trim().split('\n');
  assert.equal(log, ['production change', 'oracle change']);
  assert.match(repo.git(['show', '--format=', '--name-only', 'HEAD~1']).stdout, /spec\/test_p\.py/);
  assert.not.match(repo.git(['show', '--format=', '--name-only', 'HEAD~1']).stdout, /src\/app\.py/);
});

test.run();
