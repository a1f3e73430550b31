// Locks on the methods and objects a run is judged by: a guarded method
// judges each call, a locked method cannot be replaced by production code,
// and what is locked in a realm is checked at each result.
// biome-ignore-all lint/suspicious/noExplicitAny: the objects locked here are Node's, the runners' and production code's, of any shape
import { type Actor, patchOnStack, actor } from './stack.js';
import { note, refuse, send } from './record.js';
import {
  apply,
  define,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isIndex,
  list,
  nameOfKey,
  objectish,
  ownKeys,
  reflectDefine,
  setPrototypeOf,
} from './taken.js';

/** Whether a call with these arguments is refused; `who` reads the stack, only when the arguments make it matter. */
export type CallJudge = (args: unknown[], who: () => Actor) => boolean;

/** The judge of a call no one's code may be refused (its method only locked). */
export const never: CallJudge = () => false;

const killGroup = process.kill;

/**
 * A guarded method is an accessor that cannot be redefined. Its getter
 * returns the guard's wrapper in front of the method in force; a runner may
 * put its own method behind the wrapper (vitest and jest assign their own
 * process.exit, graceful-fs its fs calls, jest copies process into each
 * test context: each object, the copies too, keeps its own), while
 * production code assigning one is refused.
 */
export function guarded(owner: any, name: string, event: string, judge: CallJudge): void {
  const real = owner[name];
  if (typeof real !== 'function') return;
  const behind = new WeakMap<object, (...args: unknown[]) => unknown>();
  const fronts = new WeakMap<(...args: unknown[]) => unknown, (...args: unknown[]) => unknown>();
  // A judge that refuses no call needs no wrapper: the accessor's setter is the lock,
  // and reading gives the method itself (assert.ok is called in every property's loop).
  const front = (fn: (...args: unknown[]) => unknown) => {
    if (judge === never) return fn;
    let w = fronts.get(fn);
    if (w) return w;
    w = {
      [name](this: unknown, ...args: unknown[]) {
        // The stack is read only when the arguments make it matter.
        let a: Actor | null = null;
        const who = () => (a ??= actor());
        if (judge(args, who))
          refuse(
            event,
            `${name}(${args
              .filter((x) => typeof x !== 'function')
              .map((x) => String(x))
              .join(', ')
              .slice(0, 120)})`,
            who(),
          );
        return Reflect.apply(fn, this, args);
      },
    }[name];
    fronts.set(fn, w);
    return w;
  };
  // What was put behind the wrapper on the owner itself, apart: most reads are of the owner, and need no lookup.
  let own: ((...args: unknown[]) => unknown) | undefined;
  Object.defineProperty(owner, name, {
    get() {
      if (this === owner) return front(own ?? real);
      return front((objectish(this) ? behind.get(this) : undefined) ?? real);
    },
    set(fn) {
      replaced(`${event} replaced`, name);
      if (typeof fn !== 'function' || !objectish(this)) return;
      if (this === owner) own = fn as (...args: unknown[]) => unknown;
      else behind.set(this, fn as (...args: unknown[]) => unknown);
    },
    configurable: false,
    enumerable: true,
  });
  keepFast(owner);
}

/**
 * V8 turns an object whose data properties are made accessors to dictionary
 * mode, where each read of one is a lookup its optimizer cannot inline
 * (assert.ok, Array.from or JSON.stringify in a property's loop cost several
 * times as much); an object that is some object's prototype it makes fast
 * again once read (test/properties/guard-node-fast.test.ts). Nothing else
 * about the owner changes.
 */
export function keepFast(owner: object): void {
  setPrototypeOf({}, owner);
}

/**
 * Production code may not rebind what the run is judged by, nor have a
 * library do it for it (a helper such as jest-util's setGlobal): refused
 * when a frame of production code is anywhere on the stack, or no code's
 * is. The runner may.
 */
export function replaced(event: string, name: string): void {
  const a = patchOnStack();
  if (a) refuse(event, `${name} = …`, a);
}

/** The objects locked in one realm, each with the names it had (a jest test context has its own). */
export interface Owners {
  all: Locked[];
  byOwner: Map<object, Locked>;
  watched: Watched[];
}
interface Locked {
  owner: object;
  label: string;
  methods: Set<PropertyKey>;
  names: Set<PropertyKey>;
  proto: object | null;
}
/** A property left unlocked for speed, and what it was. */
export interface Watched {
  o: object;
  label: string;
  key: PropertyKey;
  value: unknown;
  get: unknown;
  set: unknown;
}
export const registry = (): Owners => ({ all: list(), byOwner: new Map(), watched: list() });
/** What is locked in this process's own realm. */
export const mainOwners = registry();

/**
 * The accessors lockMethods puts in front of methods. Read through a realm's
 * getOwnPropertyDescriptor(s) (builtins.ts, descriptorViews), each is the
 * data property it stands for, with the value a read gives: libraries copy a
 * method's descriptor with a new value (mimic-fn, execa: `{ ...descriptor,
 * value }`, which pnpm runs) or read its value from it (get-intrinsic). A
 * copy of one on another object is what its setter makes there anyway (a
 * data property). The guarded process methods stay accessors: jest copies
 * process into each test context with its descriptors, and each copy must
 * keep the guard's wrapper in front of what jest assigns.
 */
const guardAccessors = new WeakSet<object>();
const isGuardAccessor = WeakSet.prototype.has;
export const guardAccessor = (fn: unknown): boolean => apply(isGuardAccessor, guardAccessors, [fn]);
const methodAccessor = (a: { get: () => unknown; set: (fn: unknown) => void } & PropertyDescriptor) => {
  guardAccessors.add(a.get);
  guardAccessors.add(a.set);
  return a;
};

/**
 * Locks an object's methods: reading one gives the original, production
 * code assigning one is refused, other code's assignment is kept. `sealed`:
 * nothing can be added to the owner, and its other properties cannot be
 * redefined either (Node's own classes); a built-in prototype stays open to
 * additions, as polyfills make them.
 */
export function lockMethods(owner: any, label: string, sealed: boolean, owners: Owners = mainOwners): void {
  const methods = new Set<PropertyKey>();
  const entry = { owner, label, methods, names: new Set(ownKeys(owner)), proto: getPrototypeOf(owner) };
  owners.byOwner.set(owner, entry);
  owners.all[owners.all.length] = entry;
  for (const key of ownKeys(owner)) {
    const d = getOwnPropertyDescriptor(owner, key)!;
    if (typeof d.value === 'function' && key !== 'constructor') methods.add(key);
    if (!d.configurable) continue;
    if (key === 'constructor' || !('value' in d) || typeof d.value !== 'function') {
      if (sealed) define(owner, key, { configurable: false });
      continue;
    }
    const name = typeof key === 'symbol' ? `[${key.description}]` : key;
    let current = d.value;
    define(
      owner,
      key,
      methodAccessor({
        get: () => current,
        set(this: unknown, fn: unknown) {
          // Assigned on another locked prototype, it would shadow this one's.
          if (this !== owner && !owners.byOwner.has(this as object)) {
            if (objectish(this))
              reflectDefine(this, key, { value: fn, writable: true, enumerable: true, configurable: true });
            return;
          }
          replaced(`${label}.${name} replaced`, `${label}.${name}`);
          if (this === owner) current = fn;
          else reflectDefine(this as object, key, { value: fn, writable: true, enumerable: true, configurable: true });
        },
        enumerable: d.enumerable,
        configurable: false,
      }),
    );
  }
  if (sealed) Object.preventExtensions(owner);
  keepFast(owner);
}

// The well-known symbols: added to a built-in prototype, each changes what a
// built-in operation does (a String.prototype[Symbol.split] is called by
// every split with a string separator).
const WELL_KNOWN = new Set<unknown>(
  Object.getOwnPropertyNames(Symbol)
    .map((k) => (Symbol as unknown as Record<string, unknown>)[k])
    .filter((v) => typeof v === 'symbol'),
);

/**
 * A name added to a locked object that changes what every runner's call
 * meets (by anyone): one over a method one of its prototypes holds, an index
 * or a well-known symbol.
 */
export function shadows(k: PropertyKey, proto: object | null, owners: Owners): boolean {
  let over = isIndex(k) || WELL_KNOWN.has(k);
  for (let p = proto; !over && p !== null; p = getPrototypeOf(p)) over = owners.byOwner.get(p)?.methods.has(k) === true;
  return over;
}

/**
 * By anyone: a name added to a locked object over a method one of its
 * prototypes holds, an index or a well-known symbol added, its prototype
 * swapped, or a watched property changed: each changes what every runner's
 * call meets.
 */
export function checkLocked(owners: Owners): void {
  const all = owners.all;
  for (let e = 0; e < all.length; e++) {
    const { owner, label, names, proto } = all[e];
    if (getPrototypeOf(owner) !== proto) stopRun(`${label} changed`, `${label}'s prototype replaced`);
    const ks = ownKeys(owner);
    if (ks.length === names.size) continue;
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      if (names.has(k)) continue;
      if (shadows(k, proto, owners)) stopRun(`${label} changed`, `${nameOfKey(k)} added to ${label}`);
      names.add(k);
    }
  }
  const watched = owners.watched;
  for (let i = 0; i < watched.length; i++) {
    const w = watched[i];
    const d = getOwnPropertyDescriptor(w.o, w.key);
    if (!d || d.value !== w.value || d.get !== w.get || d.set !== w.set)
      stopRun(`${w.label}.${nameOfKey(w.key)} changed`, `${w.label}.${nameOfKey(w.key)} replaced`);
  }
}

/**
 * A change found at a result is in the runner's own path, where a thrown
 * error would meet the runner (a vitest worker that cannot send its results
 * leaves its pool waiting until the run's timeout): the finding is sent,
 * then the run's process group (its own, which patchwarden made) is ended at
 * once.
 */
export function stopRun(event: string, detail: string): void {
  note(event, detail, { file: '(found at a result)', line: 0 });
  send({ t: 'stop' });
  apply(killGroup, process, [0, 'SIGKILL']);
}
