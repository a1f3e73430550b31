// Whether a check starts python3 at all. The python3 on PATH is often a
// version manager's shim, a few hundred ms of CPU a start: a JavaScript
// project checked one side at a time and unsealed needs no Python (no fence,
// no sealed worker, no Python syntax compare), so none starts; with
// revert.jobs: 2 the fence's probe asks it. A python3 on the test's PATH
// notes each start in a file, then runs the real one. A probe that hangs
// ends at its timeout, and the sides run in turn: nothing waits on it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { BUGGY_JS, config, FIXED_JS, jsProperty, NODE_TEST, project, registry, startPw } from './projects.js';

const ID = 'bill.total_non_negative';

/**
 * A python3 first on PATH that appends a line to `log` for each start, then
 * runs the python3 after it on PATH; with `hang`, it names itself as the
 * interpreter behind it and answers the Landlock probe never.
 */
function notingPython(repo: TempRepo, log: string, hang = false): NodeJS.ProcessEnv {
  const bin = path.join(repo.dir, '.git', 'noting-bin');
  mkdirSync(bin);
  const rest = (repo.env.PATH ?? process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== bin);
  const real = rest.map((d) => path.join(d, 'python3')).find((f) => existsSync(f));
  assert.ok(real, 'a python3 on PATH');
  const self = path.join(bin, 'python3');
  const hanging = `case "$*" in\n  *--probe*) exec sleep 120 ;;\n  *"print(sys.executable)"*) echo '${self}'; exit 0 ;;\nesac\n`;
  writeFileSync(self, `#!/bin/sh\necho started >> '${log}'\n${hang ? hanging : ''}exec '${real}' "$@"\n`);
  chmodSync(self, 0o755);
  return { PATH: [bin, ...rest].join(path.delimiter) };
}

async function starts(extra: string, hang = false): Promise<{ code: number | null; starts: number; stderr: string }> {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(NODE_TEST, extra),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': BUGGY_JS,
    },
    { 'src/bill.mjs': FIXED_JS },
  );
  const log = path.join(repo.dir, '.git', 'python3-starts');
  const run = await startPw(repo, ['revert-check', '--base', base, '--head', head], notingPython(repo, log, hang)).done;
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
  return { code: run.code, starts: lines, stderr: run.stderr };
}

test.after.each(cleanup);

test('a JavaScript project, one side at a time and unsealed: the check starts no python3', async () => {
  const r = await starts('revert:\n  jobs: 1\n');
  assert.is(r.code, 0, r.stderr);
  assert.is(r.starts, 0, r.stderr);
});

test('the same project under revert.jobs: 2: the fence asks python3', async () => {
  const r = await starts('revert:\n  jobs: 2\n');
  assert.is(r.code, 0, r.stderr);
  assert.ok(r.starts > 0, r.stderr);
});

test('a Landlock probe that never answers ends at its timeout, and the sides run in turn', async () => {
  const started = Date.now();
  const r = await starts('revert:\n  jobs: 2\n', true);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /runs the sides in turn, the base first: no Landlock ABI 2 here/, r.stderr);
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
});

test.run();
