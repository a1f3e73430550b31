// The Node runtime guard against production code that changes a result in
// what the runner's own code stands on: the built-in prototypes every
// runner's code calls (Array.prototype.push), node:test's own reporter
// stream, and the guard's own view of who is calling (code compiled under
// another file's name, a stack trace read through hooks production code
// holds). The static layer is off, the bug is left in; real runners, real git.
import { test } from 'uvu';
import { cleanup } from '../helpers/repo.js';
import { buggy, jest, jestTwo, nodeTest, refused, withJest, withoutEffect } from './runtime-site.js';

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

test.run();
