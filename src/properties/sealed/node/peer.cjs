'use strict';
// One end of a sealed run's channel: the property process and its worker each
// hold one (a socket pair the worker inherits as fd 3). Values cross as data
// (codec below); a call blocks its thread with a blocking read of the socket,
// serving whatever calls the other side makes meanwhile (callbacks run on
// the side that owns them, re-entrantly), so a call returns synchronously
// and a dead peer is an end of file, never a hang.
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const { inspect, types } = require('node:util');

const MODE = 'patchwarden sealed mode';
const WELL_KNOWN = new Map(
  ['iterator', 'asyncIterator', 'hasInstance', 'toPrimitive', 'toStringTag', 'species', 'isConcatSpreadable'].map(
    (n) => [Symbol[n], n],
  ),
);
const ERRORS = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError, AggregateError };
const TYPED = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];
const WELL_KNOWN_BY_NAME = Object.fromEntries([...WELL_KNOWN].map(([s, n]) => [n, s]));
const TYPED_BY_NAME = new Map(TYPED.map((t) => [t.name, t]));
/** This folder's files are the runtime's own: their frames leave a crossed stack. */
const OWN = path.dirname(__filename) + path.sep;
const now = process.hrtime.bigint;

/** A TypeError for what a handle cannot do: its answer would come from production code. */
function refuse(what) {
  return new TypeError(`${MODE}: ${what} is not available in a sealed run (compare data, not handles)`);
}

/** A function defined on the object with no crossing: a handle's value is never its truth. */
const REFUSE_PRIMITIVE = new Set([Symbol.toPrimitive, 'valueOf', 'toString', 'toJSON']);
/** Fields and methods that convert a value: production code's answer to them never crosses. */
const CONVERSIONS = new Set(['valueOf', 'toString', 'toLocaleString', 'toJSON']);
/** Names the property side never serves: each leads from a handed value to its realm (Function, callers). */
const UNSERVED = new Set(['constructor', '__proto__', 'prototype', 'caller', 'arguments']);
/** What compiles code in this realm: never a handle, even when the test passes one. */
const EVALUATORS = new Set([
  Function,
  Object.getPrototypeOf(async () => {}).constructor,
  Object.getPrototypeOf(function* () {}).constructor,
  Object.getPrototypeOf(async function* () {}).constructor,
  // biome-ignore lint/security/noGlobalEval: a value kept from the worker, never called
  eval,
]);
let realm = null;

/**
 * The property process's built-ins: everything reachable from globalThis and
 * the function constructors by own properties (values and accessors, never
 * calling a getter) and prototypes. Collected once, before any test code runs.
 */
function intrinsics() {
  if (realm) return realm;
  realm = new Set();
  const todo = [globalThis, ...EVALUATORS];
  while (todo.length > 0) {
    const v = todo.pop();
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || realm.has(v)) continue;
    realm.add(v);
    todo.push(Object.getPrototypeOf(v));
    for (const k of Reflect.ownKeys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, k);
      if (d) todo.push(d.value, d.get, d.set);
    }
  }
  return realm;
}

class Peer {
  /**
   * @param {{ fd: number, handle: { setBlocking(b: boolean): number }, socket: import('node:net').Socket,
   *   side: 'property' | 'worker', serve?: (msg: object) => unknown, onEnd?: () => void }} o
   */
  constructor(o) {
    this.fd = o.fd;
    this.handle = o.handle;
    this.socket = o.socket;
    this.side = o.side;
    this.serveExtra = o.serve ?? null;
    this.onEnd = o.onEnd ?? null;
    /** What arrived and is not yet a whole frame: chunks, joined once a frame is whole. */
    this.chunks = [];
    this.have = 0;
    this.ended = null;
    this.nextId = 1;
    this.nextQ = 1;
    /** Time spent in calls to the other side, the outermost ones only (ns), for the run's cost line. */
    this.inCalls = 0n;
    this.depth = 0;
    /** Local objects the other side holds handles to, both ways. */
    this.locals = new Map();
    this.localIds = new Map();
    /** Proxies of the other side's objects, by id, and back. */
    this.remotes = new Map();
    this.remoteIds = new WeakMap();
    /** Stand-in prototypes of the other side's classes (records and errors), by class id. */
    this.standIns = new Map();
    this.standInClass = new WeakMap();
    /** Promises the other side will settle. */
    this.pending = new Map();
    /** What the other side said of each handle it sent (name, kind, class). */
    this.infos = new Map();
    this.crossed = new WeakSet();
    /** Property side: what the test handed the worker (the only objects a request may use), and the first refusal. */
    this.handed = new WeakSet();
    this.handing = 0;
    this.refusal = null;
    this.waiting = 0;
    this.chunk = null;
    this.replies = new Map();
    this.socket.on('data', (d) => {
      this.append(d);
      this.pump();
    });
    this.socket.on('end', () => this.end('the channel closed'));
    this.socket.on('error', (e) => this.end(e.message));
    this.release();
  }

  /** The property process waits on the channel only for promises the worker owes it; the worker lives by it. */
  release() {
    if (this.side === 'property') this.socket.unref();
  }

  end(why) {
    if (this.ended) return;
    this.ended = why;
    for (const { reject } of this.pending.values()) reject(this.deadError());
    this.pending.clear();
    this.release();
    this.onEnd?.();
  }

  deadError() {
    return new Error(
      `${MODE}: the ${this.side === 'property' ? 'sealed worker' : 'property process'} ended (${this.ended}); its stderr above says why`,
    );
  }

  // --- frames -------------------------------------------------------------

  send(msg) {
    if (this.ended) throw this.deadError();
    const body = v8.serialize(msg);
    const all = Buffer.allocUnsafe(4 + body.length);
    all.writeUInt32LE(body.length, 0);
    body.copy(all, 4);
    try {
      // A frame that fits in the socket's buffer goes out at once, without
      // the two system calls that make the socket blocking and back.
      let off = this.waiting === 0 ? writeSome(this.fd, all) : 0;
      if (off === all.length) return;
      this.blocking(true);
      try {
        while (off < all.length) off += fs.writeSync(this.fd, all, off);
      } finally {
        this.blocking(false);
      }
    } catch (e) {
      this.end(e.message);
      throw this.deadError();
    }
  }

  blocking(on) {
    if (on ? this.waiting++ === 0 : --this.waiting === 0) this.handle.setBlocking(on);
  }

  append(d) {
    this.chunks.push(d);
    this.have += d.length;
  }

  /** The next whole frame received, or null. */
  take() {
    if (this.have < 4) return null;
    if (this.chunks[0].length < 4) this.chunks = [Buffer.concat(this.chunks)];
    const n = this.chunks[0].readUInt32LE(0);
    if (this.have < 4 + n) return null;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const rest = all.subarray(4 + n);
    this.chunks = rest.length ? [rest] : [];
    this.have = rest.length;
    return v8.deserialize(all.subarray(4, 4 + n));
  }

  /** Handles every whole frame buffered (asynchronous arrivals). */
  pump() {
    for (let m = this.take(); m !== null; m = this.take()) this.handleFrame(m);
  }

  handleFrame(m) {
    if (m.t === 'call') this.serve(m);
    else if (m.t === 'settle') this.settle(m);
    else if (m.t === 'ok' || m.t === 'err') this.replies.set(m.q, m);
  }

  /** Blocks until the answer to call `q` arrives, serving the other side meanwhile. */
  wait(q) {
    // One read buffer for the peer: what is read is copied out before anything else runs.
    const chunk = (this.chunk ??= Buffer.allocUnsafe(1 << 16));
    this.blocking(true);
    try {
      for (;;) {
        const m = this.take();
        if (m !== null) {
          this.handleFrame(m);
          const r = this.replies.get(q);
          if (r) {
            this.replies.delete(q);
            return r;
          }
          continue;
        }
        if (this.ended) throw this.deadError();
        let n;
        try {
          n = fs.readSync(this.fd, chunk);
        } catch (e) {
          if (e.code === 'EAGAIN' || e.code === 'EINTR') continue;
          this.end(e.message);
          throw this.deadError();
        }
        if (n === 0) {
          this.end('end of file on the channel');
          throw this.deadError();
        }
        this.append(Buffer.from(chunk.subarray(0, n)));
      }
    } finally {
      this.blocking(false);
      // Frames that came with the answer are served once this call returns.
      if (this.have >= 4) setImmediate(() => this.pump());
    }
  }

  /** A synchronous call into the other side. */
  call(op, fields) {
    const q = this.nextQ++;
    const start = this.depth++ === 0 ? now() : 0n;
    // Blocking once for the call's send and its wait: each switch is a system call.
    this.blocking(true);
    let r;
    try {
      this.send({ t: 'call', q, op, ...fields });
      r = this.wait(q);
    } finally {
      this.blocking(false);
      if (--this.depth === 0) this.inCalls += now() - start;
    }
    if (this.refusal) throw this.refusal;
    const v = this.dec(r.v);
    if (r.t === 'err') throw this.crossedError(v, callers());
    return v;
  }

  /** Values the test hands the worker (a call's arguments): a native function it passes may be called there. */
  handOver(encode) {
    this.handing++;
    try {
      return encode();
    } finally {
      this.handing--;
    }
  }

  serve(m) {
    let reply;
    try {
      reply = { t: 'ok', q: m.q, v: this.enc(this.side === 'property' ? this.performHanded(m) : this.perform(m)) };
    } catch (e) {
      reply = { t: 'err', q: m.q, v: this.enc(e) };
    }
    this.send(reply);
  }

  /**
   * The property side serves the worker only calls of what the test handed
   * it and reads of data on that: a request that reaches further is refused,
   * and the refusal fails the property's next call into the worker (or the
   * promise it awaits), whatever production code does with the error.
   */
  performHanded(m) {
    const target = this.locals.get(m.id);
    const k = typeof m.k === 'string' ? m.k : m.k && Object.hasOwn(WELL_KNOWN_BY_NAME, m.k.y) ? Symbol[m.k.y] : null;
    const what = `${m.op} ${typeof k === 'string' ? `'${k}' ` : ''}on a value of the property process`;
    if (!this.handed.has(target) || (m.op !== 'apply' && m.op !== 'new' && (k === null || UNSERVED.has(k))))
      throw this.refused(what);
    switch (m.op) {
      case 'apply':
        if (typeof target !== 'function') throw this.refused(what);
        return Reflect.apply(target, this.dec(m.this), this.dec(m.args));
      case 'new':
        if (typeof target !== 'function' || isNative(target)) throw this.refused(what);
        return Reflect.construct(target, this.dec(m.args));
      case 'get':
        return this.ownedBy(target, k, what) ? Reflect.get(target, k) : undefined;
      case 'has':
        return this.ownedBy(target, k, what);
      case 'set':
        if (intrinsics().has(target)) throw this.refused(what);
        this.ownedBy(target, k, what);
        return Reflect.set(target, k, this.dec(m.v));
      default:
        throw this.refused(what);
    }
  }

  /** Whether `k` is on `o` or a prototype of the test's below the built-in ones; refused when a built-in holds it. */
  ownedBy(o, k, what) {
    const realm = intrinsics();
    for (let p = o; p !== null; p = Object.getPrototypeOf(p)) {
      if (realm.has(p)) {
        if (k in p) throw this.refused(what);
        return false;
      }
      if (Object.hasOwn(p, k)) return true;
    }
    return false;
  }

  /** A refusal of the property side: the first one is kept, and fails the property at its next crossing. */
  refused(what) {
    const e = refuse(`${what} (only what the test passed is served)`);
    if (!this.refusal) {
      this.refusal = e;
      process.stderr.write(`${e.message}\n`);
    }
    return e;
  }

  perform(m) {
    const key = (k) => (typeof k === 'string' ? k : Symbol[k.y]);
    switch (m.op) {
      case 'apply':
        return Reflect.apply(this.local(m.id), this.dec(m.this), this.dec(m.args));
      case 'new':
        return Reflect.construct(this.local(m.id), this.dec(m.args));
      case 'get':
        return Reflect.get(this.local(m.id), key(m.k));
      case 'set':
        return Reflect.set(this.local(m.id), key(m.k), this.dec(m.v));
      case 'has':
        return Reflect.has(this.local(m.id), key(m.k));
      case 'method': {
        // A record's method: run on an instance rebuilt from the fields, which come back with the result.
        const self = Object.create(this.local(m.id).prototype);
        this.assign(self, m.v);
        const r = Reflect.apply(self[m.k], self, this.dec(m.args));
        return { r, f: Object.fromEntries(Object.keys(self).map((k) => [k, self[k]])) };
      }
      default:
        if (this.serveExtra) return this.serveExtra(m);
        throw new Error(`${MODE}: unknown request ${m.op}`);
    }
  }

  local(id) {
    if (!this.locals.has(id)) throw new Error(`${MODE}: no object ${id} on this side`);
    return this.locals.get(id);
  }

  // --- promises -----------------------------------------------------------

  settle(m) {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.release();
    if (this.refusal) return p.reject(this.refusal);
    const v = this.dec(m.v);
    if (m.ok) p.resolve(v);
    else p.reject(this.crossedError(v, p.callers));
  }

  encPromise(p) {
    const id = this.nextId++;
    const done = (ok) => (v) => {
      if (this.ended) return;
      let enc;
      try {
        enc = this.enc(v);
      } catch (e) {
        ok = false;
        enc = this.enc(e);
      }
      this.send({ t: 'settle', id, ok, v: enc });
    };
    Promise.prototype.then.call(p, done(true), done(false));
    return { $: 'p', id };
  }

  decPromise(id) {
    // Who awaits it, as the call that returned it saw them: a rejection's stack ends with them.
    const at = callers();
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(this.deadError());
      this.pending.set(id, { resolve, reject, callers: at });
      this.socket.ref();
    });
  }

  // --- the codec: encoding ------------------------------------------------

  enc(v, seen = new Set()) {
    switch (typeof v) {
      case 'undefined':
      case 'boolean':
      case 'number':
      case 'string':
      case 'bigint':
        return v;
      case 'symbol':
        return WELL_KNOWN.has(v) ? { $: 'y', y: WELL_KNOWN.get(v) } : this.handleOf(v, 'symbol');
      case 'function':
        return this.remoteIds.has(v) ? { $: 'R', id: this.remoteIds.get(v) } : this.handleOf(v, 'function');
    }
    if (v === null) return null;
    if (this.remoteIds.has(v)) return { $: 'R', id: this.remoteIds.get(v) };
    if (seen.has(v)) return this.handleOf(v, 'object');
    seen.add(v);
    try {
      return this.encObject(v, seen);
    } finally {
      seen.delete(v);
    }
  }

  encObject(v, seen) {
    const e = (x) => this.enc(x, seen);
    if (Array.isArray(v)) return { $: 'a', v: Array.from(v, e) };
    const proto = Object.getPrototypeOf(v);
    // The common case first: an object literal is data, whatever else it holds.
    if (proto === Object.prototype && !types.isProxy(v)) return { $: 'o', n: false, v: this.fields(v, seen) };
    if (types.isPromise(v)) return this.encPromise(v);
    if (types.isDate(v)) return { $: 'd', v: Date.prototype.getTime.call(v) };
    if (types.isMap(v)) return { $: 'm', v: Array.from(Map.prototype.entries.call(v), ([k, x]) => [e(k), e(x)]) };
    if (types.isSet(v)) return { $: 's', v: Array.from(Set.prototype.values.call(v), e) };
    if (types.isRegExp(v)) return { $: 'x', s: v.source, f: v.flags };
    if (ArrayBuffer.isView(v) && !types.isDataView(v)) {
      const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
      const kind = Buffer.isBuffer(v) ? 'Buffer' : TYPED.find((t) => v instanceof t)?.name;
      if (kind) return { $: 'b', k: kind, v: bytes };
    }
    if (types.isArrayBuffer(v)) return { $: 'B', v: new Uint8Array(v).slice() };
    if (types.isNativeError(v) || v instanceof Error) return this.encError(v, seen);
    if (proto === null || proto === Object.prototype || isPlainData(v, proto))
      return { $: 'o', n: proto === null, v: this.fields(v, seen) };
    const standIn = this.standInClass.get(proto);
    if (standIn !== undefined) return { $: 'r', c: { $: 'R', id: standIn }, v: this.fields(v, seen) };
    if (this.side === 'worker' && isRecord(v, proto))
      return { $: 'r', c: this.handleOf(proto.constructor, 'function'), v: this.fields(v, seen) };
    return this.handleOf(v, 'object');
  }

  /** Own enumerable fields, flat: name, value, name, value... */
  fields(v, seen, skip = null) {
    const out = [];
    for (const k of Object.keys(v)) if (skip === null || !skip.includes(k)) out.push(k, this.enc(v[k], seen));
    return out;
  }

  encError(v, seen) {
    let base = 'Error';
    for (let p = Object.getPrototypeOf(v); p !== null; p = Object.getPrototypeOf(p)) {
      const name = Object.hasOwn(p, 'constructor') && p.constructor?.name;
      if (name in ERRORS && ERRORS[name].prototype === p) {
        base = name;
        break;
      }
    }
    const ctor = Object.getPrototypeOf(v)?.constructor;
    const own = typeof ctor === 'function' && ERRORS[base] !== ctor;
    const id = this.register(v);
    const get = (k) => {
      try {
        return v[k];
      } catch {
        return undefined;
      }
    };
    return {
      $: 'e',
      id,
      n: base,
      c: own ? this.enc(ctor, seen) : null,
      m: String(get('message') ?? ''),
      s: typeof get('stack') === 'string' ? get('stack') : '',
      f: this.fields(v, seen, ['message', 'stack']),
      a: base === 'AggregateError' && Array.isArray(get('errors')) ? this.enc(get('errors'), seen) : null,
    };
  }

  /**
   * A handle the property side gives the worker: never a built-in of this
   * process or one that compiles code; a native function only as a value
   * the test passes in a call (a callback such as Number), never as what a
   * request fetched.
   */
  handedOver(v) {
    const builtin = EVALUATORS.has(v) || intrinsics().has(v) || (typeof v === 'function' && isNative(v));
    if (builtin && this.handing === 0)
      throw this.refused('a built-in of the property process as the answer to a request');
    if (builtin && (EVALUATORS.has(v) || typeof v !== 'function'))
      throw refuse('a built-in of the property process as a value for production code');
    this.handed.add(v);
  }

  register(v) {
    let id = this.localIds.get(v);
    if (id === undefined) {
      id = this.nextId++;
      this.locals.set(id, v);
      this.localIds.set(v, id);
    }
    return id;
  }

  handleOf(v, kind) {
    if (this.side === 'property' && kind !== 'symbol') this.handedOver(v);
    const id = this.register(v);
    const h = { $: 'h', id, k: kind, n: '' };
    if (kind === 'function') {
      h.n = typeof v.name === 'string' ? v.name : '';
      const proto = Object.hasOwn(v, 'prototype') ? v.prototype : null;
      h.c = proto !== null && typeof proto === 'object';
      if (h.c && (proto instanceof Error || v === Error)) {
        h.e = Object.values(ERRORS).find(
          (E) => proto instanceof E && !(Object.getPrototypeOf(E.prototype) instanceof E),
        )?.name;
        h.en = typeof proto.name === 'string' ? proto.name : h.n;
      }
      if (h.c && !isNative(v)) h.m = methodNames(proto);
    } else if (kind === 'object') {
      const proto = Object.getPrototypeOf(v);
      const ctor = proto !== null && Object.hasOwn(proto, 'constructor') ? proto.constructor : undefined;
      h.n = typeof ctor === 'function' && typeof ctor.name === 'string' ? ctor.name : 'Object';
      // The worker gets no handle to a class of the property's that the test did not pass.
      if (this.side === 'worker' && typeof ctor === 'function' && ctor.prototype === proto && !isNative(ctor))
        h.cls = this.handleOf(ctor, 'function');
    }
    return h;
  }

  // --- the codec: decoding (builds base types only) ----------------------

  dec(x) {
    if (x === null || typeof x !== 'object') return x;
    const d = (y) => this.dec(y);
    switch (x.$) {
      case 'a':
        return x.v.map(d);
      case 'o': {
        const o = x.n ? Object.create(null) : {};
        this.assign(o, x.v);
        return o;
      }
      case 'd':
        return new Date(x.v);
      case 'm':
        return new Map(x.v.map(([k, y]) => [d(k), d(y)]));
      case 's':
        return new Set(x.v.map(d));
      case 'x':
        return new RegExp(x.s, x.f);
      case 'b':
        return decBytes(x.k, x.v);
      case 'B':
        return new Uint8Array(x.v).buffer;
      case 'y':
        return Symbol[x.y];
      case 'p':
        return this.decPromise(x.id);
      case 'R':
        return this.local(x.id);
      case 'h':
        return this.proxy(x);
      case 'r':
        return this.decRecord(x);
      case 'e':
        return this.decError(x);
      default:
        throw new Error(`${MODE}: unknown value on the channel`);
    }
  }

  decRecord(x) {
    const cls = this.dec(x.c);
    const id = this.remoteIds.get(cls);
    const proto = id !== undefined ? this.standInProto(id, cls) : typeof cls === 'function' ? cls.prototype : null;
    const o = Object.create(proto ?? Object.prototype);
    this.assign(o, x.v);
    return o;
  }

  /**
   * Decoded fields onto `o`. A field that would convert the value (valueOf,
   * toString, toJSON) and holds the other side's function is refused, not
   * called there: a comparison's answer is never production code's.
   */
  assign(o, fields) {
    for (let i = 0; i < fields.length; i += 2) {
      const k = fields[i];
      let v = this.dec(fields[i + 1]);
      if (CONVERSIONS.has(k) && typeof v === 'function' && this.remoteIds.has(v)) {
        const what = `${k} of a production object`;
        v = () => {
          throw refuse(what);
        };
      }
      if (k === '__proto__')
        Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      else o[k] = v;
    }
  }

  decError(x) {
    const Base = Object.hasOwn(ERRORS, x.n) ? ERRORS[x.n] : Error;
    const err = x.n === 'AggregateError' ? new Base(x.a ? this.dec(x.a) : [], x.m) : new Base(x.m);
    if (x.c !== null) {
      const cls = this.dec(x.c);
      const id = this.remoteIds.get(cls);
      const proto = id !== undefined ? this.standInProto(id, cls) : typeof cls === 'function' ? cls.prototype : null;
      if (proto) Object.setPrototypeOf(err, proto);
    }
    this.assign(err, x.f);
    Object.defineProperty(err, 'stack', { value: x.s, writable: true, configurable: true });
    this.remotes.set(x.id, err);
    this.remoteIds.set(err, x.id);
    return err;
  }

  /** An error thrown across: the other side's frames, then this side's callers (as an unsealed stack reads). */
  crossedError(v, ours) {
    if (!(v instanceof Error) || !this.remoteIds.has(v) || this.crossed.has(v) || typeof v.stack !== 'string') return v;
    this.crossed.add(v);
    const theirs = v.stack.split('\n');
    const cut = theirs.findIndex((l) => /^\s+at /.test(l) && l.includes(OWN));
    const head = cut < 0 ? theirs : theirs.slice(0, cut);
    const frames = head.filter((l) => /^\s+at /.test(l)).length;
    v.stack = [...head, ...ours.slice(0, Math.max(0, Error.stackTraceLimit - frames))].join('\n');
    return v;
  }

  /** The prototype every record and error of one production class gets here, so two compare equal. */
  standInProto(id, cls) {
    let proto = this.standIns.get(id);
    if (proto) return proto;
    const info = this.infos.get(id);
    if (info?.e) {
      const Base = ERRORS[info.e] ?? Error;
      const name = info.n || 'Error';
      const Stand = { [name]: class extends Base {} }[name];
      Object.defineProperty(Stand.prototype, 'name', { value: info.en, writable: true, configurable: true });
      proto = Stand.prototype;
    } else {
      proto = Object.create(Object.prototype);
      Object.defineProperty(proto, 'constructor', { value: cls, writable: true, configurable: true });
    }
    for (const k of info?.m ?? []) {
      const value = CONVERSIONS.has(k)
        ? () => {
            throw refuse(`${k} of a production ${info.n}`);
          }
        : this.recordMethod(id, k);
      Object.defineProperty(proto, k, { value, writable: true, configurable: true });
    }
    this.standIns.set(id, proto);
    this.standInClass.set(proto, id);
    return proto;
  }

  /** A method of a stand-in record: a call into the worker on the record's fields, whose new values it takes back. */
  recordMethod(id, k) {
    const peer = this;
    return {
      [k](...args) {
        const sent = peer.handOver(() => ({ id, k, v: peer.fields(this, new Set()), args: peer.enc(args) }));
        const { r, f } = peer.call('method', sent);
        for (const [name, v] of Object.entries(f))
          Object.defineProperty(this, name, { value: v, enumerable: true, writable: true, configurable: true });
        return r;
      },
    }[k];
  }

  /** A handle: every use is a call into the other side; its value as a primitive is refused. */
  proxy(h) {
    const known = this.remotes.get(h.id);
    if (known) return known;
    this.infos.set(h.id, h);
    const peer = this;
    const what = `${h.k} ${h.n || '(anonymous)'}`;
    const label = `[${MODE} handle: ${what}]`;
    // An instance's handle has its class's stand-in prototype: `instanceof` answers here.
    // (A function declaration: the target of a class's handle must be constructible.)
    function callable() {}
    const target =
      h.k === 'function' ? callable : Object.create(h.cls ? this.standInProto(h.cls.id, this.proxy(h.cls)) : null);
    if (h.k === 'function') Object.defineProperty(target, 'name', { value: h.n });
    Object.defineProperty(target, inspect.custom, { value: () => label });
    const keyOf = (k) => (typeof k === 'string' ? k : WELL_KNOWN.has(k) ? { y: WELL_KNOWN.get(k) } : null);
    const p = new Proxy(target, {
      get(_t, k) {
        if (REFUSE_PRIMITIVE.has(k))
          return () => {
            throw refuse(`${k === Symbol.toPrimitive ? 'the primitive value' : String(k)} of a production ${what}`);
          };
        if (k === 'then' || k === inspect.custom) return k === 'then' ? undefined : target[k];
        if (h.k === 'function' && k === 'name') return h.n;
        // instanceof answers here, from the stand-in prototype (below).
        if (h.k === 'function' && k === Symbol.hasInstance) return undefined;
        if (h.k === 'function' && k === 'prototype' && h.c) return peer.standInProto(h.id, p);
        const key = keyOf(k);
        return key === null ? undefined : peer.call('get', { id: h.id, k: key });
      },
      set(_t, k, v) {
        const key = keyOf(k);
        if (key === null) return false;
        return peer.call('set', { id: h.id, k: key, v: peer.handOver(() => peer.enc(v)) });
      },
      has(_t, k) {
        const key = keyOf(k);
        return key !== null && peer.call('has', { id: h.id, k: key });
      },
      apply(_t, self, args) {
        const sent = peer.handOver(() => ({ id: h.id, this: peer.enc(self), args: peer.enc(args) }));
        return peer.call('apply', sent);
      },
      construct(_t, args) {
        return peer.call('new', { id: h.id, args: peer.handOver(() => peer.enc(args)) });
      },
    });
    this.remotes.set(h.id, p);
    this.remoteIds.set(p, h.id);
    return p;
  }
}

/** What a write to the non-blocking socket took of `buf` (0 when its buffer is full). */
function writeSome(fd, buf) {
  try {
    return fs.writeSync(fd, buf);
  } catch (e) {
    if (e.code === 'EAGAIN') return 0;
    throw e;
  }
}

/** A plain-field instance of a class the project wrote: own enumerable data fields, no accessors on its class. */
function isRecord(v, proto) {
  const ctor = Object.hasOwn(proto, 'constructor') ? proto.constructor : undefined;
  if (typeof ctor !== 'function' || ctor.prototype !== proto || isNative(ctor)) return false;
  if (types.isProxy(v) || types.isGeneratorObject(v) || types.isBoxedPrimitive(v)) return false;
  for (const k of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, k);
    if (typeof k !== 'string' || !d.enumerable || !('value' in d)) return false;
  }
  for (let p = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const k of Reflect.ownKeys(p)) if (!('value' in Object.getOwnPropertyDescriptor(p, k))) return false;
  return true;
}

/** The frames of this side's stack that are not the runtime's own. */
function callers() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = limit + 20;
  const here = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return here
    .split('\n')
    .slice(1)
    .filter((l) => !l.includes(OWN));
}

/** An ordinary object whose prototype is no class's (Object.create(x)): data, arriving plain. */
function isPlainData(v, proto) {
  if (Object.hasOwn(proto, 'constructor') || types.isGeneratorObject(v) || types.isProxy(v)) return false;
  return Object.prototype.toString.call(v) === '[object Object]';
}

/** The methods a record's class gives it, along its prototypes (its conversions are refused here). */
function methodNames(proto) {
  const names = new Set();
  for (let p = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const k of Object.getOwnPropertyNames(p)) {
      const d = Object.getOwnPropertyDescriptor(p, k);
      if (k !== 'constructor' && typeof d.value === 'function') names.add(k);
    }
  return [...names];
}

function isNative(fn) {
  try {
    return /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(fn));
  } catch {
    return true;
  }
}

function decBytes(kind, bytes) {
  if (kind === 'Buffer') return Buffer.from(bytes);
  const T = TYPED_BY_NAME.get(kind) ?? Uint8Array;
  const copy = new Uint8Array(bytes).buffer;
  return new T(copy, 0, copy.byteLength / T.BYTES_PER_ELEMENT);
}

module.exports = { Peer, MODE, intrinsics };
