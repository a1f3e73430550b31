// Under properties.sealed: kernel the head run's result is cached too, and a
// check run again runs fresh, on both sides, only the cases whose state
// rests on a cached outcome. Which cases ran on which side is read from the
// log each case appends to ($SIDES_LOG, cache-site.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeEntry } from '../../src/properties/cache.js';
import { startCollector } from '../helpers/collector.js';
import { FENCE } from '../helpers/fence.js';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import {
  CLAMPED_AGAIN_JS,
  CLAMPED_JS,
  cacheDir,
  check,
  dropTemps,
  entries,
  flakyTwice,
  ID,
  kernelMissing,
  nodeProject,
  pyProject,
  SUM_JS,
  tempDir,
} from './cache-site.js';
import { BUGGY_PY, FIXED_PY } from './projects.js';

const PY_KERNEL = '  sealed: kernel\n';
const NODE_KERNEL = '  sealed: kernel\ntamper:\n  mode: off\n';
const REFACTORED_PY = 'def total(xs):\n    return sum(list(xs))\n';

test.after.each(() => {
  cleanup();
  dropTemps();
});

const pyKernel = testUnless(pytestMissing ?? kernelMissing);
const nodeKernel = testUnless(kernelMissing);
/** The sides at once need the fence (Landlock ABI 2). */
const nodeFenced = testUnless(
  kernelMissing ?? (FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides run in turn'),
);
const NODE_JOBS = `${NODE_KERNEL}revert:\n  jobs: 2\n`;

/** A check whose cases send their lines to a collector, in the order they ran: fenced, no side may write the log. */
function collected(repo: TempRepo, base: string, head: string) {
  const collector = startCollector();
  try {
    const r = check(repo, base, head, collector.env);
    return { ...r, lines: collector.read().trim().split('\n').filter(Boolean) };
  } finally {
    collector.stop();
  }
}

/** The key a check says it cached `side` under, whole. */
function keyOf(repo: TempRepo, stderr: string, side: 'head' | 'base'): string {
  const short = new RegExp(`${side}: cached for the next check \\(key ([0-9a-f]{12})\\)`).exec(stderr)?.[1];
  assert.ok(short, `${side} was cached: ${stderr}`);
  return entries(repo)
    .find((n) => n.startsWith(short!))!
    .replace(/\.json$/, '');
}

pyKernel('pytest, kernel-sealed: the honest fix checked again runs only the fixed case, on both sides', () => {
  const { repo, base, head } = pyProject(BUGGY_PY, FIXED_PY, PY_KERNEL);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  assert.is(first.out.head_run.cached, null);
  assert.equal(first.lines.length, 4, 'two cases on each side');
  const keys = [keyOf(repo, first.stderr, 'head'), keyOf(repo, first.stderr, 'base')];
  const second = check(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.equal(
    second.lines.sort(),
    ['base test_total_non_negative', 'head test_total_non_negative'],
    'the one fixed case ran fresh on each side, and no other',
  );
  assert.equal(second.out.states, first.out.states, 'the states of the uncached check');
  assert.equal(second.out.failing_on_revert, [ID]);
  assert.equal([second.out.head_run.cached, second.out.revert_run.cached], keys);
  assert.is(second.out.sealed, 'kernel');
  assert.match(
    second.stderr,
    /cached on both sides \(head key [0-9a-f]{12}, base key [0-9a-f]{12}\); "test_total_non_negative" hinge on a cached outcome/,
  );
});

pyKernel('pytest, kernel-sealed: a flaky base failure cached on both sides does not make the case fixed', () => {
  const second = flakyTwice(pyProject(FIXED_PY, REFACTORED_PY, PY_KERNEL));
  assert.equal(second.out.failing_on_revert, []);
  assert.equal(second.lines.sort(), ['base test_total_non_negative', 'head test_total_non_negative']);
  assert.type(second.out.head_run.cached, 'string');
});

pyKernel('pytest: a head entry from a run that was not kernel-sealed is never written, nor trusted', () => {
  const { repo, base, head } = pyProject(BUGGY_PY, FIXED_PY, PY_KERNEL);
  // Without Landlock kernel runs as process: no head entry.
  const fallback = check(repo, base, head, { PATCHWARDEN_LANDLOCK: 'off' });
  assert.is(fallback.out.status, 'describes_patch', fallback.stderr);
  assert.not.match(fallback.stderr, /head: (not )?cached/);
  assert.is(entries(repo).length, 1, 'the base entry alone');
  const first = check(repo, base, head);
  const key = keyOf(repo, first.stderr, 'head');
  // The entry as patchwarden would write it from a head run sealed by process only.
  const entry = JSON.parse(readFileSync(path.join(cacheDir(repo), `${key}.json`), 'utf8')).run;
  writeEntry(cacheDir(repo), key, { ...entry, sealed: 'process', problem: null });
  const second = check(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.match(second.stderr, /head: the cache entry [0-9a-f]{12} is not trusted/);
  assert.is(second.out.head_run.cached, null);
  assert.equal(
    second.lines.filter((l) => l.startsWith('head')).sort(),
    ['head test_total_non_negative', 'head test_total_of_one'],
    'head ran whole',
  );
});

nodeKernel('node --test, kernel-sealed: the honest fix checked again runs only the fixed case, on both sides', () => {
  const { repo, base, head } = nodeProject(SUM_JS, CLAMPED_JS, NODE_KERNEL);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  assert.is(first.lines.length, 6, 'three cases on each side');
  const second = check(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.equal(second.lines.sort(), ['base never negative', 'head never negative']);
  assert.equal(second.out.states, first.out.states);
  assert.type(second.out.head_run.cached, 'string');
  assert.type(second.out.revert_run.cached, 'string');
  assert.match(
    second.stderr,
    /head: ran fresh "never negative \[invariant:[^"]+\]" passed; base: ran fresh "never negative \[invariant:[^"]+\]" failed/,
  );
});

nodeFenced('node --test, revert.jobs: 2, both sides cached: the hinge case runs once on each side, head first', () => {
  const { repo, base, head } = nodeProject(SUM_JS, CLAMPED_JS, NODE_JOBS);
  const first = collected(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  assert.match(first.stderr, /at once \(revert\.jobs: 2\)/);
  const second = collected(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  // The log in the order the cases ran: the base's part after head's, and no second run of it alone.
  assert.equal(second.lines, ['head never negative', 'base never negative']);
  assert.not.match(second.stderr, /run again on the base alone/);
  assert.equal(second.out.states, first.out.states);
  assert.type(second.out.head_run.cached, 'string');
  assert.type(second.out.revert_run.cached, 'string');
});

nodeFenced('node --test, revert.jobs: 2, the base cached: its failing case runs once, after head', () => {
  const { repo, base, head } = nodeProject(SUM_JS, CLAMPED_JS, NODE_JOBS);
  const first = collected(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  // Without the head entry head runs whole; the base is cached (no run of it starts beside the key under kernel).
  rmSync(path.join(cacheDir(repo), `${keyOf(repo, first.stderr, 'head')}.json`));
  const second = collected(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.match(second.stderr, /head: not cached/);
  assert.equal(second.lines.slice(0, 3).sort(), ['head never negative', 'head of two', 'head total of one']);
  assert.equal(second.lines.slice(3), ['base never negative'], 'the case the cache fails ran once, after head');
  assert.match(second.stderr, /so those cases run fresh on the base, alone once head's run has ended/);
  assert.not.match(second.stderr, /run again on the base alone/);
  assert.equal(second.out.failing_on_revert, [ID]);
  assert.type(second.out.revert_run.cached, 'string');
});

nodeFenced(
  'node --test, revert.jobs: 2, the base cached: a head failure no mark covers ends the check, no base run after it',
  () => {
    const { repo, base, head } = nodeProject(CLAMPED_JS, CLAMPED_AGAIN_JS, NODE_JOBS);
    const first = collected(repo, base, head);
    assert.match(first.stderr, /base: cached for the next check/, first.stderr);
    // A later commit that breaks the invariant: its reverted tree is the base's, which is cached.
    repo.git(['reset', '-q', '--hard']);
    repo.git(['clean', '-fdq']);
    const broken = repo.commit({ 'src/bill.mjs': SUM_JS }, 'break');
    const second = collected(repo, base, broken);
    assert.match(second.stderr, /base: cached \(key [0-9a-f]{12}/);
    assert.is(second.out.status, 'fails_on_head', second.stderr);
    assert.match(second.out.reason, /^head fails "never negative \[invariant:[^"]+\]"; the base was not run/);
    assert.equal(second.lines.sort(), ['head never negative', 'head of two', 'head total of one']);
  },
);

nodeKernel('node --test, kernel-sealed: a regression checked again is still regressed, from fresh runs of it', () => {
  const { repo, base, head } = nodeProject(CLAMPED_JS, SUM_JS, NODE_KERNEL);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'regressed', first.stderr);
  const second = check(repo, base, head);
  assert.is(second.out.status, 'regressed', second.stderr);
  assert.equal(second.lines.sort(), ['base never negative', 'head never negative']);
  assert.equal(second.out.states, first.out.states);
});

nodeKernel('node --test, kernel-sealed: a flaky base failure cached on both sides does not make the case fixed', () => {
  const second = flakyTwice(nodeProject(CLAMPED_JS, CLAMPED_AGAIN_JS, NODE_KERNEL));
  assert.equal(second.out.failing_on_revert, []);
  assert.equal(second.lines.sort(), ['base never negative', 'head never negative']);
});

nodeKernel('node --test, kernel-sealed: the gate neither looks up nor keeps a head entry', () => {
  const { repo, base, head } = nodeProject(SUM_JS, CLAMPED_JS, NODE_KERNEL);
  repo.git(['checkout', '-q', head]);
  const r = repo.pw(['gate', '--base', base], { env: { SIDES_LOG: path.join(tempDir(), 'sides.log') } });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /base: not cached \(key/);
  assert.not.match(r.stderr, /head: (not )?cached/);
  assert.is(entries(repo).length, 1, 'the base entry alone');
});

test('node --test, sealed: off: the head side is never cached', () => {
  const { repo, base, head } = nodeProject(SUM_JS, CLAMPED_JS);
  for (let i = 0; i < 2; i++) {
    const r = check(repo, base, head);
    assert.is(r.out.status, 'describes_patch', r.stderr);
    assert.is(r.lines.filter((l) => l.startsWith('head')).length, 3, 'head ran whole');
    assert.not.match(r.stderr, /head: (not )?cached/);
  }
  assert.is(entries(repo).length, 1);
});

test.run();
