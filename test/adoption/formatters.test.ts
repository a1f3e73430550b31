// A formatter in the commit hook chain against the fixture lock, with the real
// tools: husky 9, lint-staged 16 and prettier 3 from the registry, the packed
// tarball installed as a user installs it. prettier runs after the guard and
// restages a fixture in its own style; commit-msg checks the lock again and
// names the rewrite, pre-push names it where commit-msg did not run, and
// init keeps the formatter off the locked folders.
import { readFileSync, renameSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { Project, removeProjects } from './project.js';

test.after.each(() => {
  removeProjects();
  cleanup();
});

const SIGN = ['-c', 'commit.gpgSign=true'];

test('prettier through lint-staged rewrites a staged fixture: commit-msg refuses it, init keeps prettier off', () => {
  const p = new Project({
    'package.json': JSON.stringify(
      {
        name: 'shop',
        private: true,
        scripts: { prepare: 'husky', test: 'node --test' },
        'lint-staged': { '*.{json,yaml,yml,js}': 'prettier --write' },
      },
      null,
      2,
    ),
    '.husky/pre-commit': 'npx lint-staged\n',
    'src/app.js': 'export const price = (n) => n;\n',
    'case.json': '{"items": [1, 2], "total": 3}',
  });
  p.npmInstall('husky@9', 'lint-staged@16', 'prettier@3');
  p.ok('npx', ['--no-install', 'husky']);
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.is(init.code, 0, init.stdout + init.stderr);
  assert.match(init.stdout, '.prettierignore: added /fixtures/, /freeze/');
  assert.match(readFileSync(path.join(p.dir, '.prettierignore'), 'utf8'), /^\/fixtures\/\n\/freeze\/\n$/m);
  p.ok('git', ['add', '-A']);
  p.ok('git', [...SIGN, 'commit', '-q', '-m', 'project with patchwarden']);
  p.ok('git', ['push', '-q']);

  // The team's setup before: no .prettierignore.
  p.ok('git', ['rm', '-q', '.prettierignore']);
  p.ok('git', ['commit', '-q', '-m', 'no prettierignore']);
  const add = p.pw('fixtures', 'add', 'case.json', '--format', 'json');
  assert.is(add.code, 0, add.stderr);
  const fixture: string = JSON.parse(add.stdout).path;
  p.ok('git', ['add', fixture, 'fixtures/inputs.sha256']);
  const refused = p.run('git', [...SIGN, 'commit', '-m', 'a fixture']);
  const said = refused.stdout + refused.stderr;
  assert.is(refused.code, 1, said);
  assert.match(said, 'fixture bytes in the index changed after the commit hooks ran');
  assert.match(said, 'a formatter in the hook chain likely rewrote them');
  const locked = readFileSync(path.join(p.dir, 'fixtures/inputs.sha256'), 'utf8').slice(0, 16);
  assert.match(said, `the lock has sha256 ${locked}…, the staged bytes `);
  // The attack is real: prettier restaged its own bytes, which the lock does not name.
  const staged = p.ok('git', ['cat-file', 'blob', `:${fixture}`]).stdout;
  assert.match(staged, '{ "items": [1, 2], "total": 3 }\n');
  assert.is.not(createHash('sha256').update(staged).digest('hex').slice(0, 16), locked);

  // Without the commit-msg hook (an install from before it), the commit lands and pre-push names the rewrite.
  const hook = path.join(p.dir, '.husky/commit-msg');
  renameSync(hook, `${hook}.off`);
  assert.is(p.pw('fixtures', 'add', 'case.json').code, 0);
  p.ok('git', ['add', fixture]);
  p.ok('git', [...SIGN, 'commit', '-q', '-m', 'a fixture']);
  const push = p.run('git', ['push']);
  assert.is(push.code, 1, push.stderr);
  const pushSaid = push.stdout + push.stderr;
  assert.match(pushSaid, /refused \[fixtures\] fixture bytes in refs\/heads\/\S+ at [0-9a-f]{12} differ/);
  assert.match(pushSaid, 'the lock has sha256');
  assert.match(pushSaid, 'a formatter in the commit hooks');
  renameSync(`${hook}.off`, hook);
  p.ok('git', ['reset', '-q', '--hard', 'HEAD~1']);

  // The fix, as printed: init puts prettier off the locked folders; the fixture is written again.
  assert.match(said, 'patchwarden init --yes');
  const again = p.pw('init', '--yes');
  assert.match(again.stdout, '.prettierignore: added /fixtures/, /freeze/');
  p.ok('git', ['add', '.prettierignore']);
  p.ok('git', ['commit', '-q', '-m', 'prettier leaves locked bytes alone']);
  assert.is(p.pw('fixtures', 'add', 'case.json').code, 0);
  p.ok('git', ['add', '-A']);
  p.ok('git', [...SIGN, 'commit', '-q', '-m', 'a fixture']);
  const committed = p.ok('git', ['cat-file', 'blob', `HEAD:${fixture}`]).stdout;
  assert.is(createHash('sha256').update(committed).digest('hex').slice(0, 16), locked);
  p.ok('git', ['push', '-q']);
});

test('init adds exclude to .pre-commit-config.yaml, keeps one a team wrote, and names lint-staged globs that reach the folders', () => {
  const repo = tempRepo();
  repo.commit({
    'src/app.py': 'x = 1\n',
    '.pre-commit-config.yaml':
      '# the team hooks\nrepos:\n- repo: local\n  hooks:\n  - id: fmt\n    name: fmt\n    entry: true\n    language: system\n',
    'package.json': JSON.stringify({
      name: 'x',
      private: true,
      'lint-staged': { '*.json': 'eslint --fix', 'src/**/*.py': 'black' },
    }),
  });
  const init = repo.pw(['init', '--yes']);
  assert.ok(init.code === 0, init.stdout + init.stderr);
  const config = readFileSync(path.join(repo.dir, '.pre-commit-config.yaml'), 'utf8');
  assert.match(config, /^# the team hooks\n/);
  assert.match(config, /^exclude: \^\(fixtures\|freeze\)\/$/m);
  assert.match(init.stdout, 'package.json lint-staged: "*.json" (eslint --fix) reaches fixtures/, freeze/');
  assert.not.match(init.stdout, '"src/**/*.py"');
  // A second run changes nothing; a team's own exclude is kept and named.
  assert.is(repo.pw(['init', '--yes']).stdout.includes('exclude'), false);
  const own = tempRepo();
  own.commit({ 'src/app.py': 'x = 1\n', '.pre-commit-config.yaml': 'exclude: ^docs/\nrepos: []\n' });
  const named = own.pw(['init', '--yes']);
  assert.match(named.stdout, '.pre-commit-config.yaml has its own exclude: add ^(fixtures|freeze)/ to it');
  assert.match(readFileSync(path.join(own.dir, '.pre-commit-config.yaml'), 'utf8'), /^exclude: \^docs\/$/m);
});

test.run();
