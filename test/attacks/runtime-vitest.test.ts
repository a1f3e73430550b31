// The Node runtime guard against production code that changes a vitest
// result from inside the worker: vitest keeps each test's flags and result,
// the worker state whose rpc sends them, and expect's assertion methods in
// plain objects of the worker's realm, which production code reaches through
// globalThis.__vitest_worker__ or @vitest/runner's getCurrentTest(). The
// static layer is off, the bug is left in; real vitest, real git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { config, project, registry } from '../properties/projects.js';
import { buggy, check, failsToLoad, ID, refused, vitest, withVitest } from './runtime-site.js';

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
  refused(vitest, patch, /vitest test result\.state = … by \(no caller: a built-in function\), not the runner/);
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
  failsToLoad(vitest, patch, /Cannot redefine property: toBe/);
});

withVitest("vitest: a Map iterator's next rewriting the results the worker sends: refused", () => {
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
  refused(vitest, patch, /Map Iterator\.prototype\.next replaced at src\/bill\.js:\d+/);
});

// A change to what the runner's own code stands on (RegExp.prototype, left
// unlocked for V8's fast paths and watched) is found as a result is sent;
// the worker could not send it, so the guard ends the run there and then
// rather than leave the pool waiting until properties.timeout.
withVitest('vitest: RegExp.prototype.test replaced: refused as a result is sent, and the run ended at once', () => {
  const patch = buggy(
    vitest,
    'const test = RegExp.prototype.test;\nRegExp.prototype.test = function (s) { return test.call(this, s); };',
  );
  const started = Date.now();
  const out = check(vitest, patch);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, /RegExp\.prototype\.test changed at \(found at a result\)/);
  assert.not.match(out.out.reason, /ended without the guard's final record/);
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
});

// Found by a fresh attacker against the layer above, each closed.

// vitest reads optional fields of plain objects and of its runner, where a
// name on Object.prototype would answer (the runner's runTask would replace
// every test's body): Object.prototype takes no new names once production
// code loads.
withVitest('vitest: a runTask on Object.prototype that the runner would pick up: cannot be added', () => {
  const patch = buggy(
    vitest,
    "Object.defineProperty(Object.prototype, 'runTask', { value: async function runTask() {}, configurable: true, writable: true });",
  );
  failsToLoad(vitest, patch, /Cannot define property runTask, object is not extensible/);
});

// The test is made with `fails` by vitest itself (the chain's context),
// so nothing is set on it afterwards: a property marked as expected to fail
// is refused however it came to be.
withVitest("vitest: the test chain's context set to fails before the spec makes its test: refused", () => {
  const patch = buggy(vitest, "import { test } from 'vitest';\ntest.setContext('fails', true);");
  refused(vitest, patch, /runtime guard: vitest test\.fails .*is marked as expected to fail/);
});

withVitest("vitest: the test's function replaced through @vitest/runner's setFn after collection: refused", () => {
  const patch = buggy(
    vitest,
    `import { setFn } from '@vitest/runner';
const st = ${STATE};
const poll = () => {
  const t = st.current?.tasks?.[0];
  if (!t || !t.id) return setImmediate(poll);
  setFn(t, () => {});
};
setImmediate(poll);`,
  );
  refused(vitest, patch, /vitest test function replaced at src\/bill\.js:\d+/);
});

withVitest("vitest: the test's id moved onto its file's, so that its result never arrives: refused", () => {
  const patch = buggy(
    vitest,
    `const st = ${STATE};
let file;
const poll = () => {
  file ??= st.current && 'filepath' in st.current ? st.current : undefined;
  const t = file?.tasks?.[0];
  if (!t || !t.id) return setImmediate(poll);
  t.id = file.id;
};
setImmediate(poll);`,
  );
  refused(vitest, patch, /vitest test changed at src\/bill\.js:\d+: vitest test\.id = …/);
});

// Sent through the worker's own rpc after the failure: the last update to
// reach the main process wins, but the guard saw the test fail.
withVitest("vitest: a pass sent through the worker state's own rpc after the failure: refused", () => {
  const patch = buggy(
    vitest,
    `const st = ${STATE};
let armed = false;`,
    `if (!armed) {
    armed = true;
    const test = st.current;
    const tick = () => {
      if (st.current !== undefined) return setImmediate(tick);
      st.rpc.onTaskUpdate([[test.id, { state: 'pass', duration: 1, startTime: Date.now() }, {}]], []);
    };
    setImmediate(tick);
  }`,
  );
  refused(vitest, patch, /results changed on their way to the report: .*"total is never negative/);
});

// A library function that assigns what it is handed, queued with its
// arguments bound: no frame of production code is on the stack.
withVitest("vitest: the test's fails set by chai's util.transferFlags queued as a promise reaction: refused", () => {
  const patch = buggy(
    vitest,
    `import { chai } from 'vitest';\nconst st = ${STATE};`,
    'Promise.resolve().then(chai.util.transferFlags.bind(null, { __flags: { fails: true } }, { __flags: st.current }));',
  );
  refused(vitest, patch, /vitest test\.fails = … by .*node_modules\/chai\/.*, not the runner/);
});

// A second round, each closed too.

withVitest("vitest: a runTask added to vitest's runner class, which would replace every test's body: cannot be", () => {
  const patch = buggy(
    vitest,
    "import { VitestTestRunner } from 'vitest/runners';\nVitestTestRunner.prototype.runTask = async function runTask() {};",
  );
  failsToLoad(vitest, patch, /Cannot add property runTask, object is not extensible/);
});

withVitest("vitest: the file collector's test swapped for one that hands vitest an empty function: refused", () => {
  const patch = buggy(
    vitest,
    `import { getCurrentSuite } from '@vitest/runner';
const chain = getCurrentSuite().test;
const make = chain.fn;
chain.fn = function (name, optionsOrFn, optionsOrTest) {
  return make.call(this, name, () => {}, typeof optionsOrFn === 'object' ? optionsOrFn : undefined);
};`,
  );
  refused(vitest, patch, /vitest test made through production code at src\/bill\.js:\d+/);
});

// Every toEqual consults the equality testers expect keeps.
withVitest('vitest: an equality tester that finds everything equal, added from production code: refused', () => {
  const patch = buggy(vitest, "import { expect } from 'vitest';\nexpect.addEqualityTesters([() => true]);");
  const r = { ...vitest, property: vitest.property.replace('toBe(true)', 'toEqual(true)') };
  refused(r, patch, /vitest expect equality testers changed at src\/bill\.js:\d+/);
});

// A third round: the global names of the built-ins, which chai looks up at
// each assertion (`new Proxy` around it, `Reflect.get` through it), pointed
// at production code's own copies that hand the matchers an `assert`
// ignoring a failure.
withVitest("vitest: the global Proxy or Reflect pointed at production code's own: cannot be", () => {
  const proxy = `const R = Reflect;
const RealProxy = Proxy;
globalThis.Proxy = new RealProxy(RealProxy, {
  construct(T, [target, handler]) {
    if (target && typeof target === 'object' && '__flags' in target && typeof handler?.get === 'function') {
      const get = handler.get;
      handler = { ...handler, get(t, k, r) {
        if (k === 'assert') return function (expr, ...rest) { if (expr) return R.apply(t.assert, this, [expr, ...rest]); };
        return R.apply(get, this, [t, k, r]);
      } };
    }
    return new RealProxy(target, handler);
  },
});`;
  const reflect = `const R = Reflect;
const fake = Object.create(null);
for (const k of Object.getOwnPropertyNames(R)) fake[k] = R[k];
fake.get = function get(t, k, r) {
  const v = R.get(t, k, ...(arguments.length > 2 ? [r] : []));
  if (k === 'assert' && t && typeof t === 'object' && '__flags' in t)
    return function (expr, ...rest) { if (expr) return R.apply(v, this, [expr, ...rest]); };
  return v;
};
globalThis.Reflect = fake;`;
  for (const [name, prelude] of [
    ['Proxy', proxy],
    ['Reflect', reflect],
  ]) {
    const out = check(vitest, buggy(vitest, prelude));
    assert.is(out.out.status, 'fails_on_head', out.out.reason);
    assert.match(out.out.reason, new RegExp(`Cannot assign to read only property '${name}'`));
  }
});

// A seventh round: a getter in the run's configuration threw out of vitest's
// failure processing before the test was settled, with the test taken out
// of its file's tasks and `passWithNoTests` set, so the file passed.
withVitest("vitest: the run's config given a getter that escapes vitest's failure processing: refused", () => {
  const patch = buggy(
    vitest,
    `const cfg = ${STATE}.config;
cfg.diffOptions = { get expand() { throw new Error('escaped'); } };
cfg.passWithNoTests = true;`,
  );
  refused(vitest, patch, /vitest config changed at src\/bill\.js:\d+: vitest config\.diffOptions = …/);
});

// What honest projects do with vitest still works under the guard: a setup
// file that replaces a matcher and overwrites one of chai's properties, and
// a property that counts its assertions, loads production code inside the
// test and adds an equality tester after it.
withVitest('vitest: an honest fix with a setup file extending expect and chai, and a dynamic import: passes', () => {
  const property = `import { test, expect } from 'vitest';

test('total is never negative [invariant:${ID}]', async () => {
  expect.assertions(2);
  const { total } = await import('../../src/bill.js');
  expect.addEqualityTesters([() => undefined]);
  expect(total([1, 2]) >= 0).toEqual(true);
  expect(total([])).toBe(0);
});
`;
  const setup = `import { expect, chai } from 'vitest';
expect.extend({ toBe: (received, expected) => ({ pass: Object.is(received, expected), message: () => \`expected \${received} to be \${expected}\` }) });
chai.util.overwriteProperty(chai.Assertion.prototype, 'ok', (_super) => function () { _super.call(this); });
`;
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(vitest.command, 'tamper:\n  mode: off\n'),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.js': property,
      'spec/setup.js': setup,
      'vitest.config.js': "export default { test: { setupFiles: ['./spec/setup.js'] } };\n",
      'src/bill.js': buggy(vitest, ''),
      'package.json': vitest.package,
    },
    { 'src/bill.js': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n' },
  );
  const out = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(out.out.status, 'describes_patch', out.out.reason);
  assert.is(out.code, 0, out.stderr);
});

test.run();
