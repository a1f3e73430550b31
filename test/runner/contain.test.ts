// The containment probe (runner/contain.ts) runs its programs (setpriv,
// unshare, the subreaper launcher) as child processes the event loop waits
// for, not blocking it: the revert check starts it beside the worktrees and
// the cache key, and awaits it only where a command starts. Probed once per
// process: every caller gets the same mechanism, and a command runs under it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTestCommand } from '../../src/runner/command.js';
import { containedSoFar, containment, MECHANISMS } from '../../src/runner/contain.js';

test('the probe leaves the event loop running, and answers once per process', async () => {
  assert.is(containedSoFar(), null, 'nothing probed before the first call');
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const first = await Promise.all([containment(), containment()]);
  clearInterval(timer);
  assert.ok(MECHANISMS.includes(first[0]), first[0]);
  assert.is(first[1], first[0]);
  if (process.platform === 'linux') assert.ok(ticks > 0, 'the probe blocked the event loop');
  assert.is(await containment(), first[0]);
  assert.is(containedSoFar(), first[0]);
});

test('a command runs under the probed mechanism', async () => {
  const run = await runTestCommand('exit 3', { cwd: process.cwd(), timeoutMs: 30_000 });
  try {
    assert.is(run.code, 3);
    assert.is(run.contained, await containment());
  } finally {
    run.dispose();
  }
});

test.run();
