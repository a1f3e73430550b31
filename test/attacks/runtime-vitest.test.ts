// The Node runtime guard against production code that changes a vitest
// result from inside the worker: vitest keeps each test's flags and result,
// the worker state whose rpc sends them, and expect's assertion methods in
// plain objects of the worker's realm, which production code reaches through
// globalThis.__vitest_worker__ or @vitest/runner's getCurrentTest(). The
// static layer is off, the bug is left in; real vitest, real git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { buggy, check, refused, vitest, withVitest } from './runtime-site.js';

test.after.each(cleanup);

const STATE = 'globalThis.__vitest_worker__';

withVitest('vitest: the running test marked as expected to fail (a failure then passes): refused', () => {
  refused(
    vitest,
    buggy(vitest, '', `${STATE}.current.fails = true;`),
    /vitest test changed at src\/bill\.js:\d+: vitest test\.fails = …/,
  );
});

withVitest("vitest: the worker state's rpc wrapped to send failures as passes: refused", () => {
  const patch = buggy(
    vitest,
    `const st = ${STATE};
const real = st.rpc;
st.rpc = new Proxy(real, { get(t, k) {
  if (k !== 'onTaskUpdate') return t[k];
  return (packs, ev) => real.onTaskUpdate(packs.map(([id, r, m]) => [id, r?.state === 'fail' ? { ...r, state: 'pass', errors: undefined } : r, m]), ev);
} });`,
  );
  refused(vitest, patch, /vitest worker state changed at src\/bill\.js:\d+: vitest worker state\.rpc = …/);
});

withVitest('vitest: the worker state replaced with a copy of its own: refused', () => {
  const patch = buggy(
    vitest,
    `Object.defineProperty(globalThis, '__vitest_worker__', { value: { ...${STATE} }, configurable: true, writable: true });`,
  );
  refused(vitest, patch, /vitest worker state changed at src\/bill\.js:\d+: globalThis\.__vitest_worker__ = …/);
});

withVitest("vitest: a finish hook added through @vitest/runner's getCurrentTest(): refused", () => {
  const patch = buggy(
    vitest,
    "import { getCurrentTest } from '@vitest/runner';",
    `const cur = getCurrentTest();
  cur.onFinished = [...(cur.onFinished ?? []), () => { cur.result.state = 'pass'; cur.result.errors = undefined; }];`,
  );
  refused(vitest, patch, /vitest test changed at src\/bill\.js:\d+: vitest test\.onFinished = …/);
});

// A bound built-in queued for later leaves no frame of production code on
// the stack when it runs.
withVitest("vitest: the result's state set by a bound Reflect.set queued after the failure: refused", () => {
  const patch = buggy(
    vitest,
    '',
    `const r = ${STATE}.current.result;
  Promise.resolve().then(() => 0).then(() => 0).then(Reflect.set.bind(null, r, 'state', 'pass'));`,
  );
  refused(vitest, patch, /vitest test result\.state = … by a built-in function the runner was handed/);
});

withVitest("vitest: expect's toBe replaced through expect.extend: refused", () => {
  const patch = buggy(
    vitest,
    "import { expect } from 'vitest';\nexpect.extend({ toBe: () => ({ pass: true, message: () => '' }) });",
  );
  refused(vitest, patch, /vitest expect matchers changed at src\/bill\.js:\d+: vitest expect matchers\.toBe = …/);
});

// The test file fails to load: no case of the invariant runs on head.
withVitest("vitest: expect's toBe redefined on its prototype: cannot be, the run fails", () => {
  const patch = buggy(
    vitest,
    `import { expect } from 'vitest';
const A = Object.getPrototypeOf(expect(1));
Object.defineProperty(A, 'toBe', { value() { return this; }, configurable: true, writable: true });`,
  );
  const out = check(vitest, patch);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, /Cannot redefine property: toBe/);
});

// A change to what the runner's own code stands on is found as a result is
// sent; the worker could not send it, so the guard ends the run there and
// then rather than leave the pool waiting until properties.timeout.
withVitest("vitest: a Map iterator's next rewriting the results sent: refused, and the run ended at once", () => {
  const patch = buggy(
    vitest,
    `const MIP = Object.getPrototypeOf(new Map()[Symbol.iterator]());
const next = MIP.next;
MIP.next = function () {
  const r = next.call(this);
  const v = r.value;
  if (!r.done && Array.isArray(v?.[1]) && v[1][0]?.state === 'fail')
    return { done: false, value: [v[0], [{ ...v[1][0], state: 'pass', errors: undefined }, v[1][1]]] };
  return r;
};`,
  );
  const started = Date.now();
  const out = check(vitest, patch);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, /Map Iterator\.prototype\.next replaced/);
  assert.not.match(out.out.reason, /ended without the guard's final record/);
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
});

test.run();
