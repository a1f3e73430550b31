// vitest (its forks and threads pools) keeps what decides each result in its
// worker's own realm, in plain objects production code can reach
// (globalThis.__vitest_worker__, getCurrentTest(), a test's context): the
// worker state (its rpc sends every result), each test's id, flags, function
// and result, and expect's assertion methods. Each such field becomes an
// accessor that only vitest's code may set (expect's, any library's or the
// base's), with no frame of production code on the stack: a test as vitest
// makes it (it gives each its `context` with Object.defineProperty, which
// the guard sees), the worker state as vitest provides it, expect's methods
// before the first file of production code is compiled. Each test's failure
// is also sent on the channel as vitest settles it, and the report must show
// it. Its vm pools are refused (vm.ts).
// biome-ignore-all lint/suspicious/noExplicitAny: vitest's worker state, tests and runner, of vitest's shape
import { lockMethods } from '../locks.js';
import { note, refuse, send } from '../record.js';
import { actor, patchOnStack } from '../stack.js';
import {
  apply,
  define,
  freeze,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isArray,
  objectish,
  ownKeys,
  readOnly,
} from '../taken.js';
import { heldTesters, runnerOwned, runnerSets, VITEST_FILE } from './fields.js';

const WORKER_STATE = '__vitest_worker__';
const EXPECT = Symbol.for('expect-global');
const TEST_FIELDS = ['id', 'fails', 'mode', 'retry', 'repeats', 'onFinished', 'onFailed'];
const RESULT_FIELDS = ['state', 'errors', 'pending'];
/** Whether an object is a test as vitest makes it. */
export const isTest = (o: any): boolean => objectish(o) && (o as any).type === 'test' && 'fails' in o && 'mode' in o;

/**
 * What a settled test tells the channel: a failure (the report must show it
 * failed: a result lost or rewritten on its way, or a test whose id was
 * changed so that its result never arrives, which vitest's JUnit reporter
 * writes as a pass, is refused), and a finding for a test marked as expected
 * to fail, which passes when it fails, so a property may not be one (as
 * pytest's xfail counts as failed).
 */
export function settled(test: { name: unknown; fails?: unknown }, state: unknown): { fails: boolean; failed: boolean } {
  if (state === 'skip') return { fails: false, failed: false };
  return { fails: Boolean(test.fails), failed: state === 'fail' };
}

// vitest sets a test's duration once it is over, after its retries and its
// `fails` flip: what the result says then is what the report must say.
function finished(test: any, r: any): void {
  const s = settled(test, r.state);
  if (s.fails)
    note(
      'vitest test.fails',
      `${JSON.stringify(String(test.name)).slice(0, 160)} is marked as expected to fail, which vitest reports as a pass when it fails; a property test may not be`,
      { file: '(vitest test)', line: 0 },
    );
  if (s.failed) send({ t: 'failed', name: String(test.name) });
}
function lockResult(r: any, test: any): unknown {
  if (!objectish(r)) return r;
  for (const key of RESULT_FIELDS) runnerOwned(r, key, 'vitest test result');
  runnerOwned(r, 'duration', 'vitest test result', (d) => {
    if (d !== undefined) finished(test, r);
    return d;
  });
  return r;
}

// vitest keeps each test's function in a WeakMap of its own (@vitest/runner's
// setFn), read again at each try: the first WeakMap a test is put in as
// vitest makes it is that map, and no entry there can be replaced.
let justMade: object | null = null;
let fnMap: WeakMap<object, unknown> | null = null;
// Every test vitest runs must be one it made, with no frame of production
// code on the stack as it did (a collector's `test` swapped for one that
// hands vitest another function, a test object of production code's own).
const made = new WeakSet<object>();
function lockTask(task: any): void {
  const a = patchOnStack();
  if (a?.kind === 'patch') refuse('vitest test made through production code', 'test(…)', a);
  made.add(task);
  for (const key of TEST_FIELDS) runnerOwned(task, key, 'vitest test');
  runnerOwned(task, 'result', 'vitest test', (r) => lockResult(r, task));
  justMade = task;
}
// Once a file's tests run, its tree is as collected: a test taken out of its
// suite's tasks no longer fails its file.
function freezeTasks(task: any): void {
  const ts = task?.tasks;
  if (!isArray(ts) || Object.isFrozen(ts)) return;
  for (let i = 0; i < ts.length; i++) freezeTasks(ts[i]);
  freeze(ts);
}

let workerState: any;
/** Whether this process is a vitest worker (vitest has provided its state). */
export const inVitestWorker = (): boolean => workerState !== undefined;
function lockState(state: any): void {
  if (!objectish(state)) return;
  const ks = ownKeys(state);
  for (let i = 0; i < ks.length; i++) if (ks[i] !== 'current') runnerOwned(state, ks[i], 'vitest worker state');
  // A test about to run: collection is over, and with it the base's setup
  // files (production code loaded without a compile the guard sees, as
  // Node's own ES module loader does, has run by then).
  runnerOwned(state, 'current', 'vitest worker state', (t) => {
    if (t !== workerState?.current) lockState(workerState);
    if (objectish(t) && (t as any).type === 'test') {
      if (!made.has(t)) refuse('vitest test not made by vitest', String((t as any).name).slice(0, 120), actor());
      lockVitest();
      freezeTasks((t as any).file);
    }
    return t;
  });
  // The run's configuration, read as tests run (`passWithNoTests`, the diff
  // options each failure is processed with, `retry`): vitest's own.
  const config = (state as any).config;
  if (objectish(config)) for (const key of ownKeys(config)) runnerOwned(config, key, 'vitest config');
}
function provideState(state: unknown): void {
  runnerSets('vitest worker state changed', `globalThis.${WORKER_STATE}`, VITEST_FILE);
  workerState = state;
  lockState(state);
}

// vitest's runner (the guard meets it as vitest hands it its executor):
// runTest calls a `runTask` in place of each test's function where the
// runner has one, so its classes are frozen and each hook it lacks is fixed
// as absent; its own methods (vitest wraps some) are vitest's to set.
const RUNNER_HOOKS = [
  'runTask',
  'runSuite',
  'extendTaskContext',
  'onBeforeTryTask',
  'onAfterTryTask',
  'onTaskFinished',
  'onBeforeRunTask',
  'onAfterRunTask',
  'onBeforeRunSuite',
  'onAfterRunSuite',
  'onAfterRetryTask',
];
let runner: any = null;
function lockRunner(r: any): void {
  for (let p = getPrototypeOf(r); p !== null && p !== Object.prototype; p = getPrototypeOf(p)) freeze(p);
  for (const key of ownKeys(r)) if (typeof r[key] === 'function') runnerOwned(r, key, 'vitest runner');
  for (const key of RUNNER_HOOKS)
    if (!(key in r)) define(r, key, { value: undefined, writable: false, configurable: false, enumerable: false });
}

// Before production code runs in a vitest worker, Object.prototype takes no
// more names: vitest reads optional fields of plain objects and of its
// runner (a test's options' `fails`, the runner's `runTask`, chai's `negate`
// flag) where a name inherited from there would answer.
let protoLocked = false;
let vitestLocked = false;
export function lockVitest(): void {
  if (!protoLocked) {
    protoLocked = true;
    Object.preventExtensions(Object.prototype);
    // An accessor added there would run as vitest processes each failure.
    Object.preventExtensions(Error.prototype);
    // Nor does the run's configuration take a field it lacks (passWithNoTests).
    if (objectish(workerState?.config)) Object.preventExtensions(workerState.config);
    if (runner) lockRunner(runner);
  }
  if (vitestLocked) return;
  const expect = (globalThis as any)[EXPECT];
  if (typeof expect !== 'function') return;
  vitestLocked = true;
  lockExpect(expect);
}

// Every matcher and chai's own assertion live on chai's Assertion.prototype,
// which an assertion made here shows (not counted as one of a test's).
function lockExpect(expect: any): void {
  const { assertionCalls } = expect.getState?.() ?? {};
  const proto = getPrototypeOf(expect(undefined));
  expect.setState?.({ assertionCalls });
  lockMethods(proto, 'vitest expect (Assertion.prototype)', false);
  for (const key of ownKeys(proto)) {
    const d = getOwnPropertyDescriptor(proto, key)!;
    if (d.configurable) define(proto, key, { configurable: false });
  }
  readOnly(globalThis, EXPECT);
  // The equality testers every toEqual consults, held.
  const JM = Symbol.for('$$jest-matchers-object');
  const jd = getOwnPropertyDescriptor(globalThis, JM);
  if (jd?.get && jd.configurable) {
    const testers = apply(jd.get, globalThis, []).customEqualityTesters;
    const held = isArray(testers) ? heldTesters(testers, VITEST_FILE, 'vitest expect') : testers;
    const get = jd.get;
    define(globalThis, JM, {
      get() {
        const o = apply(get, this, []);
        if (objectish(o)) (o as any).customEqualityTesters = held;
        return o;
      },
      enumerable: jd.enumerable,
      configurable: false,
    });
  }
  for (const sym of [Symbol.for('matchers-object'), Symbol.for('asymmetric-matchers-object')])
    if (getOwnPropertyDescriptor(globalThis, sym)?.configurable) define(globalThis, sym, { configurable: false });
  const jm = (globalThis as any)[JM];
  if (objectish(jm?.matchers))
    for (const name of ownKeys(jm.matchers)) runnerOwned(jm.matchers, name, 'vitest expect matchers', undefined, null);
}

/**
 * Meets vitest's objects as it makes them: its tests' functions as they go
 * into its WeakMap, each test as it gets its context, the worker state and
 * the runner as they are defined.
 */
export function watchVitest(): void {
  const weakSet = WeakMap.prototype.set;
  const weakHas = WeakMap.prototype.has;
  WeakMap.prototype.set = {
    set(this: WeakMap<object, unknown>, key: object, value: unknown) {
      if (key === justMade && fnMap === null) fnMap = this;
      if (key === justMade) justMade = null;
      else if (this === fnMap && apply(weakHas, this, [key]))
        refuse(
          'vitest test function replaced',
          "a test's function set again after vitest made the test",
          patchOnStack() ?? actor(),
        );
      return apply(weakSet, this, [key, value]);
    },
  }.set;
  Object.defineProperty = {
    defineProperty(o: any, key: PropertyKey, d: PropertyDescriptor & ThisType<any>) {
      if (key === '__vitest_executor' && objectish(o)) runner = o;
      if (key === 'context' && isTest(o)) {
        const out = define(o, key, d);
        lockTask(o);
        return out;
      }
      if (o === globalThis && key === WORKER_STATE && objectish(d) && 'value' in d) {
        if (workerState === undefined)
          define(globalThis, WORKER_STATE, {
            get: () => workerState,
            set: provideState,
            enumerable: false,
            configurable: false,
          });
        provideState(d.value);
        return o;
      }
      return define(o, key, d);
    },
  }.defineProperty as typeof Object.defineProperty;
}
