// A worker's results reach its pool over IPC (process.send, a MessagePort):
// production code may not wrap it, nor send on a worker process's channel.
// (Node posts a worker thread's console output through a MessagePort on the
// caller's stack, so posting stays allowed.)
// biome-ignore-all lint/suspicious/noExplicitAny: a message of any shape, and Node's channel handle
import workerThreads from 'node:worker_threads';
import { type CallJudge, checkLocked, guarded, mainOwners, never } from './locks.js';
import {
  apply,
  define,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isArray,
  isDate,
  isUint8Array,
  keys,
  list,
  readOnly,
} from './taken.js';

// A value as JSON.stringify reads it, copied into objects and arrays with no
// prototype: a Buffer as its own toJSON makes it (read byte by byte), a Date
// as its ISO string; a toJSON on the value itself or on a class of the
// runner's is called as JSON would, one on a built-in prototype (Node
// defines none there but Buffer's and Date's) is not. Built only of what the
// guard took before project code loaded: production code may have replaced
// any prototype's method since.
const BUILTIN = new Set<unknown>(
  [Object, Array, Function, Error, Map, Set, RegExp, Promise, Number, String, Boolean, ArrayBuffer, DataView, Date]
    .map((C) => C.prototype)
    .concat(Object.getPrototypeOf(Uint8Array.prototype), Uint8Array.prototype, Buffer.prototype),
);
const builtin = (o: unknown) => apply(Set.prototype.has, BUILTIN, [o]);
const byteLength = getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype), 'length')!.get!;
const { getTime, toISOString } = Date.prototype;
const BufferProto = Buffer.prototype;

function toJSONOf(v: object): unknown {
  for (let o: object | null = v; o !== null; o = getPrototypeOf(o)) {
    const d = getOwnPropertyDescriptor(o, 'toJSON');
    if (!d) continue;
    if (o !== v && builtin(o)) return undefined;
    return 'value' in d ? d.value : d.get ? apply(d.get, v, []) : undefined;
  }
  return undefined;
}

/** A value as JSON.stringify reads it, as plain data with no prototypes (`stack`: the objects being copied). */
export function plainData(v: any, stack: unknown[]): any {
  if (v === null || typeof v !== 'object') return v;
  for (let i = 0; i < stack.length; i++) if (stack[i] === v) return v;
  if (isUint8Array(v) && getPrototypeOf(v) === BufferProto) {
    const n = apply(byteLength, v, []);
    const data = list<number>();
    for (let i = 0; i < n; i++) data[i] = v[i];
    const out: any = { __proto__: null, type: 'Buffer' };
    out.data = data;
    return out;
  }
  if (isDate(v)) {
    const t = apply(getTime, v, []);
    return t - t === 0 ? apply(toISOString, v, []) : null;
  }
  const toJSON = toJSONOf(v);
  if (typeof toJSON === 'function') return plainData(apply(toJSON, v, ['']), stack);
  stack[stack.length] = v;
  let out: any;
  if (isArray(v)) {
    out = list();
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      out[i] = x === undefined || typeof x === 'function' || typeof x === 'symbol' ? null : plainData(x, stack);
    }
  } else {
    out = { __proto__: null };
    const ks = keys(v);
    for (let i = 0; i < ks.length; i++) {
      const x = v[ks[i]];
      if (x !== undefined && typeof x !== 'function' && typeof x !== 'symbol') out[ks[i]] = plainData(x, stack);
    }
  }
  stack.length--;
  return out;
}

const fromPatch: CallJudge = (_, who) => who().kind === 'patch';

/**
 * Below process.send, Node writes each message through the channel's pipe
 * handle, which hangs on process under a symbol: its write methods are fixed
 * and the property made read-only. Returns whether the channel is a JSON one.
 */
function fixChannel(): boolean {
  const handleKey = Object.getOwnPropertySymbols(process).find((s) => s.description === 'kChannelHandle');
  const channel = handleKey ? (process as any)[handleKey] : null;
  if (!channel || typeof channel !== 'object') return false;
  readOnly(process, handleKey!);
  // Its write methods, fixed on the handle and its prototypes up to the one
  // that holds each (Node assigns other methods, such as onread, on each
  // handle it makes, so the prototypes are not frozen whole).
  const WRITES = [
    'writev',
    'writeBuffer',
    'writeUtf8String',
    'writeLatin1String',
    'writeAsciiString',
    'writeUcs2String',
  ];
  for (const name of WRITES) {
    const fn = channel[name];
    if (typeof fn !== 'function') continue;
    for (let p = channel; p !== null; p = Object.getPrototypeOf(p)) {
      const owns = Object.hasOwn(p, name);
      define(p, name, { value: fn, writable: false, configurable: false, enumerable: false });
      if (owns) break;
    }
  }
  return Object.getOwnPropertySymbols(channel).some((s) => s.description === 'kJSONBuffer');
}

/**
 * On a JSON channel (vitest's tinypool, mocha's workerpool; jest-worker's is
 * v8-serialized) JSON.stringify would call every toJSON it finds on the
 * message's way, on prototypes production code can reach (Buffer's,
 * Object's, Array's): the message is handed to Node as a copy of plain data
 * instead, with no prototype, so that what the runner sends is what arrives.
 * Each message a worker sends its pool is a result on its way: the locked
 * built-ins are checked first.
 */
export function guardIpc(): void {
  const json = fixChannel();
  const sendJudge: CallJudge = json
    ? (args, who) => {
        checkLocked(mainOwners);
        if (fromPatch(args, who)) return true;
        // The message the runner sends, as JSON would read it (the call's own argument list).
        args[0] = plainData(args[0], list());
        return false;
      }
    : (args, who) => {
        checkLocked(mainOwners);
        return fromPatch(args, who);
      };
  guarded(process, 'send', 'process.send', fromPatch);
  guarded(process, '_send', 'process._send', sendJudge);
  guarded(workerThreads.MessagePort.prototype, 'postMessage', 'MessagePort.postMessage', never);
}
