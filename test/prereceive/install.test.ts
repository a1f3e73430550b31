// scripts/install-server-hook.sh on real bare repositories, then real pushes.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, PROJECT, sh, tempRepo } from '../helpers/repo.js';

const SCRIPT = path.join(PROJECT, 'scripts/install-server-hook.sh');

test.after.each(cleanup);

function pushInto(bare: string) {
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', bare]);
  work.commit({ '.patchwarden.yml': 'version: 1\n', 'src/a.ts': 'a\n' }, 'start');
  assert.is(work.git(['push', 'origin', 'main'], { allowFail: true }).code, 0);
  work.commit({ 'src/a.ts': 'b\n', 'spec/s.yaml': 's\n' }, 'mixed');
  return work.git(['push', 'origin', 'main'], { allowFail: true });
}

test('a plain bare repository: the hook refuses a mixed push; a foreign hook is kept and runs first', () => {
  const bare = tempRepo({ bare: true });
  const old = path.join(bare.dir, 'hooks/pre-receive');
  writeFileSync(old, '#!/bin/sh\necho "site hook ran"\n', { mode: 0o755 });
  const r = sh('sh', [SCRIPT, '--branch', 'main', '--bootstrap', bare.dir]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'kept the existing hook');
  assert.match(readFileSync(`${old}.pre-patchwarden`, 'utf8'), 'site hook ran');
  const push = pushInto(bare.dir);
  assert.is.not(push.code, 0);
  assert.match(push.stderr, 'remote: site hook ran');
  assert.match(push.stderr, '[mix]');
});

test('--gitlab writes custom_hooks/pre-receive, --gitea hooks/pre-receive.d/pre-receive', () => {
  const bare = tempRepo({ bare: true });
  assert.is(sh('sh', [SCRIPT, '--gitlab', '--branch', 'main', bare.dir]).code, 0);
  assert.ok(existsSync(path.join(bare.dir, 'custom_hooks/pre-receive')));
  assert.is(sh('sh', [SCRIPT, '--gitea', '--branch', 'main', bare.dir]).code, 0);
  assert.ok(existsSync(path.join(bare.dir, 'hooks/pre-receive.d/pre-receive')));
});

test('--bin pins the executable; a missing one is warned of at install and blocks the push', () => {
  const bare = tempRepo({ bare: true });
  const installed = sh('sh', [SCRIPT, '--bin', '/nonexistent/patchwarden', '--branch', 'main', bare.dir]);
  assert.is(installed.code, 0);
  assert.match(
    installed.stderr,
    'warning: /nonexistent/patchwarden is not an executable file, so the hook refuses every push',
  );
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', bare.dir]);
  work.commit({ 'src/a.ts': 'a\n' }, 'start');
  const r = work.git(['push', 'origin', 'main'], { allowFail: true });
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '/nonexistent/patchwarden');
});

test('without --bin and with no patchwarden on PATH, the install warns that every push will be refused', () => {
  const bare = tempRepo({ bare: true });
  const bare2 = tempRepo({ bare: true });
  const PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((d) => d && !existsSync(path.join(d, 'patchwarden')))
    .join(':');
  const none = sh('sh', [SCRIPT, '--branch', 'main', bare.dir], { env: cleanEnv({ PATH }) });
  assert.is(none.code, 0, none.stderr);
  assert.match(none.stderr, 'warning: patchwarden is not on PATH here, so the hook refuses every push');
  // On PATH (the tests' own bin folder, first on cleanEnv's PATH): no warning.
  const found = sh('sh', [SCRIPT, '--branch', 'main', bare2.dir]);
  assert.is(found.code, 0, found.stderr);
  assert.not.match(found.stderr, 'warning');
});

test('a folder that is not a bare repository is refused', () => {
  const work = tempRepo();
  const r = sh('sh', [SCRIPT, work.dir]);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'is not a bare git repository');
});

test.run();
