// The Node runtime guard against production code that leaves the test and its
// assertion alone and changes the result on its way to the report: the bytes
// a test file's process sends its runner (vitest's worker IPC, node --test's
// per-file child over its stdout), and jest-circus's state in the test
// context. The static layer is off (`tamper.mode: off`), so only the guard
// stands between each src-only patch (the bug left in) and a green revert
// check. Real runners from the project's node_modules (and node's own), real
// git.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import {
  buggy,
  cases,
  check,
  ID,
  jest,
  jestTwo,
  nodeTest,
  refused,
  vitest,
  withJest,
  withoutEffect,
  withVitest,
} from './runtime-site.js';

test.after.each(cleanup);

// Turns every failing result in a value into a pass, whatever its runner calls it.
const PASS = `const pass = (o, seen = new Set()) => {
  if (!o || typeof o !== 'object' || seen.has(o)) return;
  seen.add(o);
  if (o.state === 'fail') { o.state = 'pass'; delete o.errors; }
  if (o.type === 'test:fail') { o.type = 'test:pass'; if (o.data?.details) delete o.data.details.error; }
  for (const k of Object.keys(o)) pass(o[k], seen);
};`;
// The serializer every v8-serialized message goes through, node's IPC and node --test's reporter alike.
const WRITE_VALUE = `import v8 from 'node:v8';
${PASS}
const writeValue = v8.Serializer.prototype.writeValue;
try {
  v8.Serializer.prototype.writeValue = function (v) { pass(v); return writeValue.call(this, v); };
} catch {}
process.on('exit', () => { process.exitCode = 0; });`;

withVitest("vitest: a worker's results rewritten in v8.Serializer.prototype.writeValue: without effect", () => {
  withoutEffect(vitest, buggy(vitest, WRITE_VALUE));
});

test("node --test: a test file's results rewritten in v8.Serializer.prototype.writeValue, exit code 0: without effect", () => {
  withoutEffect(nodeTest, buggy(nodeTest, WRITE_VALUE));
});

// Below the serializer, a vitest worker's messages cross Node's IPC as JSON:
// JSON.stringify calls Buffer.prototype.toJSON on each, and Node writes the
// text through the channel's pipe handle, which hangs on process under a
// symbol. The guard hands Node a plain copy of the message, and freezes the
// handle's prototypes.
const RESULT = `import v8 from 'node:v8';
${PASS}
const rewrite = (buf) => { const data = v8.deserialize(buf); pass(data); return v8.serialize(data); };`;
withVitest("vitest: a worker's results rewritten in Buffer.prototype.toJSON: without effect", () => {
  const patch = buggy(
    vitest,
    `${RESULT}
const toJSON = Buffer.prototype.toJSON;
Buffer.prototype.toJSON = function () {
  try { return toJSON.call(rewrite(this)); } catch { return toJSON.call(this); }
};`,
  );
  withoutEffect(vitest, patch);
});
withVitest("vitest: a worker's results rewritten in the IPC pipe handle's writeUtf8String: without effect", () => {
  const patch = buggy(
    vitest,
    `${RESULT}
const key = Object.getOwnPropertySymbols(process).find((s) => s.description === 'kChannelHandle');
const proto = key && Object.getPrototypeOf(process[key]);
const write = proto?.writeUtf8String;
try {
  proto.writeUtf8String = function (req, text, ...rest) {
    try {
      const msg = JSON.parse(text);
      if (msg?.type === 'Buffer') text = JSON.stringify(rewrite(Buffer.from(msg.data))) + '\\n';
    } catch {}
    return write.call(this, req, text, ...rest);
  };
} catch {}`,
  );
  withoutEffect(vitest, patch);
});

// jest-circus calls every handler on this list with each event and the test it concerns.
withJest(
  "jest: an event handler pushed onto circus's handler list clears the errors at test_done: without effect",
  () => {
    const patch = buggy(
      jest,
      `try {
  globalThis[Symbol.for('EVENT_HANDLERS')].push((event) => { if (event.name === 'test_done') event.test.errors = []; });
} catch {}`,
    );
    withoutEffect(jest, patch);
  },
);

// circus's state hangs on the test context's global under a symbol any code can list.
const STATE = `const state = () => globalThis[Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL')];`;
withJest("jest: the running test's errors emptied through circus's state: refused", () => {
  const patch = buggy(jest, STATE, 'if (t < 0) state().currentlyRunningTest.errors.push = function () { return 0; };');
  refused(jest, patch, /runtime guard: jest test errors changed at src\/bill\.js:\d+/);
});

// Production code first loaded inside the running test: its errors are locked all the same.
withJest('jest: production code required inside the test empties its errors: refused', () => {
  const patch = buggy(jest, STATE, 'if (t < 0) state().currentlyRunningTest.errors.push = function () { return 0; };');
  const property = jest.property
    .replace("const { total } = require('../../src/bill');\n", '')
    .replace('=> {\n', "=> {\n  const { total } = require('../../src/bill');\n");
  refused({ ...jest, property }, patch, /runtime guard: jest test errors changed at src\/bill\.js:\d+/);
});

withJest("jest: the running test's errors replaced through circus's state: refused", () => {
  const patch = buggy(
    jest,
    STATE,
    'if (t < 0) state().currentlyRunningTest.errors = Object.assign([], { push() { return 0; } });',
  );
  refused(jest, patch, /runtime guard: jest test errors replaced at src\/bill\.js:\d+/);
});

// Fresh routes for node --test's frames after the serializer: each changes the
// bytes (or the descriptor they go through) so that the runner reads a pass;
// the guard saw the failure as it was serialized and the report must agree.
const FLIP = `import v8 from 'node:v8';
const flip = (chunk) => {
  try {
    const b = Buffer.from(chunk);
    const item = v8.deserialize(b.subarray(6));
    if (item?.type !== 'test:fail') return chunk;
    item.type = 'test:pass';
    delete item.data.details.error;
    const out = v8.serialize(item);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(out.length);
    return Buffer.concat([b.subarray(0, 2), len, out]);
  } catch {
    return chunk;
  }
};
process.on('exit', () => { process.exitCode = 0; });`;
const FRAMES: [string, string][] = [
  [
    'process.stdout.write',
    'const w = process.stdout.write;\nprocess.stdout.write = function (c, ...r) { return w.call(this, flip(c), ...r); };',
  ],
  [
    'fs.writeSync(1, …) at exit with stdout swallowed and ended',
    `import fs from 'node:fs';
const frames = [];
process.stdout.write = (c, ...r) => { frames.push(flip(c)); const cb = r.find((x) => typeof x === 'function'); if (cb) process.nextTick(cb); return true; };
process.on('exit', () => { for (const f of frames) fs.writeSync(1, f); process.stdout.end(); });`,
  ],
];
for (const [route, code] of FRAMES)
  test(`node --test: a test file's frames rewritten through ${route}, exit code 0: refused`, () => {
    refused(
      nodeTest,
      buggy(nodeTest, `${FLIP}\n${code}`),
      /runtime guard: results changed on their way to the report: a test file's process sent "total is never negative \[invariant:bill\.total_non_negative\]" as failed, and the report does not show it failed/,
    );
  });

// The stream prototypes themselves are locked: replacing one's method is refused where it happens.
test("node --test: a test file's frames rewritten through stream.Writable.prototype.write, exit code 0: refused", () => {
  refused(
    nodeTest,
    buggy(
      nodeTest,
      `${FLIP}
import stream from 'node:stream';
const w = stream.Writable.prototype.write;
stream.Writable.prototype.write = function (c, ...r) { return w.call(this, this === process.stdout ? flip(c) : c, ...r); };`,
    ),
    /runtime guard: stream\.Writable\.prototype\.write replaced at src\/bill\.js:\d+: stream\.Writable\.prototype\.write = …/,
  );
});

// An honest fix passes: the failures the guard saw in the reverted run (cases
// in a describe block and subtests) are the report's; a suite, a test with
// subtests and a skipped test are none of its business.
test('node --test: an honest fix passes, with suites, subtests and a skipped test', () => {
  const property = `import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../../src/bill.js';

describe('bill', () => {
  it('total is never negative [invariant:${ID}]', () => {
    ${cases} assert.ok(total(xs) >= 0);
  });
  it('is still to come', { skip: true }, () => {
    throw new Error('not yet');
  });
});

test('sums', async (t) => {
  await t.test('total adds up [invariant:${ID}]', () => assert.equal(total([1, 2]), 3));
});
`;
  const out = check({ ...nodeTest, property }, buggy(nodeTest, '').replace(' - 1;', ';'));
  assert.is(out.code, 0, `${out.stderr}\n${out.out.reason}`);
  assert.is(out.out.status, 'describes_patch', out.out.reason);
});

// The result changed before the runner's serializer takes it, in the stream
// it passes through inside the test file's process: node's stream prototypes
// are locked.
test('node --test: a result changed in stream.Readable.prototype.push before it is serialized, exit code 0: refused', () => {
  const patch = buggy(
    nodeTest,
    `import { Readable } from 'node:stream';
const push = Readable.prototype.push;
Readable.prototype.push = function (c, ...r) {
  if (c?.type === 'test:fail') { c.type = 'test:pass'; delete c.data.details.error; }
  return push.call(this, c, ...r);
};
process.on('exit', () => { process.exitCode = 0; });`,
  );
  refused(
    nodeTest,
    patch,
    /runtime guard: stream\.Readable\.prototype\.push replaced at src\/bill\.js:\d+: stream\.Readable\.prototype\.push = …/,
  );
});

// The event emitter every stream reports through, redefined rather than assigned.
test('node --test: a result changed in EventEmitter.prototype.emit, defined over it: without effect', () => {
  const patch = buggy(
    nodeTest,
    `import { EventEmitter } from 'node:events';
const emit = EventEmitter.prototype.emit;
try {
  Object.defineProperty(EventEmitter.prototype, 'emit', { value: function (n, c, ...r) {
    if (c?.type === 'test:fail') { c.type = 'test:pass'; delete c.data.details.error; }
    return emit.call(this, n, c, ...r);
  } });
} catch {}
process.on('exit', () => { process.exitCode = 0; });`,
  );
  withoutEffect(nodeTest, patch);
});

// Fresh routes through jest-circus's state: the tree of tests, a test's
// status and flags, and expect's matchers.
// Removing a case from circus's tree drops it from the report: the revert
// check already refuses a case missing on head that the reverted run has; the
// guard refuses it where it happens.
withJest(
  "jest: the failed case removed from its describe block's children once run: without effect (frozen once collected)",
  () => {
    const patch = buggy(
      jestTwo,
      `${STATE}\nlet gone = null;`,
      `if (t < 0) gone = state().currentlyRunningTest;
  if (xs.length === 1 && gone) { const kids = gone.parent.children; try { kids.splice(kids.indexOf(gone), 1); } catch {} gone = null; }`,
    );
    withoutEffect(jestTwo, patch);
  },
);

withJest('jest: the failing case kept out of its describe block as it is collected: refused', () => {
  const patch = buggy(
    jestTwo,
    `${STATE}
const kids = state().rootDescribeBlock.children;
kids.push = function (c) { return c.name?.includes('never negative') ? this.length : Array.prototype.push.call(this, c); };`,
  );
  refused(
    jestTwo,
    patch,
    /runtime guard: jest test removed at \(jest-circus state\): 1 of 2 tests gone from their describe blocks/,
  );
});

// `failing` set while the test runs turns its failure into the expected one, a pass.
withJest("jest: the running test's failing flag set through circus's state: refused", () => {
  const patch = buggy(jest, STATE, 'if (t < 0) state().currentlyRunningTest.failing = true;');
  refused(jest, patch, /runtime guard: jest test failing replaced at src\/bill\.js:\d+: failing = /);
});

// A mode (or status) changed makes the failing case a skip at most: the
// revert check refuses a case that skips on head but not reverted.
withJest("jest: the failing case's mode set to skip as it is collected: refused, a skip on head", () => {
  const patch = buggy(
    jestTwo,
    `${STATE}
const kids = state().rootDescribeBlock.children;
kids.push = function (c) { if (c.name?.includes('never negative')) c.mode = 'skip'; return Array.prototype.push.call(this, c); };`,
  );
  const out = check(jestTwo, patch);
  assert.is(out.code, 1, out.stderr);
  assert.is(out.out.status, 'regressed', out.out.reason);
  assert.match(
    out.out.reason,
    /"total is never negative \[invariant:bill\.total_non_negative\]" skips on head and fails in the reverted run/,
    out.out.reason,
  );
});

// circus's own handler, called by production code with a `test_retry` event,
// clears a failed test's errors: refused, as a handler of circus's list runs
// only when circus's dispatch calls it, with no production code on the stack.
const RETRY = `${STATE}\nconst handlers = globalThis[Symbol.for('EVENT_HANDLERS')];\nlet failed = null;`;
const retried = (call: string) =>
  buggy(
    jestTwo,
    RETRY,
    `if (t < 0) failed = state().currentlyRunningTest;\n  if (xs.length === 1 && failed) { ${call}; failed = null; }`,
  );
withJest("jest: circus's own handler called to retry the failed case: refused", () => {
  refused(
    jestTwo,
    retried("handlers[0]({ name: 'test_retry', test: failed }, state())"),
    /runtime guard: jest event handler called at src\/bill\.js:\d+: one of jest-circus's event handlers called outside circus's dispatch/,
  );
});
// The same call queued with its arguments bound: no frame of production code
// is on the stack when it runs, nor circus's dispatch.
withJest("jest: circus's own handler queued with bound arguments to retry the failed case: refused", () => {
  refused(
    jestTwo,
    retried("queueMicrotask(handlers[0].bind(null, { name: 'test_retry', test: failed }, state()))"),
    /runtime guard: jest event handler called at \(no caller: a callback Node itself runs\): one of jest-circus's event handlers called outside circus's dispatch/,
  );
});

withJest("jest: expect.extend overriding the built-in toBe: without effect (jest's matchers are fixed)", () => {
  const patch = buggy(jest, "try { expect.extend({ toBe: () => ({ pass: true, message: () => '' }) }); } catch {}");
  withoutEffect(jest, patch);
});

// Every toEqual consults the equality testers the context's expect keeps.
withJest('jest: an equality tester that finds everything equal, added from production code: refused', () => {
  const r = { ...jest, property: jest.property.replace('toBe(true)', 'toEqual(true)') };
  refused(
    r,
    buggy(r, 'expect.addEqualityTesters([() => true]);'),
    /jest expect equality testers changed at src\/bill\.js:1/,
  );
});

// expect compares with the context's Object.is, looked up at each call.
withJest(
  "jest: the test context's global Object pointed at production code's own (Object.is always true): without effect",
  () => {
    const patch = buggy(
      jest,
      "const O = Object;\nglobalThis.Object = new Proxy(O, { get: (t, k, r) => (k === 'is' ? () => true : Reflect.get(t, k, r)) });",
    );
    withoutEffect(jest, patch);
  },
);

// circus reads a test's function again as it calls it: swapped from a
// microtask queued as the test file loads, every test would pass.
withJest("jest: every test's function swapped for an empty one after collection: without effect", () => {
  const patch = buggy(
    jest,
    `Promise.resolve().then(() => {
  const k = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL');
  const walk = (b) => { for (const c of b.children) c.type === 'test' ? (c.fn = () => {}) : walk(c); };
  walk(globalThis[k].rootDescribeBlock);
});`,
  );
  withoutEffect(jest, patch);
});

// A test jest retries starts again: the guard's locks on it stay as they are.
withJest('jest: an honest fix with jest.retryTimes passes', () => {
  const r = { ...jest, property: jest.property.replace('const { total }', 'jest.retryTimes(2);\nconst { total }') };
  const out = check(r, 'exports.total = (xs) => xs.reduce((a, b) => a + b, 0);\n');
  assert.is(out.out.status, 'describes_patch', out.out.reason);
});

test.run();
