// The revert cache's folder is written by more than patchwarden: whatever
// runs outside a check can write it (in CI, a pull request's install scripts
// before the gate, with the folder restored). A named pipe planted as its
// index held the check forever as it read it; now the index and each entry
// are read only as regular files, and the check runs the base as for any
// entry it does not trust. node's test runner, the built CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI, cleanup, sh } from '../helpers/repo.js';
import { cacheDir } from '../properties/cache-site.js';
import { BUGGY_JS, config, FIXED_JS, jsProperty, NODE_TEST, project, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
test.after.each(cleanup);

test('a named pipe as the cache index does not hold the check', () => {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(NODE_TEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': BUGGY_JS,
      'package.json': '{"type":"module"}\n',
    },
    { 'src/bill.mjs': FIXED_JS },
  );
  mkdirSync(cacheDir(repo), { recursive: true });
  execFileSync('mkfifo', [path.join(cacheDir(repo), 'index.json')]);
  const run = () =>
    sh(process.execPath, [CLI, 'revert-check', '--base', base, '--head', head, '--format', 'json'], {
      cwd: repo.dir,
      env: repo.env,
      timeout: 120_000,
      killSignal: 'SIGKILL',
    });
  let r: ReturnType<typeof sh> | null = null;
  try {
    r = run();
  } catch (err) {
    assert.unreachable(`the check did not end within 120 s (${(err as Error).message})`);
  }
  if (!r) throw new Error('unreachable');
  const out = JSON.parse(r.stdout);
  assert.is(out.status, 'describes_patch', `${out.reason}\n${r.stderr}`);
  assert.is(r.code, 0);
  assert.is(out.revert_run.cached, null, 'the base ran');
});

test.run();
