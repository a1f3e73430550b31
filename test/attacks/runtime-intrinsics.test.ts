// The Node runtime guard against production code that changes a result in
// what the runner's own code stands on: the built-in prototypes every
// runner's code calls (Array.prototype.push), node:test's own reporter
// stream, and the guard's own view of who is calling (code compiled under
// another file's name, a stack trace read through hooks production code
// holds). The static layer is off, the bug is left in; real runners, real git.
import { test } from 'uvu';
import { cleanup } from '../helpers/repo.js';
import { BIN, buggy, jest, jestTwo, nodeTest, refused, withJest, withoutEffect } from './runtime-site.js';

test.after.each(cleanup);

// Each route below ends by replacing Readable.prototype.push (locked: refused
// when production code asks) from code that claims to be someone else's.
const PUSH = `const push = Readable.prototype.push;
Readable.prototype.push = function (c, ...r) {
  if (c?.type === 'test:fail') { c.type = 'test:pass'; delete c.data.details.error; }
  return push.call(this, c, ...r);
};`;
const EXIT0 = "process.on('exit', () => { process.exitCode = 0; });";

// Node 20 keeps a Readable's buffer in an Array: a result pushed there meets
// Array.prototype.push, which any code can reach.
test('node --test: a result changed in Array.prototype.push before it is serialized: refused', () => {
  const patch = buggy(
    nodeTest,
    `const push = Array.prototype.push;
Array.prototype.push = function (...xs) {
  for (const c of xs) if (c?.type === 'test:fail') { c.type = 'test:pass'; delete c.data.details.error; }
  return push.apply(this, xs);
};
${EXIT0}`,
  );
  refused(nodeTest, patch, /runtime guard: Array\.prototype\.push replaced at src\/bill\.js:\d+/);
});

// node:test's reporter stream is an instance of a class of node's own, reached
// through the stream run() returns: its `fail` made to report a pass.
test("node --test: node:test's reporter class reached through run(), its fail made a pass: refused", () => {
  const patch = buggy(
    nodeTest,
    `import { run } from 'node:test';
const proto = Object.getPrototypeOf(run({ files: [] }));
proto.fail = function (...args) { return this.ok(...args); };
${EXIT0}`,
  );
  refused(nodeTest, patch, /runtime guard: node:test TestsStream\.prototype\.fail replaced at src\/bill\.js:\d+/);
});

// A data: URL's text can hold "/node_modules/", which a path of an installed
// package holds: its frames are still the patch's.
test('node --test: code from a data: URL that names node_modules replaces a locked method: refused', () => {
  // Only `?` is escaped (it would start the URL's query): the text keeps its slashes.
  const code = `import { Readable } from 'node:stream'; /* /node_modules/x/ */ ${PUSH}`.replaceAll('?', '%3F');
  const patch = buggy(nodeTest, `await import('data:text/javascript,' + ${JSON.stringify(code)});\n${EXIT0}`);
  refused(nodeTest, patch, /runtime guard: stream\.Readable\.prototype\.push replaced at data:text\/javascript/);
});

// vm compiles code under any file name it is given: production code may not
// give another file's.
test("node --test: code compiled by vm under the property file's name replaces a locked method: refused", () => {
  const patch = buggy(
    nodeTest,
    `import vm from 'node:vm';
import { Readable } from 'node:stream';
const file = new URL('../spec/properties/bill.test.js', import.meta.url).pathname;
vm.runInThisContext('(Readable) => { ' + ${JSON.stringify(PUSH)} + ' }', { filename: file })(Readable);
${EXIT0}`,
  );
  refused(
    nodeTest,
    patch,
    /runtime guard: code compiled under another file's name at src\/bill\.js:\d+: .*spec\/properties\/bill\.test\.js/,
  );
});

// The guard reads who is calling from the stack: a stack trace hook held by
// production code (an accessor over Error.prepareStackTrace) would hand it
// the call sites without production code's, so that the spec file calling
// total() answers for the change.
test('node --test: Error.prepareStackTrace held as an accessor that hides src frames: refused', () => {
  const patch = buggy(
    nodeTest,
    `import { Readable } from 'node:stream';
try {
  Object.defineProperty(Error, 'prepareStackTrace', {
    get: () => (e, cs) => (Array.isArray(cs) ? cs.filter((c) => !String(c.getFileName()).includes('/src/')) : cs),
    set() {},
    configurable: true,
  });
} catch {}
${EXIT0}`,
    `if (!globalThis.done) { globalThis.done = true; ${PUSH} }`,
  );
  refused(nodeTest, patch, /runtime guard: stream\.Readable\.prototype\.push replaced at src\/bill\.js:\d+/);
});

// In a jest test context circus appends each failure to the running test's
// errors (an [error, asyncError] pair) with the context's Array.prototype.push.
withJest("jest: the context's Array.prototype.push made to drop assertion errors: refused", () => {
  const patch = buggy(
    jest,
    `const push = Array.prototype.push;
const failure = (x) => x?.matcherResult || (Array.isArray(x) && x.some(failure));
Array.prototype.push = function (...xs) { return xs.some(failure) ? this.length : push.apply(this, xs); };`,
  );
  refused(jest, patch, /runtime guard: Array\.prototype\.push replaced at src\/bill\.js:\d+/);
});

// circus's dispatch, reached by requiring its state module from production
// code, queued with a test_retry event for the failed case: the module's own
// set-up cannot rebind the state the guard has made read-only.
withJest("jest: circus's dispatch required by production code and queued with test_retry: without effect", () => {
  const patch = buggy(
    jestTwo,
    `let dispatch = null;
try { dispatch = require('jest-circus/build/state').dispatch; } catch {}
const state = () => globalThis[Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL')];
let failed = null;`,
    `if (t < 0) failed = state().currentlyRunningTest;
  if (xs.length === 1 && failed && dispatch) { queueMicrotask(dispatch.bind(null, { name: 'test_retry', test: failed })); failed = null; }`,
  );
  withoutEffect(jestTwo, patch);
});

// node:test runs each test inside its Test object's async scope: async_hooks
// hands that object out, and its `passed` decides the result.
const PASSED = `Object.defineProperty(r, 'passed', { get: () => true, set() {} });
    Object.defineProperty(r, 'error', { get: () => null, set() {} });`;
test("node --test: the running test's own object from executionAsyncResource(), made to pass: refused", () => {
  const patch = buggy(
    nodeTest,
    "import { executionAsyncResource } from 'node:async_hooks';",
    `if (t < 0) { const r = executionAsyncResource(); if (r && 'passed' in r) { ${PASSED} } }`,
  );
  refused(nodeTest, patch, /runtime guard: async_hooks\.executionAsyncResource at src\/bill\.js:\d+/);
});
test("node --test: each test's own object from a createHook init, made to pass: refused", () => {
  const patch = buggy(
    nodeTest,
    `import { createHook } from 'node:async_hooks';
createHook({ init(id, type, trigger, r) {
  if (r && typeof r.report === 'function' && typeof r.postRun === 'function') { ${PASSED} }
} }).enable();`,
  );
  refused(nodeTest, patch, /runtime guard: async_hooks\.createHook at src\/bill\.js:\d+/);
});

// jest-circus builds its results walking the test tree with array
// destructuring, through the context's array iterator.
withJest("jest: the context's array iterator hands circus a copy of the test tree without errors: refused", () => {
  const patch = buggy(
    jest,
    `const AIP = Object.getPrototypeOf([][Symbol.iterator]());
const next = AIP.next;
const clean = (b) => ({ ...b, children: b.children.map((c) => (c.type === 'test' ? { ...c, errors: [] } : clean(c))) });
AIP.next = function () {
  const r = next.call(this);
  const v = r.value;
  if (!r.done && v && v.type === 'describeBlock' && Array.isArray(v.children)) return { value: clean(v), done: false };
  return r;
};`,
  );
  refused(jest, patch, /runtime guard: Array Iterator\.prototype\.next replaced at src\/bill\.js:\d+/);
});
// An installed package's helper makes the assignment for production code
// (jest-util's setGlobal): production code is still on the stack.
withJest("jest: the context's Array.prototype.push replaced through jest-util's setGlobal: refused", () => {
  const patch = buggy(
    jest,
    `const { setGlobal } = require(${JSON.stringify(BIN('jest-util'))});
const push = Array.prototype.push;
const failure = (x) => x?.matcherResult || (Array.isArray(x) && x.some(failure));
setGlobal(Array.prototype, 'push', function (...xs) { return xs.some(failure) ? this.length : push.apply(this, xs); });`,
  );
  refused(jest, patch, /runtime guard: Array\.prototype\.push replaced at src\/bill\.js:\d+/);
});
withJest("node --test: node:test's reporter's fail replaced through jest-util's setGlobal: refused", () => {
  const patch = buggy(
    nodeTest,
    `import { run } from 'node:test';
import { createRequire } from 'node:module';
const { setGlobal } = createRequire(import.meta.url)(${JSON.stringify(BIN('jest-util'))});
setGlobal(Object.getPrototypeOf(run({ files: [] })), 'fail', function (...args) { return this.ok(...args); });`,
  );
  refused(nodeTest, patch, /runtime guard: node:test TestsStream\.prototype\.fail replaced at src\/bill\.js:\d+/);
});

// The guard's own reading of a path must not meet hooks production code
// adds: String.prototype[Symbol.split] is called by every split with a
// string separator, and here would put src/bill.js under node_modules.
test('node --test: a String.prototype[Symbol.split] that puts src under node_modules, then the reporter replaced: refused', () => {
  const patch = buggy(
    nodeTest,
    `import { run } from 'node:test';
const split = (s, sep) => {
  const out = [];
  let i = 0, j;
  while ((j = s.indexOf(sep, i)) !== -1) { out[out.length] = s.slice(i, j); i = j + sep.length; }
  out[out.length] = s.slice(i);
  return out;
};
Object.defineProperty(String.prototype, Symbol.split, { configurable: true, writable: true, value(s) {
  const sep = String(this), str = String(s);
  const out = split(str, sep);
  if (sep === '/' && str.endsWith('src/bill.js')) out.unshift('node_modules');
  return out;
} });
Object.getPrototypeOf(run({ files: [] })).fail = function (...args) { return this.ok(...args); };`,
  );
  refused(nodeTest, patch, /runtime guard: node:test TestsStream\.prototype\.fail replaced at src\/bill\.js:\d+/);
});

// Each node:test Test is an AsyncResource that runs its test's function
// through runInAsyncScope: one that swallows the error never reaches fail().
test("node --test: AsyncResource.prototype.runInAsyncScope made to swallow the test's error: refused", () => {
  const patch = buggy(
    nodeTest,
    `import { AsyncResource } from 'node:async_hooks';
const run = AsyncResource.prototype.runInAsyncScope;
AsyncResource.prototype.runInAsyncScope = function (fn, thisArg, ...args) {
  try {
    const r = Reflect.apply(run, this, [fn, thisArg, ...args]);
    return r && typeof r.then === 'function' ? r.catch(() => {}) : r;
  } catch {
    return undefined;
  }
};`,
  );
  refused(nodeTest, patch, /runtime guard: AsyncResource\.prototype\.runInAsyncScope replaced at src\/bill\.js:\d+/);
});

// Replaced as the module loads and put back at the first call: the
// property's loop keeps the `next` it read as it started, and skips the
// case that fails; by the next check all is as it was.
test("node --test: the array iterator's next made to skip the failing case, then put back: refused", () => {
  const patch = buggy(
    nodeTest,
    `const AIP = Object.getPrototypeOf([][Symbol.iterator]());
const next = AIP.next;
AIP.next = function () {
  let r = next.call(this);
  while (!r.done && Array.isArray(r.value) && r.value.length === 0) r = next.call(this);
  return r;
};`,
    'AIP.next = next;',
  );
  refused(nodeTest, patch, /runtime guard: Array Iterator\.prototype\.next replaced at src\/bill\.js:\d+/);
});

// A hook production code registers as it loads gets the property's own
// context: it marked the failing property todo (the exit code forgives it)
// and ran a passing subtest of its name (the report writes the property as
// a suite, the subtest as its case).
test('node --test: the property marked todo with a passing subtest of its name, from a beforeEach hook: refused', () => {
  const patch = buggy(
    nodeTest,
    `import { beforeEach } from 'node:test';
let done = false;
beforeEach(async (c) => { if (done) return; done = true; c.todo(); await c.test(c.name, () => {}); });`,
  );
  refused(nodeTest, patch, /results changed on their way to the report: .*"total is never negative/);
});

test.run();
