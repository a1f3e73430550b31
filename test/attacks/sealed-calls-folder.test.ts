// Production code against the folder where property processes leave their
// count of calls to the worker (sealed/env.ts). Under kernel sealing the
// worker cannot reach it: a forged figure never lands. Under process sealing
// it can (the worker is unconfined), and a named pipe planted there (os.mkfifo
// raises no audit event the runtime guard hears) held the judge forever as it
// read the figures after the run; now such an entry is passed over and the
// check ends with the verdict the code deserves. Real pytest, the built CLI.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { CLI, cleanup, PROJECT, sh } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, project, PYTEST, pyProperty, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const FORGED = 987654321;
const landlock = landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi;
test.after.each(cleanup);

/** Finds the calls folder from the property process's environment, or by its name under /tmp, and plants `what` there. */
const planting = (what: string) => `import glob, json, os


def _folders():
    found = set(glob.glob("/tmp/patchwarden-sealed-*/calls"))
    try:
        env = open("/proc/%d/environ" % os.getppid(), "rb").read().split(b"\\0")
    except OSError:
        env = []
    for kv in env:
        if kv.startswith(b"PATCHWARDEN_SEALED="):
            found.add(os.path.join(os.path.dirname(kv.split(b"=", 1)[1].decode()), "calls"))
    return found


for _calls in _folders():
    try:
        ${what}
    except OSError:
        pass


def total(xs):
    return sum(xs)
`;

const FIFO = 'os.mkfifo(os.path.join(_calls, "999999.json"))';
const FIGURE = `json.dump({"calls": ${FORGED}, "ms": 1}, open(os.path.join(_calls, "999998.json"), "w"))`;

/** revert-check under `sealed`, killed after `ms` if it has not ended. */
function check(sealed: string, src: string, env: NodeJS.ProcessEnv = {}, ms = 240_000) {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(PYTEST, `  sealed: ${sealed}\ntamper:\n  mode: off\n`),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': pyProperty(ID),
      'src/bill.py': BUGGY_PY,
    },
    { 'src/bill.py': src },
  );
  const run = () =>
    sh(process.execPath, [CLI, 'revert-check', '--base', base, '--head', head, '--format', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, ...env },
      timeout: ms,
      killSignal: 'SIGKILL',
    });
  let r: ReturnType<typeof sh> | null = null;
  try {
    r = run();
  } catch (err) {
    assert.unreachable(`the check did not end within ${ms / 1000} s (${(err as Error).message})`);
  }
  if (!r) throw new Error('unreachable');
  return { code: r.code, out: JSON.parse(r.stdout), stderr: r.stderr };
}

testUnless(pytestMissing)('process: a named pipe in the calls folder does not hold the check', () => {
  const r = check('process', planting(FIFO), { PATCHWARDEN_LANDLOCK: 'off' });
  assert.is(r.out.sealed, 'process', r.stderr);
  assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
  assert.is(r.code, 0);
  assert.ok(r.out.sealed_calls?.calls > 0, "the property processes' own figures are still counted");
});

testUnless(pytestMissing ?? (landlock > 0 ? null : 'Landlock is not available: no kernel sealing here'))(
  'kernel: the worker cannot write a figure into the calls folder',
  () => {
    const r = check('kernel', planting(FIGURE));
    assert.is(r.out.sealed, 'kernel', r.stderr);
    assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
    assert.ok(r.out.sealed_calls?.calls > 0 && r.out.sealed_calls.calls < FORGED, JSON.stringify(r.out.sealed_calls));
  },
);

test.run();
