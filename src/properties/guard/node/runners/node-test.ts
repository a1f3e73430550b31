// node:test (and node:assert, which node:test and mocha properties assert
// with): its exports frozen, the reporter stream each result passes
// through locked, each failure sent on the channel, the cases the revert
// check names chosen, and the async scope each test runs in kept from
// production code.
// biome-ignore-all lint/suspicious/noExplicitAny: node:test's internal classes, met at run time
import assertModule from 'node:assert';
import assertStrict from 'node:assert/strict';
import asyncHooks from 'node:async_hooks';
import EventEmitter from 'node:events';
import stream from 'node:stream';
import { checkLocked, guarded, lockMethods, mainOwners, never } from '../locks.js';
import { refuse, send } from '../record.js';
import { patchOnStack } from '../stack.js';
import { apply, getOwnPropertyDescriptor, getPrototypeOf, matches, objectish, readOnly } from '../taken.js';

/**
 * The cases the revert check names in PATCHWARDEN_ONLY (a JSON list of
 * names), where a cached reverted run cannot answer for them: a node:test
 * test of any other name is created skipped, so it neither runs nor counts
 * as passed, and the check takes only the named cases from the report.
 * Suites (describe) are kept: their tests are chosen by name. node:test's
 * Test class is internal: the guard meets its prototype as the first test
 * object is made (an async resource of type Test), before any test is added.
 */
export function selectTests(names: Set<string>): void {
  const hook = asyncHooks.createHook({
    init(_id, type, _trigger, resource) {
      if (type !== 'Test') return;
      hook.disable();
      let proto = getPrototypeOf(resource);
      while (proto !== null && !Object.hasOwn(proto, 'createSubtest')) proto = getPrototypeOf(proto);
      if (proto === null) return; // no test is created skipped: every case runs, as before
      const Test = proto.constructor;
      const create = proto.createSubtest;
      proto.createSubtest = function createSubtest(
        this: unknown,
        Factory: unknown,
        name: unknown,
        options: unknown,
        fn: unknown,
        overrides: any,
      ) {
        if (Factory === Test && !names.has(testName(name, options, fn)))
          overrides = { ...overrides, skip: 'not among the cases this run is to run (PATCHWARDEN_ONLY)' };
        return apply(create, this, [Factory, name, options, fn, overrides]);
      };
    },
  });
  hook.enable();
}

/** The name node:test gives a test: its own, else its function's. */
export function testName(name: unknown, options: unknown, fn: unknown): string {
  if (typeof name === 'string' && name !== '') return name;
  const f = typeof name === 'function' ? name : typeof options === 'function' ? options : fn;
  return (typeof f === 'function' && f.name) || '<anonymous>';
}

const PROPERTY = /\[invariant:/;
/**
 * Whether a failure the reporter is told of is a testcase the report must
 * show failed: a test without subtests (`leaf`) not marked todo, or a
 * property's own failure even when the test has subtests or is marked todo
 * (production code that registered a hook gave the failing property a
 * passing subtest of its name and marked it todo, which the report writes as
 * a suite and the exit code forgives). A skipped test is none.
 */
export function mustShowFailed(name: unknown, leaf: boolean, details: any, directive: any): boolean {
  if (directive?.skip !== undefined) return false;
  const property = matches(PROPERTY, String(name));
  const own = details?.error?.failureType !== 'subtestsFailed';
  return property ? leaf || own : leaf && directive?.todo === undefined;
}

// node:test reports each result by calling its reporter stream's `ok` or
// `fail` (TestsStream, a Readable of node's own); every later step (the
// stream's buffer, the serializer, stdout, the runner's reading) is on the
// way to the report. The class is internal: the guard meets its prototype as
// the first such stream is made (every stream starts in EventEmitter.init),
// before any code can hold one, and locks it like the stream prototypes.
// Under node --test each test file's process also sends, as `fail` is
// called, each failure of a testcase on its channel, and the run is refused
// unless the report shows it failed: whatever the result meets after that (a
// buffer, the serializer, stdout, a descriptor, the exit code), the report
// must agree with what the guard saw.
const parents: boolean[] = [];
let childOfTest = false;
// Results come children first, then their parent. A failure is checked
// against the locked built-ins as it starts on its way (a pass needs no
// rewriting, and checking each cost a run of 200 cases a tenth).
function result(failed: boolean, nesting: number, name: unknown, details: unknown, directive: unknown): void {
  if (failed) checkLocked(mainOwners);
  if (!childOfTest) return;
  const leaf = parents[nesting] !== true;
  parents[nesting] = false;
  if (nesting > 0) parents[nesting - 1] = true;
  if (failed && mustShowFailed(name, leaf, details, directive)) send({ t: 'failed', name: String(name) });
}
const reporters = new Set<object>();
function lockReporter(proto: any): void {
  if (reporters.has(proto)) return;
  reporters.add(proto);
  const { ok, fail } = proto;
  if (typeof ok !== 'function' || typeof fail !== 'function') return;
  proto.ok = {
    ok(this: unknown, nesting: number, loc: unknown, n: unknown, name: unknown, details: unknown, directive: unknown) {
      result(false, nesting, name, details, directive);
      return apply(ok, this, [nesting, loc, n, name, details, directive]);
    },
  }.ok;
  proto.fail = {
    fail(
      this: unknown,
      nesting: number,
      loc: unknown,
      n: unknown,
      name: unknown,
      details: unknown,
      directive: unknown,
    ) {
      result(true, nesting, name, details, directive);
      return apply(fail, this, [nesting, loc, n, name, details, directive]);
    },
  }.fail;
  lockMethods(proto, 'node:test TestsStream.prototype', true);
}

/** Meets node:test's reporter stream as the first one is made. */
export function watchReporter(): void {
  childOfTest = process.env.NODE_TEST_CONTEXT === 'child-v8';
  const ReadableProto = stream.Readable.prototype;
  const E = EventEmitter as any;
  const init = E.init;
  E.init = function init_(this: unknown, ...args: unknown[]) {
    const p = objectish(this) ? getPrototypeOf(this) : null;
    if (p !== null && getPrototypeOf(p) === ReadableProto) {
      const d = getOwnPropertyDescriptor(p, 'constructor');
      if (typeof d?.value === 'function' && d.value.name === 'TestsStream') lockReporter(p);
    }
    return apply(init, this, args);
  };
  readOnly(EventEmitter, 'init');
}

/** node:assert: an assert.ok replaced from production code passes every case. */
export function guardAssert(): void {
  for (const [exported, label] of [
    [assertModule, 'assert'],
    [assertStrict, 'assert.strict'],
  ] as const) {
    // Its classes (AssertionError, CallTracker) and assert.strict stay as they are, frozen.
    for (const name of Object.keys(exported))
      if (typeof (exported as any)[name] === 'function' && name !== 'strict' && !/^[A-Z]/.test(name))
        guarded(exported, name, `${label}.${name}`, never);
    Object.freeze(exported);
  }
}

/**
 * node:test runs each test inside its Test object's async scope: the
 * resource async_hooks hands out (executionAsyncResource, a hook's `init`)
 * is that object, whose `passed` decides the result. Production code, or a
 * library it calls, may ask for neither. (AsyncLocalStorage does not go
 * through them.) Each node:test Test is an AsyncResource that runs its
 * test's function through runInAsyncScope (one that swallowed the error
 * passed the test).
 */
export function guardAsyncScope(): void {
  lockMethods(asyncHooks.AsyncResource.prototype, 'AsyncResource.prototype', true);
  lockMethods(asyncHooks.AsyncLocalStorage.prototype, 'AsyncLocalStorage.prototype', true);
  for (const name of ['executionAsyncResource', 'createHook'])
    guarded(asyncHooks, name, `async_hooks.${name}`, () => {
      const a = patchOnStack();
      if (a) refuse(`async_hooks.${name}`, `${name}() hands out the running test's own object`, a);
      return false;
    });
}
