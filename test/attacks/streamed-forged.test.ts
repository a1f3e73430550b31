// The streamed early end of the revert check (revert.jobs: 2) against
// production code that forges the pytest plugin's `failing` record over the
// guard's channel, naming a registered invariant's case that in truth passes
// on head. The record is a hint only: head's report decides, so the forgery
// may cost the reverted run a restart but never the verdict, and never stands
// in for the base's run. Each patch is an honest fix (the base fails the
// property, head passes it) plus the forger; the honest verdict is
// describes_patch. Real pytest, real git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PY_SEND, startCollector } from '../helpers/collector.js';
import { FENCE } from '../helpers/fence.js';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, FIXED_PY, fingerprint, project, PYTEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const CASE = `spec/properties/test_bill.py::test_total[[invariant:${ID}]]`;
const GHOST = `spec/properties/test_bill.py::test_ghost[[invariant:${ID}]]`;

/**
 * The property, keyed by the name token pytest's node id carries (what the
 * stream reads), sends `SIDE start` and `SIDE end` to the test's collector
 * (the fence leaves the network open), which writes them to $JOBS_LOG; the
 * base side sleeps 6 s inside it, so a stop finds it still running.
 */
const PROPERTY = `import os, time
import pytest
from bill import total
${PY_SEND}

def note(what):
    send("%s %s" % (os.environ.get("PATCHWARDEN_SIDE", "unset"), what))


@pytest.mark.parametrize("k", [0], ids=["[invariant:${ID}]"])
def test_total(k):
    note("start")
    try:
        if os.environ.get("PATCHWARDEN_SIDE") == "base":
            time.sleep(6)
        for xs in ([], [1, 2], [0, 5]):
            assert total(xs) >= 0
    finally:
        note("end")
`;

/** Production code that waits for the base side's property to start (so the reverted run is still going), then `send`s. */
function forger(send: string, opts: { thread?: boolean } = {}): string {
  const body = `import json, os, sys, threading, time


def _base_started():
    log = os.environ.get("JOBS_LOG", "")
    end = time.time() + 40
    while time.time() < end:
        if os.path.exists(log) and "base start" in open(log).read():
            return
        time.sleep(0.05)


def _record(name):
    return (json.dumps({"t": "failing", "name": name, "pid": os.getpid()}) + "\\n").encode()


def _forge():
    _base_started()
${send
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}


`;
  const start = opts.thread ? 'threading.Thread(target=_forge, daemon=True).start()\n' : '_forge()\n';
  return `${body}${start}\n\n${FIXED_PY}`;
}

/** The plugin's own sender, as the guard leaves it in sys.modules. */
const BY_MODULE = (name: string) =>
  `sys.modules["_patchwarden_guard"].send({"t": "failing", "name": ${JSON.stringify(name)}})`;
/** `payload` written `times` times to every inherited descriptor that is the guard's named pipe, found through /proc/self/fd. */
const BY_FD = (payload: string, times = 1) => `for fd in range(3, 1024):
    try:
        target = os.readlink("/proc/self/fd/%d" % fd)
    except OSError:
        continue
    if target.endswith("/channel"):
        for _ in range(${times}):
            os.write(fd, ${payload})`;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function check(repo: TempRepo, base: string, head: string) {
  const collector = startCollector();
  try {
    const before = fingerprint(repo);
    const started = Date.now();
    const r = repo.json(['revert-check', '--base', base, '--head', head], {
      env: { ...collector.env, JOBS_LOG: collector.log, PATCHWARDEN_TRACE: '1' },
    });
    const ms = Date.now() - started;
    assert.equal(fingerprint(repo), before, 'the working tree, index, stash, refs and worktrees are as before');
    const lines = collector.read().trim().split('\n').filter(Boolean);
    return { ...r, lines, ms };
  } finally {
    collector.stop();
  }
}

function forged(src: string) {
  return project(
    {
      '.patchwarden.yml': config(PYTEST, 'revert:\n  jobs: 2\n'),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': PROPERTY,
      'src/bill.py': BUGGY_PY,
    },
    { 'src/bill.py': src },
  );
}

/**
 * The verdict the honest fix gets, from a base run that ran whole after the
 * stop. `started`: the forgery came once the base's property had started, so
 * the stopped run logged its start and never its end.
 */
function honest(r: ReturnType<typeof check>, name: string, started = true) {
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch', r.stderr);
  assert.equal(r.out.failing_on_revert, [ID]);
  assert.not.match(r.out.reason ?? '', /the base was not run/);
  assert.is(r.out.fix ?? null, null, 'no row edit is offered');
  assert.ok(r.out.revert_run, 'the reverted run is in the result');
  assert.equal(
    r.out.revert_run.invariants.map((i: { id: string }) => i.id),
    [ID],
  );
  assert.is(r.lines.filter((l) => l === 'head end').length, 1, JSON.stringify(r.lines));
  // The forgery reached the judge and stopped the base; head's report did not bear it out, so the base ran again.
  assert.match(
    r.stderr,
    new RegExp(`head fails ${escaped(JSON.stringify(name))} as it runs`),
    r.stderr + JSON.stringify(r.lines),
  );
  assert.match(r.stderr, /head's report does not show .* the run with the production diff reverted runs again, whole/);
  const based = r.lines.filter((l) => l.startsWith('base '));
  assert.equal(based.slice(-2), ['base start', 'base end'], `the last base run ran whole: ${JSON.stringify(r.lines)}`);
  if (started) assert.equal(based, ['base start', 'base start', 'base end'], 'the stopped base run never ended');
}

/** The sides run at once, and so end early, only where the kernel fences each. */
const pyTest = testUnless(pytestMissing ?? (FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides run in turn'));

test.after.each(cleanup);

pyTest("a forged failing record through the guard's own sender in sys.modules: the base runs whole again", () => {
  const { repo, base, head } = forged(forger(BY_MODULE(CASE)));
  honest(check(repo, base, head), CASE);
});

pyTest('a forged failing record written to the channel found through /proc/self/fd: the base runs whole again', () => {
  const { repo, base, head } = forged(forger(BY_FD(`_record(${JSON.stringify(CASE)})`)));
  // Head's report may be written before the base's property starts: the stopped run may not have logged.
  honest(check(repo, base, head), CASE, false);
});

pyTest('a forged failing record naming a case that does not exist: the base runs whole again', () => {
  const { repo, base, head } = forged(forger(BY_MODULE(GHOST)));
  honest(check(repo, base, head), GHOST);
});

// Sent once head's report is written, from a worker of a thread pool: the
// pool's threads are started by the standard library, and the interpreter
// waits for them at its exit, after the session.
const LATE = `import json, os, time
from concurrent.futures import ThreadPoolExecutor


def _late():
    report = json.load(open(os.environ["PATCHWARDEN_GUARD"]))["report"]
    end = time.time() + 40
    while time.time() < end and not os.path.exists(report):
        time.sleep(0.01)
${BY_FD(`_record(${JSON.stringify(CASE)})`).replace(/^/gm, '    ')}


def _record(name):
    return (json.dumps({"t": "failing", "name": name, "pid": os.getpid()}) + "\\n").encode()


ThreadPoolExecutor(1).submit(_late)


${FIXED_PY}`;

pyTest(
  "a forged failing record sent once head's report is written, from a thread the guard does not count as production code's: the base runs whole again",
  () => {
    const { repo, base, head } = forged(LATE);
    // Head's report may be written before the base's property starts: the stopped run may not have logged.
    honest(check(repo, base, head), CASE, false);
  },
);

/** The judge's own CPU while head's property command ran (its trace), in ms: reading the channel is part of it. */
function headCpu(stderr: string): number {
  const m = /head: property command: \d+ ms wall, CPU (\d+) ms here/.exec(stderr);
  assert.ok(m, stderr);
  return Number(m[1]);
}

pyTest('32 MB on the channel with no line break: the run is refused with a reason, read in linear time', () => {
  const { repo, base, head } = forged(forger(BY_FD('b"x" * (32 << 20)')));
  const r = check(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.match(
    r.out.reason,
    /the runtime guard refused the run: the runtime guard's channel carried a line that is not one of its records \("x{100}/,
  );
  assert.is(r.out.fix, null);
  assert.not.match(r.stderr, /as it runs/);
  assert.ok(headCpu(r.stderr) < 8000, `the judge read it in ${headCpu(r.stderr)} ms of CPU`);
});

pyTest(
  'a failing record whose name is 40 MB of name tokens: not heard, the base runs whole once (its failing case then alone); read in linear time',
  () => {
    const name = '"spec/properties/test_bill.py::" + "[invariant:x]" * ((40 << 20) // 13)';
    const { repo, base, head } = forged(forger(BY_FD(`_record(${name})`)));
    const r = check(repo, base, head);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.out.status, 'describes_patch');
    assert.not.match(r.stderr, /as it runs/);
    // The base ran once beside head, then its failing case once more alone (a base failure is confirmed alone).
    assert.equal(
      r.lines.filter((l) => l.startsWith('base ')),
      ['base start', 'base end', 'base start', 'base end'],
    );
    assert.ok(headCpu(r.stderr) < 8000, `the judge read it in ${headCpu(r.stderr)} ms of CPU`);
  },
);

pyTest(
  '600 MB on the channel (more than one string holds): the run is refused as flooded, the judge keeps 256 MB at most',
  () => {
    const { repo, base, head } = forged(forger(BY_FD('b"x" * (1 << 20)', 600)));
    const r = check(repo, base, head);
    assert.is(r.code, 1, r.stderr);
    assert.match(r.out.reason, /the guard's channel carried more than its records could ever take \(256 MB\)/);
    assert.is(r.out.fix, null);
  },
);

test.run();
