// The built-ins every runner's code stands on, in each realm it runs tests
// in, and the Node classes a result passes through on its way to the
// report: their methods locked (locks.ts, lockMethods), what is left
// unlocked for speed watched.
// biome-ignore-all lint/suspicious/noExplicitAny: a realm's global object, read by name
import EventEmitter from 'node:events';
import stream from 'node:stream';
import v8 from 'node:v8';
import { guardAccessor, lockMethods, mainOwners, type Owners } from './locks.js';
import { apply, define, getOwnPropertyDescriptor, getPrototypeOf, ownKeys, setPrototypeOf } from './taken.js';

/**
 * A test file's process sends its results to the runner v8-serialized
 * (node's IPC for vitest's and jest's workers, node --test's per-file child
 * over its stdout): the serializer classes and node:v8's exports are frozen,
 * so production code cannot rewrite a result inside them.
 */
export function freezeSerializer(): void {
  for (const C of [v8.Serializer, v8.Deserializer, v8.DefaultSerializer, v8.DefaultDeserializer])
    Object.freeze(C.prototype);
  Object.freeze(v8);
}

/**
 * Before the serializer, node --test's child pushes each result into a
 * Readable (its test stream) and reads it back through the stream and
 * event-emitter machinery: a method replaced on one of their prototypes
 * (push, read, emit) changes a result where the guard does not look. Their
 * methods are locked: reading one gives the original, production code
 * assigning one there is refused, other code's assignment is kept, and
 * nothing can be redefined or added there (an `emit` added on
 * Readable.prototype would shadow EventEmitter's). Assigned on an instance
 * or a subclass's prototype (Node sets `_read` on its own streams, libraries
 * `process.emit`), a method becomes that object's own, as it always does.
 */
export function lockStreams(): void {
  for (const [C, label] of [
    [EventEmitter, 'EventEmitter'],
    [stream.Stream, 'stream.Stream'],
    [stream.Readable, 'stream.Readable'],
    [stream.Writable, 'stream.Writable'],
    [stream.Duplex, 'stream.Duplex'],
    [stream.Transform, 'stream.Transform'],
    [stream.PassThrough, 'stream.PassThrough'],
  ] as const)
    lockMethods(C.prototype, `${label}.prototype`, true);
}

// The built-ins every runner's code stands on, in each realm it runs tests
// in (node:test's reporter stream keeps its buffer in an Array; jest-circus
// appends each failure to a test's errors with its context's
// Array.prototype.push): their methods are locked like the stream
// prototypes', open to additions, and so are the iterators'. Math's
// functions and RegExp.prototype are left as they are (V8's fast paths).
const PROTOS = [
  'Object',
  'Function',
  'Array',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'Promise',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'Date',
  'Error',
  'ArrayBuffer',
  'DataView',
];
const STATICS = ['Object', 'Array', 'Promise', 'String', 'Number', 'JSON', 'Reflect'];

/**
 * A realm's getOwnPropertyDescriptor(s), with the guard's method accessors
 * shown as the data properties they stand for: the value is what reading it
 * on `o` gives, so nothing is shown that a read does not, and defining the
 * copy on the owner still fails.
 */
function descriptorViews(g: any): void {
  const asData = (o: object, d: PropertyDescriptor | undefined) => {
    if (!d || !(guardAccessor(d.get) && guardAccessor(d.set))) return d;
    const data = { value: apply(d.get!, o, []), writable: true, enumerable: d.enumerable, configurable: false };
    return setPrototypeOf(data, proto);
  };
  const proto = g.Object.prototype;
  const one = g.Object.getOwnPropertyDescriptor;
  const all = g.Object.getOwnPropertyDescriptors;
  const reflectOne = g.Reflect.getOwnPropertyDescriptor;
  g.Object.getOwnPropertyDescriptor = {
    getOwnPropertyDescriptor(o: object, key: PropertyKey) {
      return asData(o, apply(one, g.Object, [o, key]));
    },
  }.getOwnPropertyDescriptor;
  g.Reflect.getOwnPropertyDescriptor = {
    getOwnPropertyDescriptor(o: object, key: PropertyKey) {
      return asData(o, apply(reflectOne, g.Reflect, [o, key]));
    },
  }.getOwnPropertyDescriptor;
  g.Object.getOwnPropertyDescriptors = {
    getOwnPropertyDescriptors(o: object) {
      const ds: any = apply(all, g.Object, [o]);
      const ks = ownKeys(ds);
      for (let i = 0; i < ks.length; i++) ds[ks[i]] = asData(o, ds[ks[i]]);
      return ds;
    },
  }.getOwnPropertyDescriptors;
}

// Called in every hot loop, and never replaced by honest code: fixed rather
// than locked (an accessor in front of them costs up to 1.7x).
const HOT = ['call', 'apply', 'bind'];

/** Locks a realm's built-ins (`g`: its global object) into `owners`. */
export function lockIntrinsics(g: any, owners: Owners = mainOwners): void {
  descriptorViews(g);
  for (const name of HOT) define(g.Function.prototype, name, { writable: false, configurable: false });
  for (const name of PROTOS) lockMethods(g[name].prototype, `${name}.prototype`, false, owners);
  const TypedArray = getPrototypeOf(g.Uint8Array);
  lockMethods(TypedArray.prototype, 'TypedArray.prototype', false, owners);
  for (const name of STATICS) lockMethods(g[name], name, false, owners);
  // The iterators every for-of and spread calls: one replaced and put back
  // while a loop runs made a property's loop skip the case that fails.
  // Locked, they cost V8 its fast path for spread, for-of and destructuring
  // of arrays: any redefinition of Array.prototype[Symbol.iterator] turns it
  // off (a read-only one too), and so does one of the iterator's next, while
  // Array.prototype's other methods locked cost nothing there. Object.freeze
  // keeps it, of the iterator's prototype and of Array.prototype whole (the
  // one way to fix Symbol.iterator there without redefining it), but a frozen
  // Array.prototype refuses the additions polyfills make and methods assigned
  // on an array, so the lock redefines: most of the guard's cost where a
  // property spreads or calls assert.ok in a loop (docs/revert-check.md).
  const arrayIterator = getPrototypeOf(apply(g.Array.prototype[Symbol.iterator], new g.Array(), []));
  lockMethods(arrayIterator, 'Array Iterator.prototype', false, owners);
  lockMethods(getPrototypeOf(arrayIterator), 'Iterator.prototype', false, owners);
  lockMethods(getPrototypeOf(apply(g.Map.prototype.entries, new g.Map(), [])), 'Map Iterator.prototype', false, owners);
  lockMethods(getPrototypeOf(apply(g.Set.prototype.values, new g.Set(), [])), 'Set Iterator.prototype', false, owners);
  lockMethods(
    getPrototypeOf(apply(g.String.prototype[Symbol.iterator], '', [])),
    'String Iterator.prototype',
    false,
    owners,
  );
  // What is left unlocked for speed is watched instead: RegExp.prototype's,
  // each prototype's constructor and the species getters.
  const watch = (o: object, label: string, key: PropertyKey) => {
    const d = getOwnPropertyDescriptor(o, key);
    if (d) owners.watched[owners.watched.length] = { o, label, key, value: d.value, get: d.get, set: d.set };
  };
  const whole = (o: object, label: string) => {
    const ks = ownKeys(o);
    for (let i = 0; i < ks.length; i++) watch(o, label, ks[i]);
  };
  whole(g.RegExp.prototype, 'RegExp.prototype');
  for (const name of PROTOS) {
    watch(g[name].prototype, `${name}.prototype`, 'constructor');
    watch(g[name], name, Symbol.species);
  }
  watch(TypedArray, 'TypedArray', Symbol.species);
  watch(g.RegExp, 'RegExp', Symbol.species);
}
