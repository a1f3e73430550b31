// A linked worktree (git worktree add) has no node_modules of its own: the
// hooks a manager runs there must still find the guard, the main worktree's,
// and judge. The real pre-commit framework, wired by init.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI, cleanup, tempRepo } from '../helpers/repo.js';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';

test.after.each(cleanup);

testUnless(missingUnless('pre-commit', ['--version'], ciInstalls('pre-commit is not installed')))(
  "pre-commit framework: in a linked worktree the hooks find the main worktree's guard; a mix is refused, a clean commit and its push pass",
  () => {
    const home = mkdtempSync(path.join(tmpdir(), 'pw-pre-commit-home-'));
    try {
      const remote = tempRepo({ bare: true });
      const repo = tempRepo({ env: { PRE_COMMIT_HOME: home } });
      // node_modules/.bin/patchwarden as npm links it, in the main worktree only (ignored, as node_modules is).
      mkdirSync(path.join(repo.dir, 'node_modules/.bin'), { recursive: true });
      const bin = path.join(repo.dir, 'node_modules/.bin/patchwarden');
      writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
      chmodSync(bin, 0o755);
      repo.commit(
        {
          '.gitignore': 'node_modules/\n',
          '.pre-commit-config.yaml': "# the team's hooks\nrepos: []\n",
          'src/app.js': 'export const a = 1;\n',
          'spec/a.test.js': '// a\n',
        },
        'the project so far',
      );
      repo.git(['remote', 'add', 'origin', remote.dir]);
      const init = repo.pw(['init', '--yes']);
      assert.is(init.code, 0, init.stdout + init.stderr);
      assert.match(init.stdout + init.stderr, 'pre-commit: hooks installed');
      repo.git(['add', '-A']);
      repo.git(['commit', '-q', '-m', 'patchwarden']);
      repo.git(['push', '-q', '-u', 'origin', 'main']);
      const linked = path.join(path.dirname(repo.dir), `${path.basename(repo.dir)}-linked`);
      repo.git(['worktree', 'add', '-q', '-b', 'topic', linked]);
      try {
        const git = (args: string[]) => repo.git(['-C', linked, ...args], { allowFail: true });
        writeFileSync(path.join(linked, 'src/app.js'), 'export const a = 2;\n');
        writeFileSync(path.join(linked, 'spec/a.test.js'), '// a, loosened\n');
        git(['add', '-A']);
        const mixed = git(['commit', '-q', '-m', 'mixed']);
        assert.is(mixed.code, 1, mixed.stdout + mixed.stderr);
        assert.match(mixed.stdout + mixed.stderr, 'refused [mix]');
        assert.not.match(mixed.stdout + mixed.stderr, 'not found');
        git(['reset', '-q', '--', 'spec/a.test.js']);
        const clean = git(['commit', '-q', '-m', 'production only']);
        assert.is(clean.code, 0, clean.stdout + clean.stderr);
        const pushed = git(['push', '-u', 'origin', 'topic']);
        assert.is(pushed.code, 0, pushed.stdout + pushed.stderr);
        assert.match(pushed.stdout + pushed.stderr, /patchwarden pre-push\.+Passed/);
        // Without the guard in either worktree the hooks block, saying why.
        rmSync(bin);
        writeFileSync(path.join(linked, 'src/app.js'), 'export const a = 3;\n');
        const blocked = git(['commit', '-q', '-am', 'no guard']);
        assert.is.not(blocked.code, 0);
        assert.match(blocked.stdout + blocked.stderr, 'patchwarden: not installed here or in the main worktree');
      } finally {
        rmSync(linked, { recursive: true, force: true });
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  },
);

test('doctor warns of a manager config that runs node_modules/.bin/patchwarden by its root path, as init wrote before', () => {
  const repo = tempRepo();
  const old = (h: string) =>
    `      - id: patchwarden-${h}\n        name: patchwarden ${h}\n        entry: node_modules/.bin/patchwarden ${h}\n        language: system\n`;
  repo.commit({
    '.patchwarden.yml': 'version: 1\n',
    '.pre-commit-config.yaml': `repos:\n  - repo: local\n    hooks:\n${old('pre-commit')}${old('pre-push')}`,
  });
  const r = repo.pw(['doctor']);
  assert.match(
    r.stdout,
    /WARNING pre-commit: \.pre-commit-config\.yaml runs node_modules\/\.bin\/patchwarden by its path from the root, which fails in a linked worktree/,
  );
  repo.commit({ '.pre-commit-config.yaml': `repos: []\n` });
  assert.not.match(repo.pw(['doctor']).stdout, 'fails in a linked worktree');
});

test.run();
