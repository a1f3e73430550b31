// revert.jobs: with 2 the head run and the reverted run go at once where the
// kernel fences each side, each in its own tree and told its side in
// PATCHWARDEN_SIDE; without the fence, and without the key (every existing
// config), one after the other, the base first. Overlap is read from outside
// the trees: each run's property sends its side and its start and end times
// to a collector of the test's (test/helpers/collector.ts), which the fence
// leaves open.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { starterConfig } from '../../src/adopt/starter.js';
import { parseConfig } from '../../src/config/parse.js';
import { CannotJudge } from '../../src/common/errors.js';
import { PY_SEND, startCollector } from '../helpers/collector.js';
import { FENCE } from '../helpers/fence.js';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_PY, config, fingerprint, FIXED_PY, project, PYTEST, registry, startPw } from './projects.js';

const ID = 'bill.total_non_negative';

/**
 * A property that sends `SIDE START END` (ms) to the collector around a sleep
 * of `seconds` (the base side's own when `baseSeconds` is given).
 */
function timedProperty(seconds: number, baseSeconds = seconds): string {
  return `import os, time
from bill import total
${PY_SEND}

def test_total_non_negative(record_property):
    record_property("invariant", "${ID}")
    side = os.environ.get("PATCHWARDEN_SIDE", "unset")
    start = time.time()
    send("%s start %d" % (side, start * 1000))
    try:
        time.sleep(${baseSeconds} if side == "base" else ${seconds})
        for xs in ([], [1, 2], [0, 5]):
            assert total(xs) >= 0
    finally:
        send("%s end %d %d" % (side, start * 1000, time.time() * 1000))
`;
}

interface Interval {
  side: string;
  start: number;
  end: number;
}

function intervals(log: string): { started: string[]; ended: Interval[] } {
  const lines = log.trim().split('\n');
  const started = lines.filter((l) => l.split(' ')[1] === 'start').map((l) => l.split(' ')[0]);
  const ended = lines
    .map((l) => l.split(' '))
    .filter((w) => w[1] === 'end')
    .map((w) => ({ side: w[0], start: Number(w[2]), end: Number(w[3]) }));
  return { started, ended };
}

/** Each side's property sleeps 3 s: enough to overlap on a loaded machine, where the two trees are not made at the same pace. */
function timedProject(extra: string, head: Record<string, string>, base: Record<string, string> = {}) {
  return project(
    {
      '.patchwarden.yml': config(PYTEST, extra),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': timedProperty(3),
      'src/bill.py': BUGGY_PY,
      ...base,
    },
    head,
  );
}

/** A check, its runs' lines as the collector got them; `env` added (PATCHWARDEN_LANDLOCK=off: no fence). */
function check(repo: TempRepo, base: string, head: string, env: NodeJS.ProcessEnv = {}) {
  const collector = startCollector();
  try {
    const before = fingerprint(repo);
    const started = Date.now();
    const r = repo.json(['revert-check', '--base', base, '--head', head], {
      env: { ...collector.env, JOBS_LOG: collector.log, ...env },
    });
    const ms = Date.now() - started;
    assert.equal(fingerprint(repo), before, 'the working tree, index, stash, refs and worktrees are as before');
    const text = collector.read();
    return { ...r, runs: intervals(text), ms, log: text };
  } finally {
    collector.stop();
  }
}

const overlap = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;

const pyTest = testUnless(pytestMissing);
/** Both sides at once need the fence (Landlock ABI 2). */
const fencedTest = testUnless(
  pytestMissing ?? (FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides run in turn'),
);

test.after.each(cleanup);

fencedTest('revert.jobs: 2 runs the head side and the base side at once, fenced, each told its side', () => {
  const { repo, base, head } = timedProject('revert:\n  jobs: 2\n', { 'src/bill.py': FIXED_PY });
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.equal(r.out.failing_on_revert, [ID]);
  assert.match(r.stderr, /at once \(revert\.jobs: 2\)/);
  assert.is(r.out.fence, 'landlock');
  // Head and the base at once, then the case the base failed once more on the base alone, after head ended.
  assert.equal(r.runs.ended.map((x) => x.side).sort(), ['base', 'base', 'head']);
  const onHead = r.runs.ended.find((x) => x.side === 'head')!;
  const [beside, alone] = r.runs.ended.filter((x) => x.side === 'base').sort((x, y) => x.start - y.start);
  assert.ok(overlap(onHead, beside), `the two runs overlap: ${JSON.stringify(r.runs.ended)}`);
  assert.ok(
    alone.start >= onHead.end,
    `the confirming base run started after head ended: ${JSON.stringify(r.runs.ended)}`,
  );
  assert.match(r.stderr, /base: ran alone "test_total_non_negative" failed/);
});

fencedTest('revert.jobs: 2 starts the reverted run beside the cache key; a hit stops it and the cache answers', () => {
  const { repo, base, head } = timedProject('revert:\n  jobs: 2\n', { 'src/bill.py': FIXED_PY });
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  assert.match(first.stderr, /base: not cached/);
  assert.not.match(first.stderr, /started beside the key/);
  const again = check(repo, base, head);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.out.status, 'describes_patch');
  assert.match(again.stderr, /base: stopping the run started beside the key \(the cache answers for it\)/);
  // The cached base fails the fixed case, which a cached outcome cannot answer for: it ran fresh, once, after head.
  assert.match(again.stderr, /base: ran fresh "test_total_non_negative" failed/);
  assert.not.match(again.stderr, /run again on the base alone/);
  const onHead = again.runs.ended.find((x) => x.side === 'head')!;
  // The run started beside the key was stopped mid-sleep: it never ended.
  const bases = again.runs.ended.filter((x) => x.side === 'base');
  assert.is(bases.length, 1, `the base's part ran once: ${JSON.stringify(again.runs.ended)}`);
  assert.ok(bases[0].start >= onHead.end, `the base's part started after head ended: ${again.log}`);
  assert.ok(again.out.revert_run?.cached, JSON.stringify(again.out.revert_run));
  // The stopped run's tree is gone, like every other (check() compares the worktrees).
});

pyTest('a config without revert.jobs runs the sides one after the other, the base first', () => {
  const { repo, base, head } = timedProject('', { 'src/bill.py': FIXED_PY });
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.not.match(r.stderr, /at once/);
  assert.is(r.out.fence, null);
  const [a, b] = r.runs.ended;
  assert.equal([a.side, b.side], ['base', 'head']);
  assert.not.ok(overlap(a, b), `the two runs do not overlap: ${JSON.stringify(r.runs.ended)}`);
  assert.ok(a.end <= b.start);
});

pyTest('revert.jobs: 2 without Landlock runs the sides in turn, the base first, and says why', () => {
  const { repo, base, head } = timedProject('revert:\n  jobs: 2\n', { 'src/bill.py': FIXED_PY });
  const r = check(repo, base, head, { PATCHWARDEN_LANDLOCK: 'off' });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.is(r.out.fence, 'none');
  assert.match(r.stderr, /revert\.jobs: 2 runs the sides in turn, the base first: no Landlock ABI 2 here/);
  assert.not.match(r.stderr, /at once \(revert\.jobs: 2\)|ran alone/);
  const [a, b] = r.runs.ended;
  assert.equal([a.side, b.side], ['base', 'head']);
  assert.ok(a.end <= b.start, JSON.stringify(r.runs.ended));
});

pyTest('in-place mode runs one side after the other whatever revert.jobs says, and says so', () => {
  const { repo, base, head } = timedProject('revert:\n  mode: in-place\n  jobs: 2\n', { 'src/bill.py': FIXED_PY });
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.match(r.stderr, /revert\.jobs: 2 does not apply in place/);
  const [a, b] = r.runs.ended;
  assert.equal([a.side, b.side], ['base', 'head']);
  assert.ok(a.end <= b.start, JSON.stringify(r.runs.ended));
});

fencedTest('jobs: 2, head fails a case no pending mark covers: the base run is stopped, no row edit offered', () => {
  // The base passes (fixed); head breaks it, fast; the base side would sleep 60 s.
  const { repo, base, head } = timedProject(
    'revert:\n  jobs: 2\n',
    { 'src/bill.py': BUGGY_PY },
    { 'src/bill.py': FIXED_PY, 'spec/properties/test_bill.py': timedProperty(0, 60) },
  );
  const r = check(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(r.out.reason, /^head fails "test_total_non_negative"; the base was not run/);
  assert.is(r.out.fix, null);
  assert.is(r.out.revert_run, null);
  assert.ok(r.ms < 40_000, `ended early (${r.ms} ms)`);
  assert.match(r.stderr, /stopping the run with the production diff reverted/);
  // The base run started and never reached its end: it was killed.
  assert.ok(r.runs.started.includes('base'), JSON.stringify(r.runs));
  assert.equal(
    r.runs.ended.map((x) => x.side),
    ['head'],
  );
});

/**
 * Two cases named for their invariants (pytest's node ids carry the ids): the
 * first fails on head at once, while on the base it holds a lock for
 * `baseSeconds`; the second, on head, waits for the base to take the lock and
 * logs `head got-lock` once it can take it, that is once the base's case let
 * go of it (its process was stopped, or the case ended). `pending` marks the
 * first invariant pending.
 */
function streamedProject(baseSeconds: number, pending: boolean) {
  const mark = pending
    ? `    pending: {since: ${new Date().toISOString().slice(0, 10)}, owner: ann, reason: the base fails it}\n`
    : '';
  const spec = `import fcntl, os, time
import pytest
from bill import total
${PY_SEND}
SIDE = os.environ.get("PATCHWARDEN_SIDE", "unset")
LOG = os.environ["JOBS_LOG"]


def note(what):
    send("%s %s" % (SIDE, what))


def base_locked():
    # The base side may not have written its first line yet.
    return os.path.exists(LOG) and "base locked" in open(LOG).read()


@pytest.mark.parametrize("k", [0], ids=["[invariant:${ID}]"])
def test_total(k):
    if SIDE == "base":
        lock = open(LOG, "r")  # a lock needs only a read, which the fence leaves open
        fcntl.flock(lock, fcntl.LOCK_EX)
        note("locked")
        time.sleep(${baseSeconds})
        note("slept")
        lock.close()
    else:
        # Head fails only once the base holds its lock, so a stop can only find the base asleep in it.
        end = time.time() + 40
        while time.time() < end and not base_locked():
            time.sleep(0.05)
    assert total([1, 2]) >= 3


@pytest.mark.parametrize("k", [0], ids=["[invariant:bill.later]"])
def test_later(k):
    if SIDE != "head":
        return
    end = time.time() + 40
    lock = open(LOG, "r")
    while time.time() < end:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            note("got-lock")
            return
        except OSError:
            time.sleep(0.05)
`;
  return project(
    {
      '.patchwarden.yml': config(PYTEST, 'revert:\n  jobs: 2\n'),
      'spec/invariants.yaml': `${registry(ID, 'bill.later')}`.replace(`${ID} holds\n`, `${ID} holds\n${mark}`),
      'spec/properties/test_bill.py': spec,
      'src/bill.py': FIXED_PY,
    },
    { 'src/bill.py': 'def total(xs):\n    return sum(xs) - 10\n' },
  );
}

fencedTest(
  'jobs: 2, pytest: head fails a case no pending mark covers as it runs: the base is stopped before head ends',
  () => {
    const { repo, base, head } = streamedProject(60, false);
    const r = check(repo, base, head);
    assert.is(r.code, 1, r.stderr);
    assert.is(r.out.status, 'fails_on_head');
    assert.match(
      r.out.reason,
      /^head fails "test_total\[\[invariant:bill\.total_non_negative\]\]"; the base was not run/,
    );
    assert.is(r.out.fix, null);
    assert.is(r.out.revert_run, null);
    assert.match(
      r.stderr,
      /head fails "spec\/properties\/test_bill\.py::test_total\[\[invariant:bill\.total_non_negative\]\]" as it runs/,
    );
    // Not stopped, the base would sleep 60 s in its lock.
    assert.ok(r.ms < 55_000, `ended early (${r.ms} ms)`);
    // Head's later case saw the base's process gone while head still ran; the base never woke.
    const log = r.log;
    assert.match(log, /^base locked$/m);
    assert.match(log, /^head got-lock$/m);
    assert.not.match(log, /^base slept$/m);
  },
);

fencedTest('jobs: 2, pytest: a failing case under a pending mark does not stop the base', () => {
  const { repo, base, head } = streamedProject(2, true);
  const r = check(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  // The base passes it, head fails it: a regression, refused inside a pending invariant too, judged on both runs.
  assert.is(r.out.status, 'regressed', r.stderr);
  assert.not.match(r.stderr, /as it runs|stopping the run/);
  const log = r.log;
  assert.match(log, /^base slept$/m);
  assert.match(log, /^head got-lock$/m);
});

pyTest('jobs: 1, the same regression: both sides run, the base first, and the verdict is regressed', () => {
  const { repo, base, head } = timedProject(
    '',
    { 'src/bill.py': BUGGY_PY },
    { 'src/bill.py': FIXED_PY, 'spec/properties/test_bill.py': timedProperty(0) },
  );
  const r = check(repo, base, head);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'regressed');
  assert.equal(
    r.runs.ended.map((x) => x.side),
    ['base', 'head'],
  );
});

const fenced = testUnless(FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides run in turn');

fenced('jobs: 2, SIGTERM while both sides run: both commands stop, both temporary trees go', async () => {
  const collector = startCollector();
  // Each side tells the collector it started, then sleeps.
  const cmd = `python3 -c 'import os, socket; socket.create_connection(("127.0.0.1", int(os.environ["COLLECTOR_PORT"]))).sendall(os.environ["PATCHWARDEN_SIDE"].encode() + b" started\\n")'; sleep 60; ${PYTEST}`;
  const { repo, base, head } = timedProject('revert:\n  jobs: 2\n', { 'src/bill.py': FIXED_PY });
  repo.commit({ '.patchwarden.yml': config(cmd, 'revert:\n  jobs: 2\n') }, 'slow command');
  try {
    const before = fingerprint(repo);
    const run = startPw(
      repo,
      ['revert-check', '--base', base, '--head', head, '--config', '.patchwarden.yml'],
      collector.env,
    );
    let ended = false;
    run.done.then(() => {
      ended = true;
    });
    const both = () => ['head', 'base'].every((side) => collector.read().includes(`${side} started\n`));
    while (!both() && !ended) await new Promise((r) => setTimeout(r, 20));
    assert.ok(both(), `both sides' commands started: ${collector.read()}`);
    process.kill(run.pid, 'SIGTERM');
    const r = await run.done;
    assert.is(r.code, 143, r.stderr);
    const trees = [...r.stderr.matchAll(/temporary worktree at (?:head|base): (\S+)/g)].map((m) => m[1]);
    assert.is(trees.length, 2, r.stderr);
    for (const t of trees) assert.not.ok(existsSync(t), `${t} is gone`);
    assert.equal(fingerprint(repo), before);
  } finally {
    collector.stop();
  }
});

test('revert.jobs accepts 1 or 2; anything else names the file and line', () => {
  assert.is(parseConfig('version: 1\n', 'x.yml').revert.jobs, 1);
  assert.is(parseConfig('version: 1\nrevert:\n  jobs: 2\n', 'x.yml').revert.jobs, 2);
  for (const bad of ['3', '0', '"2"', '1.5', 'many']) {
    try {
      parseConfig(`version: 1\nrevert:\n  mode: worktree\n  jobs: ${bad}\n`, '.patchwarden.yml');
      assert.unreachable(`jobs: ${bad} was accepted`);
    } catch (err) {
      assert.instance(err, CannotJudge);
      assert.match(
        (err as CannotJudge).describe(),
        /\.patchwarden\.yml:4.*revert\.jobs: must be a whole number from 1 to 2/,
      );
    }
  }
});

test('the starter config of a new init runs both sides at once on 2 cores or more', () => {
  const want = availableParallelism() > 1 ? 2 : 1;
  for (const [marker, text] of [
    ['pyproject.toml', '[project]\nname = "x"\n'],
    ['package.json', '{"scripts": {"test": "node --test"}, "devDependencies": {"x": "1"}}'],
  ]) {
    const dir = mkdtempSync(path.join(tmpdir(), 'pw-jobs-starter-'));
    try {
      writeFileSync(path.join(dir, marker), text);
      assert.is(parseConfig(starterConfig(dir), '.patchwarden.yml').revert.jobs, want, marker);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

fencedTest('a progress line names the first three of many cases and counts the rest; the verdict lists each', () => {
  const many = `import pytest
from bill import total


@pytest.mark.parametrize("k", range(5), ids=["[invariant:${ID}]-%d" % k for k in range(5)])
def test_total(k):
    assert total([0] * k) >= 0
`;
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(PYTEST, 'revert:\n  jobs: 2\n'),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': many,
      'src/bill.py': BUGGY_PY,
    },
    { 'src/bill.py': FIXED_PY },
  );
  const r = check(repo, base, head);
  assert.is(r.out.status, 'describes_patch', r.stderr);
  const line = r.stderr.split('\n').find((l) => l.includes("failed with head's code running beside it"));
  assert.ok(line, r.stderr);
  assert.match(
    line!,
    /base: "test_total\[[^"]*-0\]", "test_total\[[^"]*-1\]", "test_total\[[^"]*-2\]", and 2 more failed/,
  );
  assert.match(r.stderr, /base: ran alone (?:"[^"]+" failed, ){3}and 2 more/);
  const cases = r.out.states.find((s: { id: string }) => s.id === ID).cases;
  assert.is(cases.length, 5);
});

test.run();
