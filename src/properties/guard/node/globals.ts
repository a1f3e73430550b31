// The global names a run is judged by: the process object, the names the
// test frameworks give tests, and the built-ins' names, fixed in every realm
// tests run in.
import { replaced } from './locks.js';
import { freezeMocha } from './runners/mocha.js';
import { define, getOwnPropertyDescriptor, objectish } from './taken.js';

/** The names mocha, jest and vitest (with `globals`) give tests. */
export const FRAMEWORK_GLOBALS = [
  'describe',
  'context',
  'suite',
  'it',
  'test',
  'specify',
  'expect',
  'vi',
  'before',
  'after',
  'beforeEach',
  'afterEach',
  'beforeAll',
  'afterAll',
  'setup',
  'teardown',
  'suiteSetup',
  'suiteTeardown',
  'xdescribe',
  'xcontext',
  'xit',
  'xtest',
  'xspecify',
  'fdescribe',
  'fit',
];

/** The global names of the built-ins, fixed in every realm tests run in (fixBindings). */
const BINDINGS = [
  'globalThis',
  'Object',
  'Function',
  'Array',
  'Number',
  'Boolean',
  'String',
  'Symbol',
  'BigInt',
  'RegExp',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'FinalizationRegistry',
  'Proxy',
  'Reflect',
  'JSON',
  'Math',
  'Atomics',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'isNaN',
  'isFinite',
  'parseInt',
  'parseFloat',
  'eval',
];

/**
 * A global production code cannot rebind: an accessor that keeps a value for
 * each object holding it, as jest copies them into every test context.
 */
export function bound(name: string, initial: unknown): void {
  const values = new WeakMap<object, unknown>();
  Object.defineProperty(globalThis, name, {
    get() {
      return objectish(this) && values.has(this) ? values.get(this) : initial;
    },
    set(value) {
      replaced(`globalThis.${name} replaced`, name);
      if (objectish(this)) values.set(this, value);
      freezeMocha();
    },
    configurable: false,
    enumerable: false,
  });
}

/**
 * The global names of the built-ins a runner's code looks up at each call
 * (chai wraps each assertion in `new Proxy`, reads through `Reflect.get`,
 * expect compares with `Object.is`): a name pointed at production code's own
 * copy would answer for them, so each is fixed. Date and the timers stay
 * free for fake timers, Intl for its polyfills.
 */
export function fixBindings(g: object): void {
  for (const name of BINDINGS) {
    const d = getOwnPropertyDescriptor(g, name);
    if (d?.configurable && 'value' in d)
      define(g, name, { value: d.value, writable: false, configurable: false, enumerable: d.enumerable });
  }
}

/**
 * What the run is judged by cannot be rebound by production code: the
 * process object, and the globals the test frameworks define (mocha's,
 * jest's, vitest's with `globals`). Under jest, whose test contexts copy
 * these globals (a locked global here breaks it), its processes lock them
 * inside each context instead (vm.ts).
 */
export function bindGlobals(): void {
  bound('process', process);
  for (const name of FRAMEWORK_GLOBALS) if (!(name in globalThis)) bound(name, undefined);
  fixBindings(globalThis);
  // A library may put its own Promise in place (zone.js does); production code may not.
  bound('Promise', Promise);
}
