// patchwarden's runtime guard for one Node property run, preloaded through
// NODE_OPTIONS (--require) in every Node process of the run, before any
// project code. It keeps production code from ending the process, killing,
// aborting or loading bindings (process.exit, reallyExit, kill, abort,
// binding, _linkedBinding), from starting processes, from touching the test
// report or the guard's folder, from replacing node:assert, and from
// rewriting the results a worker sends its pool (its IPC, v8's serializer,
// the channel's pipe, node's stream prototypes, node:test's reporter, the
// built-in prototypes in every realm), jest-circus's state or vitest's
// tests, worker state and expect; it keeps globalThis.process, the global
// names of the built-ins, those methods and the test frameworks' globals
// and exports (node:test, mocha, jest, vitest) from being rebound, inside
// the vm contexts jest runs tests in too; vitest's vm pools are refused.
// Who asked is read from the stack, which production code can neither hide
// frames from nor fill with code compiled under another file's name. Each
// refusal is a record on the run's channel and an error thrown at the call;
// under node --test and vitest each failure the runner settles is a record
// too, which the report must agree with; the last record says the process
// ended through the guard (or was ended by its pool).
'use strict';
(() => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { fileURLToPath } = require('node:url');
  const { threadId, isMainThread, parentPort } = require('node:worker_threads');
  const where = process.env.PATCHWARDEN_GUARD;
  if (!where) return;
  const cfg = JSON.parse(fs.readFileSync(where, 'utf8'));
  const fd = fs.openSync(cfg.channel, 'w');
  const writeSync = fs.writeSync;
  const killGroup = process.kill;
  const stringify = JSON.stringify;
  const id = threadId ? `${process.pid}.${threadId}` : String(process.pid);
  const send = (rec, pid = id) => {
    try {
      // No prototype: an Object.prototype.toJSON cannot rewrite a record.
      writeSync(fd, stringify({ __proto__: null, ...rec, pid }) + '\n');
    } catch {
      /* the channel is gone: no final record, the run fails closed */
    }
  };
  // The module.register hooks thread runs this preload too, and ends with its
  // process without an exit event: it says so, and its process's main thread's
  // final record stands for it (records.ts).
  const hooksThread = !isMainThread && parentPort === null;
  send({ t: 'start', rt: 'node', v: process.versions.node, ...(hooksThread ? { hooks: true } : {}) });
  if (Number(process.versions.node.split('.')[0]) < 20) {
    send({
      t: 'finding',
      event: 'node',
      detail: `Node ${process.versions.node} is older than 20, which the guard needs`,
      file: '',
      line: 0,
    });
    return;
  }
  // The names mocha, jest and vitest (with `globals`) give tests.
  const FRAMEWORK_GLOBALS = [
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
  // The global names of the built-ins, fixed in every realm tests run in
  // (fixBindings, below).
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
  const trusted = new Set(cfg.trusted);
  const tree = cfg.tree;
  const report = cfg.report;
  const guardFile = __filename;
  // A sealed run's runtimes (proxies, worker): patchwarden's own code the run
  // loads, acting for the runner as an installed package does.
  const runtime = typeof cfg.runtime === 'string' ? cfg.runtime : null;
  const capture = Error.captureStackTrace;
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const { getPrototypeOf, setPrototypeOf, keys, getOwnPropertyDescriptor } = Object;
  const isArray = Array.isArray;
  // What the guard calls once project code runs is taken now: production
  // code may replace a module's exports, and a string method with a
  // separator or a regular expression meets hooks it can add
  // (String.prototype[Symbol.split], RegExp.prototype.exec).
  const realpath = fs.realpathSync;
  const realpathNative = fs.realpathSync.native;
  const { resolve: resolvePath, dirname, basename, join, isAbsolute } = path;
  const isBuffer = Buffer.isBuffer;
  const SEP = path.sep;
  const exec = RegExp.prototype.exec;
  const matches = (re, text) => apply(exec, re, [text]) !== null;
  // A path inside the tree, with forward slashes.
  const inTree = (p) => {
    let rel = '';
    for (let i = tree.length + 1; i < p.length; i++) rel += p[i] === SEP ? '/' : p[i];
    return rel;
  };
  const kinds = new Map();
  // An array with no prototype: set by index, it meets no setter.
  const list = () => setPrototypeOf([], null);

  // 'internal' Node itself, 'framework' node's test runner, 'lib' an
  // installed package, 'base' the spec or harness as on the base side,
  // 'guard' this file, 'patch' the rest: a name that is no file on disk (a
  // data: URL, a name given to vm, a file gone) is the patch's.
  function kind(file) {
    if (!file) return 'internal';
    let k = kinds.get(file);
    if (!k) {
      k = file.startsWith('node:') ? nodeKind(file) : pathKind(file);
      kinds.set(file, k);
    }
    return k;
  }
  const nodeKind = (file) =>
    file.startsWith('node:internal/test_runner/') || file === 'node:test' ? 'framework' : 'internal';
  function pathKind(file) {
    let p;
    try {
      const f = file.startsWith('file:') ? fileURLToPath(file) : file;
      if (!isAbsolute(f)) return 'patch';
      p = realpath(f);
    } catch {
      return 'patch';
    }
    if (p === guardFile) return 'guard';
    if (runtime && p.startsWith(runtime + SEP)) return 'lib';
    // Inside the tree only the root's node_modules is installed code: a
    // node_modules folder the patch adds under src is the patch's.
    if (p.startsWith(tree + SEP)) {
      const rel = inTree(p);
      return trusted.has(rel) ? 'base' : rel.startsWith('node_modules/') ? 'lib' : 'patch';
    }
    return p.includes(`${SEP}node_modules${SEP}`) ? 'lib' : 'patch';
  }

  // Who is calling is read from V8's call sites (whose methods V8 fixes).
  // Error.prepareStackTrace becomes an accessor of the guard's, and the
  // global Error fixed: code sets and reads its hook as ever, but while the
  // guard reads a stack V8 meets the guard's own (a hook held by production
  // code could leave its frames out). A stack trace limit set low cuts the
  // stack short, and a stack with no caller in it is refused. Inside a
  // hook's own run V8 gives text only (it calls no hook from a hook):
  // `nested` says so.
  const RealError = Error;
  let reading = false;
  let nested = false;
  let userPrepare = RealError.prepareStackTrace;
  let prepareByPatch = false;
  const toSites = (_, cs) => cs;
  define(RealError, 'prepareStackTrace', {
    get: () => (reading ? toSites : userPrepare),
    set(fn) {
      const k = actor().kind;
      prepareByPatch = k === 'patch' || k === 'none';
      userPrepare = fn;
    },
    configurable: false,
    enumerable: false,
  });
  define(globalThis, 'Error', { value: RealError, writable: false, configurable: false, enumerable: false });
  function callSites(from, depth = Infinity) {
    const limit = RealError.stackTraceLimit;
    const holder = {};
    reading = true;
    try {
      RealError.stackTraceLimit = depth;
      capture(holder, from);
      return holder.stack;
    } finally {
      reading = false;
      RealError.stackTraceLimit = limit;
    }
  }
  // Each frame as { file, line, evaled }, or null when the stack is unreadable.
  function sites(depth) {
    try {
      const cs = callSites(sites, depth);
      nested = typeof cs === 'string';
      if (!isArray(cs)) return null;
      const out = list();
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i];
        out[i] = { file: c.getFileName(), line: c.getLineNumber(), evaled: c.isEval() };
      }
      return out;
    } catch {
      return null;
    }
  }
  // A frame's kind; code compiled from a string answers as the patch's
  // unless installed or base code holds it.
  function frameKind(f) {
    const k = kind(f.file);
    return f.evaled && k !== 'lib' && k !== 'base' && k !== 'framework' ? 'patch' : k;
  }
  const UNREADABLE = { kind: 'patch', file: '(stack unreadable)', line: 0 };

  // The first frame that is not Node itself or the guard: whose code asked for
  // it. A call with none (a callback Node runs, such as setTimeout(process.exit))
  // answers to nobody, so it is refused too.
  function actor() {
    const cs = sites();
    if (!cs) return UNREADABLE;
    for (let i = 0; i < cs.length; i++) {
      const k = frameKind(cs[i]);
      if (k === 'internal' || k === 'guard') continue;
      return { kind: k, file: show(cs[i].file), line: cs[i].line ?? 0 };
    }
    return { kind: 'none', file: '(no caller: a callback Node itself runs)', line: 0 };
  }

  // The vitest file that asks for a vm context itself, if one does (a
  // jsdom environment making its window is not a pool).
  function vmMaker() {
    const cs = sites() ?? [];
    for (let i = 0; i < cs.length; i++) {
      const file = cs[i].file ?? '';
      const k = kind(file);
      if (k === 'internal' || k === 'guard') continue;
      return matches(/[\\/]node_modules[\\/](vitest|@vitest[\\/][^\\/]+)[\\/]/, file) ? show(file) : null;
    }
    return null;
  }

  function show(file) {
    if (!file) return '';
    let p = file;
    try {
      p = file.startsWith('file:') ? fileURLToPath(file) : file;
    } catch {
      /* as written */
    }
    return p.startsWith(tree + SEP) ? inTree(p) : p;
  }

  // A finding on the channel, which refuses the run.
  function note(event, detail, a) {
    send({ t: 'finding', event, detail: String(detail).slice(0, 300), file: a.file, line: a.line });
  }
  function refuse(event, detail, a) {
    note(event, detail, a);
    throw new Error(
      `patchwarden: refused in a property run: ${event} from production code (${a.file}:${a.line}): ${detail}`,
    );
  }

  // A guarded method is an accessor that cannot be redefined. Its getter
  // returns the guard's wrapper in front of the method in force; a runner may
  // put its own method behind the wrapper (vitest and jest assign their own
  // process.exit, graceful-fs its fs calls, jest copies process into each
  // test context: each object, the copies too, keeps its own), while
  // production code assigning one is refused.
  function guarded(owner, name, event, judge) {
    const real = owner[name];
    if (typeof real !== 'function') return;
    const behind = new WeakMap();
    const fronts = new WeakMap();
    const front = (fn) => {
      let w = fronts.get(fn);
      if (w) return w;
      w = {
        [name](...args) {
          // The stack is read only when the arguments make it matter.
          let a = null;
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
    Object.defineProperty(owner, name, {
      get() {
        const fn =
          (this !== null && typeof this === 'object') || typeof this === 'function' ? behind.get(this) : undefined;
        return front(fn ?? real);
      },
      set(fn) {
        replaced(`${event} replaced`, name);
        if (typeof fn === 'function' && this !== null && (typeof this === 'object' || typeof this === 'function'))
          behind.set(this, fn);
      },
      configurable: false,
      enumerable: true,
    });
  }

  // Production code may not rebind what the run is judged by, nor have a
  // library do it for it (a helper such as jest-util's setGlobal): refused
  // when a frame of production code is anywhere on the stack, or no code's
  // is. The runner may.
  function replaced(event, name) {
    const a = patchOnStack();
    if (a) refuse(event, `${name} = …`, a);
  }
  // The innermost frame of production code on the stack (`via`: under other
  // code's), a stand-in when the stack is unreadable or holds no one's code,
  // or null.
  function patchOnStack() {
    const cs = sites();
    if (!cs) return UNREADABLE;
    let someone = false;
    for (let i = 0; i < cs.length; i++) {
      const k = frameKind(cs[i]);
      if (k === 'patch') return { kind: k, file: show(cs[i].file), line: cs[i].line ?? 0, via: someone };
      if (k !== 'internal' && k !== 'guard') someone = true;
    }
    return someone ? null : { kind: 'none', file: '(no caller: a callback Node itself runs)', line: 0 };
  }

  // mocha's exports (what `import { it } from 'mocha'` reads) are frozen once
  // it has loaded, which it has when it first sets the globals of a test file.
  let mochaFrozen = false;
  function freezeMocha() {
    if (mochaFrozen) return;
    for (const [file, m] of Object.entries(require.cache))
      if (m?.loaded && matches(/[\\/]mocha[\\/]lib[\\/]mocha\.js$/, file)) {
        Object.freeze(m.exports);
        mochaFrozen = true;
      }
  }

  const always = (_, who) => who().kind === 'patch' || who().kind === 'none';
  for (const name of ['exit', 'reallyExit', 'kill', 'abort', 'binding', '_linkedBinding', 'dlopen'])
    guarded(process, name, `process.${name}`, always);

  // The guard's private folder (its configuration, the channel, the report
  // and the report's folder) is the run's judge: production code may change
  // nothing in it, through any name. A path is judged by where it really
  // leads (a link, `/proc/self/fd/N`, a relative path), and a rename or
  // removal of the report's folder counts like one of the report.
  const runDir = dirname(where);
  // A path given as a string, a Buffer or a file: URL (read by Node's own check).
  const pathOf = (p) => {
    if (typeof p === 'string') return p;
    if (isBuffer(p)) return String(p);
    try {
      return fileURLToPath(p);
    } catch {
      return null;
    }
  };
  const resolved = (p) => {
    const given = pathOf(p);
    if (given === null) return null;
    const s = resolvePath(given);
    try {
      return realpathNative(s);
    } catch {
      /* not there (yet): its folder is */
    }
    try {
      return join(realpathNative(dirname(s)), basename(s));
    } catch {
      return s;
    }
  };
  const inRun = (p) => {
    const r = resolved(p);
    return r !== null && (r === runDir || r.startsWith(runDir + SEP));
  };
  const isReport = (p) => resolved(p) === report;
  const WRITE_FLAGS = /[wa+]/;
  const opensForWrite = (flags) =>
    typeof flags === 'number'
      ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) !== 0
      : typeof flags === 'string' && matches(WRITE_FLAGS, flags);
  // A write stream opens its file a tick after it is made, when no caller is
  // left on the stack: one such open of the report is allowed for each report
  // stream the runner itself made.
  let streams = 0;
  const writesRun = (n, flagsAt) => (args, who) => {
    if (flagsAt !== undefined && !opensForWrite(args[flagsAt])) return false;
    for (let i = 0; i < n; i++)
      if (inRun(args[i])) {
        const a = who();
        if (flagsAt !== undefined && a.kind === 'none' && streams > 0 && isReport(args[i])) {
          streams--;
          return false;
        }
        return a.kind === 'patch' || a.kind === 'none';
      }
    return false;
  };
  // Every write stream, the runner's too (it holds fs.createWriteStream from
  // before the guard), is made by fs.WriteStream, which is swapped here.
  const RealWriteStream = fs.WriteStream;
  class WriteStream extends RealWriteStream {
    constructor(file, options) {
      if (isReport(file)) {
        const a = actor();
        if (a.kind === 'patch' || a.kind === 'none')
          refuse('fs.WriteStream on the test report', `WriteStream(${String(file)})`, a);
        streams++;
      }
      super(file, options);
    }
  }
  fs.WriteStream = WriteStream;
  const fileOps = {
    writeFile: writesRun(1),
    appendFile: writesRun(1),
    truncate: writesRun(1),
    rm: writesRun(1),
    rmdir: writesRun(1),
    mkdir: writesRun(1),
    unlink: writesRun(1),
    copyFile: writesRun(2),
    cp: writesRun(2),
    rename: writesRun(2),
    link: writesRun(2),
    symlink: writesRun(2),
    open: writesRun(1, 1),
    utimes: writesRun(1),
    chmod: writesRun(1),
  };
  for (const [op, judge] of Object.entries(fileOps)) {
    for (const name of [op, `${op}Sync`]) guarded(fs, name, `fs.${name} on the test report`, judge);
    guarded(fs.promises, op, `fs.promises.${op} on the test report`, judge);
  }

  // What the run is judged by cannot be rebound by production code: the
  // process object, and the globals the test frameworks define (mocha's,
  // jest's, vitest's with `globals`). Each is an accessor that keeps a value
  // for each object holding it, as jest copies them into every test context.
  const objectish = (o) => o !== null && (typeof o === 'object' || typeof o === 'function');
  function bound(name, initial) {
    const values = new WeakMap();
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
  // jest runs each test file in a vm context of its own, whose globals it
  // copies from this one (a locked global here breaks it) and then sets: its
  // processes lock them inside each context instead (below).
  const main = process.argv[1] || '';
  const jest = /[\\/](jest-cli|jest-worker)[\\/]|[\\/]jest[\\/]bin[\\/]|[\\/]jest(\.js)?$/.test(main);
  if (!jest) {
    bound('process', process);
    for (const name of FRAMEWORK_GLOBALS) if (!(name in globalThis)) bound(name, undefined);
    fixBindings(globalThis);
    // A library may put its own Promise in place (zone.js does); production code may not.
    bound('Promise', Promise);
  }
  // The global names of the built-ins a runner's code looks up at each call
  // (chai wraps each assertion in `new Proxy`, reads through `Reflect.get`,
  // expect compares with `Object.is`): a name pointed at production code's
  // own copy would answer for them, so each is fixed. Date and the timers
  // stay free for fake timers, Intl for its polyfills.
  function fixBindings(g) {
    for (const name of BINDINGS) {
      const d = getOwnPropertyDescriptor(g, name);
      if (d?.configurable && 'value' in d)
        define(g, name, { value: d.value, writable: false, configurable: false, enumerable: d.enumerable });
    }
  }

  // Test code compiled into a vm context: jest's test environments compile
  // each module with vm.compileFunction (ES modules: vm.SourceTextModule).
  // Before a file of production code is compiled there, the context's
  // process and the framework globals it has by then are made read-only, so
  // the test file sees jest's own (the base's setup files, compiled earlier,
  // may still set them). Contexts vitest's vm pools make are refused: they run
  // modules the guard does not lock.
  const vm = require('node:vm');
  const locked = new WeakMap();
  function lockContext(ctx, file) {
    if (kind(file) !== 'patch') return;
    let state = locked.get(ctx);
    if (!state) {
      locked.set(ctx, (state = { g: vm.runInContext('globalThis', ctx), done: new Set(), owners: registry() }));
      lockIntrinsics(state.g, state.owners);
      lockCircus(state.g, state.owners);
      fixBindings(state.g);
    }
    const { g, done } = state;
    for (const name of ['process', 'Promise', ...FRAMEWORK_GLOBALS]) {
      if (done.has(name)) continue;
      const d = getOwnPropertyDescriptor(g, name);
      if (!d || !('value' in d) || d.value === undefined) continue;
      Object.defineProperty(g, name, {
        value: d.value,
        writable: false,
        configurable: false,
        enumerable: d.enumerable,
      });
      done.add(name);
    }
  }

  // jest-circus keeps what decides each result on the test context's global:
  // the list of event handlers it calls with every event (a handler added
  // there can clear a failed test's errors), its state (every test, the
  // running one, their errors), and expect's matchers. Before the first file
  // of production code is compiled in a context (jest and the base's setup
  // files have set them up by then), the list gets the guard's own handler
  // and is frozen, and the globals holding the list, the state and the
  // matchers become read-only, as do the matchers defined by then, and
  // expect's equality testers take a new one only from jest's or the base's
  // code. The guard's handler makes each test's errors append-only as it
  // starts, and its `failing` flag the runner's to set; once collection
  // ends it freezes every describe block's children, after checking none
  // was removed. (A status or mode changed makes a test skipped at most: the
  // revert check refuses a case skipped on head only.)
  const { ownKeys, set: reflectSet, defineProperty: reflectDefine, deleteProperty: reflectDelete } = Reflect;
  const freeze = Object.freeze;
  const { isProxy } = require('node:util').types;
  const readOnly = (o, key) => {
    const d = getOwnPropertyDescriptor(o, key);
    if (d && 'value' in d)
      define(o, key, { value: d.value, writable: false, configurable: false, enumerable: d.enumerable });
  };
  const CIRCUS = '(jest-circus state)';
  function lockCircus(g, owners) {
    const HANDLERS = Symbol.for('EVENT_HANDLERS');
    const handlers = g[HANDLERS];
    const STATE = Object.getOwnPropertySymbols(g).find((s) => s.description === 'JEST_STATE_SYMBOL');
    if (!Array.isArray(handlers) || !STATE) return;
    const state = g[STATE];
    const CtxArray = g.Array;
    let tests = count(state.rootDescribeBlock);
    for (let i = 0; i < handlers.length; i++) handlers[i] = circusOnly(handlers[i]);
    handlers.push((event, st) => {
      if (event.name === 'add_test') {
        tests++;
        // The test circus has just made: its function is fixed (circus
        // reads it again as it calls the test).
        const ch = st.currentDescribeBlock?.children;
        const added = Array.isArray(ch) ? ch[ch.length - 1] : undefined;
        if (added?.type === 'test') readOnly(added, 'fn');
      } else if (event.name === 'test_start') lockTest(event.test, CtxArray);
      else if (event.name === 'test_done' || event.name === 'run_finish') checkLocked(owners);
      else if (event.name === 'run_start') {
        const now = count(st.rootDescribeBlock);
        if (now < tests)
          refuse('jest test removed', `${tests - now} of ${tests} tests gone from their describe blocks`, {
            file: CIRCUS,
            line: 0,
          });
        lockChildren(st.rootDescribeBlock);
      }
    });
    // Production code first loaded from inside a test (a require in its
    // body): the tests are collected and one is running.
    if (state.hasStarted) {
      lockChildren(state.rootDescribeBlock);
      if (state.currentlyRunningTest) lockTest(state.currentlyRunningTest, CtxArray);
    }
    freeze(handlers);
    readOnly(g, HANDLERS);
    readOnly(g, STATE);
    const MATCHERS = Symbol.for('$$jest-matchers-object');
    const jm = g[MATCHERS];
    if (jm && typeof jm === 'object' && jm.matchers) {
      readOnly(jm, 'matchers');
      for (const name of ownKeys(jm.matchers)) readOnly(jm.matchers, name);
      if (Array.isArray(jm.customEqualityTesters)) {
        jm.customEqualityTesters = heldTesters(jm.customEqualityTesters, JEST_FILE, 'jest expect');
        readOnly(jm, 'customEqualityTesters');
      }
    }
  }
  // circus calls each handler of its list from its own dispatch. Called any
  // other way (by production code, or queued with its arguments bound so that
  // no frame of production code is on the stack when it runs) a handler can
  // clear a failed test's errors: it runs only when the first frame under it
  // outside Node is jest-circus's and none is production code's.
  const CIRCUS_FILE = /[\\/]node_modules[\\/]jest-circus[\\/]/;
  function circusOnly(handler) {
    if (typeof handler !== 'function') return handler;
    const event = 'jest event handler called';
    const detail = "one of jest-circus's event handlers called outside circus's dispatch";
    return function circusHandler(...args) {
      const cs = sites();
      if (!cs) refuse(event, detail, UNREADABLE);
      let caller = null;
      for (let i = 0; i < cs.length; i++) {
        const k = frameKind(cs[i]);
        if (k === 'patch') refuse(event, detail, { file: show(cs[i].file), line: cs[i].line ?? 0 });
        if (k !== 'internal' && k !== 'guard') caller ??= cs[i].file;
      }
      if (caller === null) refuse(event, detail, { file: '(no caller: a callback Node itself runs)', line: 0 });
      if (!matches(CIRCUS_FILE, caller)) refuse(event, detail, { file: show(caller), line: 0 });
      return apply(handler, this, args);
    };
  }
  // Walked by index: the context's array iterator is production code's to replace.
  function children(block) {
    const ch = block?.children;
    if (ch === undefined) return [];
    if (!Array.isArray(ch) || isProxy(ch))
      refuse('jest test tree replaced', "a describe block's children are not jest's array", { file: CIRCUS, line: 0 });
    return ch;
  }
  function count(block) {
    const ch = children(block);
    let n = 0;
    for (let i = 0; i < ch.length; i++) n += ch[i].type === 'test' ? 1 : count(ch[i]);
    return n;
  }
  function lockChildren(block) {
    const ch = children(block);
    for (let i = 0; i < ch.length; i++) {
      if (ch[i].type === 'test') readOnly(ch[i], 'fn');
      else lockChildren(ch[i]);
    }
    freeze(ch);
    readOnly(block, 'children');
  }
  // A result field is the runner's to set: refused when production code asks,
  // or is anywhere on the stack (calling one of jest's handlers itself), or
  // nobody's code is (a callback Node runs). One walk of the stack.
  function byRunner(event, name) {
    const a = patchOnStack();
    if (a) refuse(event, a.via ? `${name} = … through the runner's own code` : `${name} = …`, a);
  }
  const isIndex = (k) => typeof k === 'string' && matches(/^(0|[1-9]\d*)$/, k);
  // A test jest retries starts again, already locked.
  const started = new WeakSet();
  // An array production code can only append to. Replaced (jest maps a test's
  // errors to formatted ones as it ends, and clears them to retry it), it is
  // the runner that replaces it.
  function lockTest(test, CtxArray) {
    if (started.has(test)) return;
    started.add(test);
    const changed = (what) => refuse('jest test errors changed', `${what} on the running test's errors`, actor());
    const appendOnly = (from) => {
      const target = new CtxArray();
      for (let i = 0; i < from.length; i++)
        define(target, i, { value: from[i], writable: true, enumerable: true, configurable: true });
      return new Proxy(target, {
        set(t, k, v) {
          if (isIndex(k) ? Number(k) < t.length : k !== 'length' || v < t.length) changed(`${String(k)} = …`);
          // Defined, not set: an index setter on the context's
          // Array.prototype would meet a set.
          if (isIndex(k))
            return reflectDefine(t, k, { value: v, writable: true, enumerable: true, configurable: true });
          return reflectSet(t, k, v);
        },
        defineProperty(t, k, d) {
          if (!isIndex(k) || Number(k) < t.length || !('value' in d)) changed(`defineProperty(${String(k)})`);
          return reflectDefine(t, k, d);
        },
        deleteProperty: (_, k) => changed(`delete ${String(k)}`),
        setPrototypeOf: () => changed('setPrototypeOf'),
        preventExtensions: () => changed('preventExtensions'),
      });
    };
    let errors = appendOnly(Array.isArray(test.errors) ? test.errors : []);
    define(test, 'errors', {
      get: () => errors,
      set(value) {
        byRunner('jest test errors replaced', 'errors');
        errors = appendOnly(Array.isArray(value) ? value : []);
      },
      enumerable: true,
      configurable: false,
    });
    // Whether a failure is the one expected (`test.failing`), which passes.
    let failing = test.failing;
    define(test, 'failing', {
      get: () => failing,
      set(v) {
        byRunner('jest test failing replaced', 'failing');
        failing = v;
      },
      enumerable: true,
      configurable: false,
    });
  }

  const realCompile = vm.compileFunction;
  vm.compileFunction = function compileFunction(...args) {
    const options = args[2];
    ownName('vm.compileFunction', options?.filename);
    const ctx = options?.parsingContext;
    if (ctx && typeof options.filename === 'string' && vm.isContext(ctx)) lockContext(ctx, options.filename);
    return Reflect.apply(realCompile, this, args);
  };
  const RealSourceTextModule = vm.SourceTextModule;
  if (typeof RealSourceTextModule === 'function')
    vm.SourceTextModule = class SourceTextModule extends RealSourceTextModule {
      constructor(code, options) {
        ownName('vm.SourceTextModule', options?.identifier);
        const ctx = options?.context;
        if (ctx && typeof options.identifier === 'string' && vm.isContext(ctx)) lockContext(ctx, options.identifier);
        super(code, options);
      }
    };
  // Code compiled by production code keeps production code's name: vm and
  // the module loader compile code under any file name they are given, and
  // its frames would answer as that file's (a library's, the spec's). The
  // first caller with a file (Node's loader, a library, production code)
  // is asked; only a few frames are read, as every module load passes here.
  const nameOf = (options) => (typeof options === 'string' ? options : options?.filename);
  function ownName(call, name) {
    if (typeof name !== 'string') return;
    if (kind(name) === 'patch') {
      // A file of the tree (vite's own modules have names that are no file).
      if (workerState !== undefined && name.startsWith(tree + SEP)) lockVitest();
      return;
    }
    const cs = sites(8);
    if (!cs) {
      // A module a library's stack trace hook loads as it runs.
      if (nested && !prepareByPatch) return;
      refuse("code compiled under another file's name", call, UNREADABLE);
    }
    for (let i = 0; i < cs.length; i++) {
      if (!cs[i].file) continue;
      const k = frameKind(cs[i]);
      if (k === 'guard') continue;
      if (k === 'patch')
        refuse("code compiled under another file's name", `${call}(…, ${show(name)})`, {
          file: show(cs[i].file),
          line: cs[i].line ?? 0,
        });
      return;
    }
  }
  for (const name of ['runInThisContext', 'runInContext', 'runInNewContext']) {
    const real = vm[name];
    const at = name === 'runInThisContext' ? 1 : 2;
    vm[name] = {
      [name](...args) {
        ownName(`vm.${name}`, nameOf(args[at]));
        return apply(real, this, args);
      },
    }[name];
  }
  const RealScript = vm.Script;
  const Script = new Proxy(RealScript, {
    construct(target, args, newTarget) {
      ownName('vm.Script', nameOf(args[1]));
      return Reflect.construct(target, args, newTarget === Script ? target : newTarget);
    },
  });
  vm.Script = Script;
  define(RealScript.prototype, 'constructor', {
    value: Script,
    writable: false,
    configurable: false,
    enumerable: false,
  });
  const Module = require('node:module');
  const moduleCompile = Module.prototype._compile;
  Module.prototype._compile = function _compile(content, filename, ...rest) {
    ownName('Module.prototype._compile', filename);
    return apply(moduleCompile, this, [content, filename, ...rest]);
  };
  // A loader hook (module.register) could hand any file's URL code of its own.
  guarded(Module, 'register', 'module.register', always);
  const realCreateContext = vm.createContext;
  vm.createContext = function createContext(...args) {
    const a = vmMaker();
    if (a)
      refuse(
        'vitest vm pool',
        "vitest's vm pools (vmThreads, vmForks) run tests in vm contexts the guard does not reach; pass --pool=forks (or --pool=threads) to vitest in properties.command, an owner's change on the base side",
        { file: a, line: 0 },
      );
    return Reflect.apply(realCreateContext, this, args);
  };
  Object.freeze(require('node:test'));

  // The cases the revert check names in PATCHWARDEN_ONLY (a JSON list of
  // names), where a cached reverted run cannot answer for them: a node:test
  // test of any other name is created skipped, so it neither runs nor counts
  // as passed, and the check takes only the named cases from the report.
  // Suites (describe) are kept: their tests are chosen by name. node:test's
  // Test class is internal: the guard meets its prototype as the first test
  // object is made (an async resource of type Test), before any test is added.
  if (process.env.PATCHWARDEN_ONLY !== undefined) selectTests(new Set(JSON.parse(process.env.PATCHWARDEN_ONLY)));
  function selectTests(names) {
    const hook = require('node:async_hooks').createHook({
      init(_id, type, _trigger, resource) {
        if (type !== 'Test') return;
        hook.disable();
        let proto = getPrototypeOf(resource);
        while (proto !== null && !Object.hasOwn(proto, 'createSubtest')) proto = getPrototypeOf(proto);
        if (proto === null) return; // no test is created skipped: every case runs, as before
        const Test = proto.constructor;
        const create = proto.createSubtest;
        proto.createSubtest = function createSubtest(Factory, name, options, fn, overrides) {
          if (Factory === Test && !names.has(testName(name, options, fn)))
            overrides = { ...overrides, skip: 'not among the cases this run is to run (PATCHWARDEN_ONLY)' };
          return apply(create, this, [Factory, name, options, fn, overrides]);
        };
      },
    });
    hook.enable();
  }
  // The name node:test gives a test: its own, else its function's.
  function testName(name, options, fn) {
    if (typeof name === 'string' && name !== '') return name;
    const f = typeof name === 'function' ? name : typeof options === 'function' ? options : fn;
    return (typeof f === 'function' && f.name) || '<anonymous>';
  }

  // A test file's process sends its results to the runner v8-serialized
  // (node's IPC for vitest's and jest's workers, node --test's per-file child
  // over its stdout): the serializer classes and node:v8's exports are frozen,
  // so production code cannot rewrite a result inside them.
  const v8 = require('node:v8');
  for (const C of [v8.Serializer, v8.Deserializer, v8.DefaultSerializer, v8.DefaultDeserializer])
    Object.freeze(C.prototype);
  Object.freeze(v8);
  // Before the serializer, node --test's child pushes each result into a
  // Readable (its test stream) and reads it back through the stream and
  // event-emitter machinery: a method replaced on one of their prototypes
  // (push, read, emit) changes a result where the guard does not look. Their
  // methods are locked: reading one gives the original, production code
  // assigning one there is refused, other code's assignment is kept, and
  // nothing can be redefined or added there (an `emit` added on
  // Readable.prototype would shadow EventEmitter's). Assigned on an instance
  // or a subclass's prototype (Node sets `_read` on its own streams, libraries
  // `process.emit`), a method becomes that object's own, as it always does.
  const stream = require('node:stream');
  const EventEmitter = require('node:events');
  // The objects locked in this realm, each with the names it had: a name
  // added to one over a method it inherits from another, or an index, is
  // refused at the next result and at the end (below). A jest test context
  // has its own.
  const registry = () => ({ all: list(), byOwner: new Map(), watched: list() });
  const mainOwners = registry();
  // The accessors lockMethods puts in front of methods. Read through a realm's
  // getOwnPropertyDescriptor(s) (descriptorViews, below), each is the data
  // property it stands for, with the value a read gives: libraries copy a
  // method's descriptor with a new value (mimic-fn, execa: `{ ...descriptor,
  // value }`, which pnpm runs) or read its value from it (get-intrinsic).
  // A copy of one on another object is what its setter makes there anyway
  // (a data property). The guarded process methods stay accessors: jest
  // copies process into each test context with its descriptors, and each
  // copy must keep the guard's wrapper in front of what jest assigns.
  const guardAccessors = new WeakSet();
  const isGuardAccessor = WeakSet.prototype.has;
  const methodAccessor = (a) => {
    guardAccessors.add(a.get);
    guardAccessors.add(a.set);
    return a;
  };
  for (const [C, label] of [
    [EventEmitter, 'EventEmitter'],
    [stream.Stream, 'stream.Stream'],
    [stream.Readable, 'stream.Readable'],
    [stream.Writable, 'stream.Writable'],
    [stream.Duplex, 'stream.Duplex'],
    [stream.Transform, 'stream.Transform'],
    [stream.PassThrough, 'stream.PassThrough'],
  ])
    lockMethods(C.prototype, `${label}.prototype`, true);
  // `sealed`: nothing can be added to the owner, and its other properties
  // cannot be redefined either (Node's own classes); a built-in prototype
  // stays open to additions, as polyfills make them.
  function lockMethods(owner, label, sealed, owners = mainOwners) {
    const methods = new Set();
    const entry = { owner, label, methods, names: new Set(ownKeys(owner)), proto: getPrototypeOf(owner) };
    owners.byOwner.set(owner, entry);
    owners.all[owners.all.length] = entry;
    for (const key of ownKeys(owner)) {
      const d = getOwnPropertyDescriptor(owner, key);
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
          set(fn) {
            // Assigned on another locked prototype, it would shadow this one's.
            if (this !== owner && !owners.byOwner.has(this)) {
              if (objectish(this))
                reflectDefine(this, key, { value: fn, writable: true, enumerable: true, configurable: true });
              return;
            }
            replaced(`${label}.${name} replaced`, `${label}.${name}`);
            if (this === owner) current = fn;
            else reflectDefine(this, key, { value: fn, writable: true, enumerable: true, configurable: true });
          },
          enumerable: d.enumerable,
          configurable: false,
        }),
      );
    }
    if (sealed) Object.preventExtensions(owner);
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
  // A realm's getOwnPropertyDescriptor(s), with the guard's method accessors
  // shown as the data properties they stand for (`guardAccessors`, above):
  // the value is what reading it on `o` gives, so nothing is shown that a
  // read does not, and defining the copy on the owner still fails.
  function descriptorViews(g) {
    const asData = (o, d) => {
      if (!d || !(apply(isGuardAccessor, guardAccessors, [d.get]) && apply(isGuardAccessor, guardAccessors, [d.set])))
        return d;
      const data = { value: apply(d.get, o, []), writable: true, enumerable: d.enumerable, configurable: false };
      return setPrototypeOf(data, proto);
    };
    const proto = g.Object.prototype;
    const one = g.Object.getOwnPropertyDescriptor;
    const all = g.Object.getOwnPropertyDescriptors;
    const reflectOne = g.Reflect.getOwnPropertyDescriptor;
    g.Object.getOwnPropertyDescriptor = {
      getOwnPropertyDescriptor(o, key) {
        return asData(o, apply(one, g.Object, [o, key]));
      },
    }.getOwnPropertyDescriptor;
    g.Reflect.getOwnPropertyDescriptor = {
      getOwnPropertyDescriptor(o, key) {
        return asData(o, apply(reflectOne, g.Reflect, [o, key]));
      },
    }.getOwnPropertyDescriptor;
    g.Object.getOwnPropertyDescriptors = {
      getOwnPropertyDescriptors(o) {
        const ds = apply(all, g.Object, [o]);
        const ks = ownKeys(ds);
        for (let i = 0; i < ks.length; i++) ds[ks[i]] = asData(o, ds[ks[i]]);
        return ds;
      },
    }.getOwnPropertyDescriptors;
  }
  // Called in every hot loop, and never replaced by honest code: fixed
  // rather than locked (an accessor in front of them costs up to 1.7x).
  const HOT = ['call', 'apply', 'bind'];
  function lockIntrinsics(g, owners) {
    descriptorViews(g);
    for (const name of HOT) define(g.Function.prototype, name, { writable: false, configurable: false });
    for (const name of PROTOS) lockMethods(g[name].prototype, `${name}.prototype`, false, owners);
    const TypedArray = getPrototypeOf(g.Uint8Array);
    lockMethods(TypedArray.prototype, 'TypedArray.prototype', false, owners);
    for (const name of STATICS) lockMethods(g[name], name, false, owners);
    // The iterators every for-of and spread calls: one replaced and put back
    // while a loop runs made a property's loop skip the case that fails.
    // (Locked, they cost V8 a fast path: about 1% on a node --test run, 5%
    // on a vitest run of 200 cases.)
    const arrayIterator = getPrototypeOf(apply(g.Array.prototype[Symbol.iterator], new g.Array(), []));
    lockMethods(arrayIterator, 'Array Iterator.prototype', false, owners);
    lockMethods(getPrototypeOf(arrayIterator), 'Iterator.prototype', false, owners);
    lockMethods(
      getPrototypeOf(apply(g.Map.prototype.entries, new g.Map(), [])),
      'Map Iterator.prototype',
      false,
      owners,
    );
    lockMethods(
      getPrototypeOf(apply(g.Set.prototype.values, new g.Set(), [])),
      'Set Iterator.prototype',
      false,
      owners,
    );
    lockMethods(
      getPrototypeOf(apply(g.String.prototype[Symbol.iterator], '', [])),
      'String Iterator.prototype',
      false,
      owners,
    );
    // What is left unlocked for speed is watched instead: RegExp.prototype's,
    // each prototype's constructor and the species getters.
    const watch = (o, label, key) => {
      const d = getOwnPropertyDescriptor(o, key);
      if (d) owners.watched[owners.watched.length] = { o, label, key, value: d.value, get: d.get, set: d.set };
    };
    const whole = (o, label) => {
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
  // The well-known symbols: added to a built-in prototype, each changes
  // what a built-in operation does (a String.prototype[Symbol.split] is
  // called by every split with a string separator).
  const WELL_KNOWN = new Set(
    Object.getOwnPropertyNames(Symbol)
      .map((k) => Symbol[k])
      .filter((v) => typeof v === 'symbol'),
  );
  const nameOfKey = (k) => (typeof k === 'symbol' ? `[${k.description}]` : String(k));
  // By anyone: a name added to a locked object over a method one of its
  // prototypes holds, an index or a well-known symbol added, its prototype
  // swapped, or a watched property changed: each changes what every
  // runner's call meets.
  function checkLocked(owners) {
    const all = owners.all;
    for (let e = 0; e < all.length; e++) {
      const { owner, label, names, proto } = all[e];
      if (getPrototypeOf(owner) !== proto) stopRun(`${label} changed`, `${label}'s prototype replaced`);
      const ks = ownKeys(owner);
      if (ks.length === names.size) continue;
      for (let i = 0; i < ks.length; i++) {
        const k = ks[i];
        if (names.has(k)) continue;
        let over = isIndex(k) || WELL_KNOWN.has(k);
        for (let p = proto; !over && p !== null; p = getPrototypeOf(p))
          over = owners.byOwner.get(p)?.methods.has(k) === true;
        if (over) stopRun(`${label} changed`, `${nameOfKey(k)} added to ${label}`);
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
  // A change found at a result is in the runner's own path, where a thrown
  // error would meet the runner (a vitest worker that cannot send its
  // results leaves its pool waiting until the run's timeout): the finding is
  // sent, then the run's process group (its own, which patchwarden made) is
  // ended at once.
  function stopRun(event, detail) {
    note(event, detail, { file: '(found at a result)', line: 0 });
    send({ t: 'stop' });
    apply(killGroup, process, [0, 'SIGKILL']);
  }

  // node:test reports each result by calling its reporter stream's `ok` or
  // `fail` (TestsStream, a Readable of node's own); every later step (the
  // stream's buffer, the serializer, stdout, the runner's reading) is on the
  // way to the report. The class is internal: the guard meets its prototype
  // as the first such stream is made (every stream starts in
  // EventEmitter.init), before any code can hold one, and locks it like the
  // stream prototypes. Under node --test each test file's process also sends,
  // as `fail` is called, each failure of a test without subtests (a testcase
  // in the report) on its channel, and the run is refused unless the report
  // shows it failed: whatever the result meets after that (a buffer, the
  // serializer, stdout, a descriptor, the exit code), the report must agree
  // with what the guard saw. A property's own failure counts even when the
  // test has subtests or is marked todo (production code that registered a
  // hook gave the failing property a passing subtest of its name and marked
  // it todo, which the report writes as a suite and the exit code forgives).
  const childOfTest = process.env.NODE_TEST_CONTEXT === 'child-v8';
  const parents = [];
  const PROPERTY = /\[invariant:/;
  // Results come children first, then their parent. A failure is checked
  // against the locked built-ins as it starts on its way (a pass needs no
  // rewriting, and checking each cost a run of 200 cases a tenth).
  function result(failed, nesting, name, details, directive) {
    if (failed) checkLocked(mainOwners);
    if (!childOfTest) return;
    const leaf = parents[nesting] !== true;
    parents[nesting] = false;
    if (nesting > 0) parents[nesting - 1] = true;
    if (!failed || directive?.skip !== undefined) return;
    const property = matches(PROPERTY, String(name));
    const own = details?.error?.failureType !== 'subtestsFailed';
    if (property ? leaf || own : leaf && directive?.todo === undefined) send({ t: 'failed', name: String(name) });
  }
  const reporters = new Set();
  const ReadableProto = stream.Readable.prototype;
  function lockReporter(proto) {
    if (reporters.has(proto)) return;
    reporters.add(proto);
    const { ok, fail } = proto;
    if (typeof ok !== 'function' || typeof fail !== 'function') return;
    proto.ok = {
      ok(nesting, loc, n, name, details, directive) {
        result(false, nesting, name, details, directive);
        return apply(ok, this, [nesting, loc, n, name, details, directive]);
      },
    }.ok;
    proto.fail = {
      fail(nesting, loc, n, name, details, directive) {
        result(true, nesting, name, details, directive);
        return apply(fail, this, [nesting, loc, n, name, details, directive]);
      },
    }.fail;
    lockMethods(proto, 'node:test TestsStream.prototype', true);
  }
  const init = EventEmitter.init;
  EventEmitter.init = function init_(...args) {
    const p = objectish(this) ? getPrototypeOf(this) : null;
    if (p !== null && getPrototypeOf(p) === ReadableProto) {
      const d = getOwnPropertyDescriptor(p, 'constructor');
      if (typeof d?.value === 'function' && d.value.name === 'TestsStream') lockReporter(p);
    }
    return apply(init, this, args);
  };
  readOnly(EventEmitter, 'init');
  // node:assert is what node:test and mocha properties assert with: an
  // assert.ok replaced from production code passes every case.
  const never = () => false;
  for (const [exported, label] of [
    [require('node:assert'), 'assert'],
    [require('node:assert/strict'), 'assert.strict'],
  ]) {
    // Its classes (AssertionError, CallTracker) and assert.strict stay as they are, frozen.
    for (const name of Object.keys(exported))
      if (typeof exported[name] === 'function' && name !== 'strict' && !/^[A-Z]/.test(name))
        guarded(exported, name, `${label}.${name}`, never);
    Object.freeze(exported);
  }

  // node:test runs each test inside its Test object's async scope: the
  // resource async_hooks hands out (executionAsyncResource, a hook's
  // `init`) is that object, whose `passed` decides the result. Production
  // code, or a library it calls, may ask for neither. (AsyncLocalStorage
  // does not go through them.)
  const asyncHooks = require('node:async_hooks');
  // Each node:test Test is an AsyncResource that runs its test's function
  // through runInAsyncScope (one that swallowed the error passed the test).
  lockMethods(asyncHooks.AsyncResource.prototype, 'AsyncResource.prototype', true);
  lockMethods(asyncHooks.AsyncLocalStorage.prototype, 'AsyncLocalStorage.prototype', true);
  for (const name of ['executionAsyncResource', 'createHook'])
    guarded(asyncHooks, name, `async_hooks.${name}`, () => {
      const a = patchOnStack();
      if (a) refuse(`async_hooks.${name}`, `${name}() hands out the running test's own object`, a);
      return false;
    });

  // Production code starts no process: a child outside every guard (a shell,
  // `cp`) could write the report, or outlive the run's process group.
  const childProcess = require('node:child_process');
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
    guarded(childProcess, name, `child_process.${name}`, always);
  guarded(childProcess.ChildProcess.prototype, 'spawn', 'child_process.spawn', always);

  // A value as JSON.stringify reads it, copied into objects and arrays with no
  // prototype: a Buffer as its own toJSON makes it (read byte by byte), a
  // Date as its ISO string; a toJSON on the value itself or on a class of
  // the runner's is called as JSON would, one on a built-in prototype (Node
  // defines none there but Buffer's and Date's) is not. Built only of what
  // the guard took before project code loaded: production code may have
  // replaced any prototype's method since.
  const BUILTIN = new Set(
    [Object, Array, Function, Error, Map, Set, RegExp, Promise, Number, String, Boolean, ArrayBuffer, DataView, Date]
      .map((C) => C.prototype)
      .concat(Object.getPrototypeOf(Uint8Array.prototype), Uint8Array.prototype, Buffer.prototype),
  );
  const builtin = (o) => apply(Set.prototype.has, BUILTIN, [o]);
  const { isDate, isUint8Array } = require('node:util').types;
  const byteLength = getOwnPropertyDescriptor(getPrototypeOf(Uint8Array.prototype), 'length').get;
  const { getTime, toISOString } = Date.prototype;
  const BufferProto = Buffer.prototype;
  function toJSONOf(v) {
    for (let o = v; o !== null; o = getPrototypeOf(o)) {
      const d = getOwnPropertyDescriptor(o, 'toJSON');
      if (!d) continue;
      if (o !== v && builtin(o)) return undefined;
      return 'value' in d ? d.value : d.get ? apply(d.get, v, []) : undefined;
    }
    return undefined;
  }
  function plainData(v, stack) {
    if (v === null || typeof v !== 'object') return v;
    for (let i = 0; i < stack.length; i++) if (stack[i] === v) return v;
    if (isUint8Array(v) && getPrototypeOf(v) === BufferProto) {
      const n = apply(byteLength, v, []);
      const data = list();
      for (let i = 0; i < n; i++) data[i] = v[i];
      const out = { __proto__: null, type: 'Buffer' };
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
    let out;
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

  // A worker's results reach its pool over IPC (process.send, a
  // MessagePort): production code may not wrap it, nor send on a worker
  // process's channel. (Node posts a worker thread's console output through
  // a MessagePort on the caller's stack, so posting stays allowed.)
  const fromPatch = (_, who) => who().kind === 'patch';
  // Below process.send, Node writes each message through the channel's pipe
  // handle, which hangs on process under a symbol: its write methods are
  // fixed and the property made read-only. On a JSON channel (vitest's
  // tinypool, mocha's workerpool; jest-worker's is v8-serialized)
  // JSON.stringify would call every toJSON it finds on the message's way, on
  // prototypes production code can reach (Buffer's, Object's, Array's): the
  // message is handed to Node as a copy of plain data instead, with no
  // prototype, so that what the runner sends is what arrives.
  const handleKey = Object.getOwnPropertySymbols(process).find((s) => s.description === 'kChannelHandle');
  const channel = handleKey ? process[handleKey] : null;
  let json = false;
  if (channel && typeof channel === 'object') {
    readOnly(process, handleKey);
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
    json = Object.getOwnPropertySymbols(channel).some((s) => s.description === 'kJSONBuffer');
  }
  // Each message a worker sends its pool is a result on its way: the locked
  // built-ins are checked first.
  const sendJudge = json
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
  const { MessagePort } = require('node:worker_threads');
  guarded(MessagePort.prototype, 'postMessage', 'MessagePort.postMessage', never);

  // vitest (its forks and threads pools) keeps what decides each result in
  // its worker's own realm, in plain objects production code can reach
  // (globalThis.__vitest_worker__, getCurrentTest(), a test's context): the
  // worker state (its rpc sends every result), each test's id, flags,
  // function and result, and expect's assertion methods. Each such field
  // becomes an accessor that only vitest's code may set (expect's, any
  // library's or the base's), with no frame of production code on the stack:
  // a test as vitest makes it (it gives each its `context` with
  // Object.defineProperty, which the guard sees), the worker state as vitest
  // provides it, expect's methods before the first file of production code
  // is compiled. Each test's failure is also sent on the channel as vitest
  // settles it, and the report must show it.
  const WORKER_STATE = '__vitest_worker__';
  const EXPECT = Symbol.for('expect-global');
  // A runner's field, set by the runner's own code: refused with production
  // code on the stack, and when the setter's caller is not a file of the
  // runner (`own`; null: any library's or the base's): a bound Reflect.set,
  // or a library function that assigns what it is handed (chai's
  // util.flag), queued by production code, leaves no frame of it behind.
  // `throughBuiltins`: the caller is the first frame with a file (an array's
  // push calls a Proxy's trap), and may be the base's too.
  const VITEST_FILE = /[\\/]node_modules[\\/](?:vitest|vite-node|@vitest[\\/][^\\/]+)[\\/]/;
  const JEST_FILE = /[\\/]node_modules[\\/](?:expect|jest-[^\\/]+|@jest[\\/][^\\/]+)[\\/]/;
  function runnerSets(event, name, own, throughBuiltins = false) {
    const cs = sites();
    if (!cs) refuse(event, `${name} = …`, UNREADABLE);
    let caller = null;
    for (let i = 0; i < cs.length; i++) {
      const k = frameKind(cs[i]);
      if (k === 'guard' || (throughBuiltins && k === 'internal')) continue;
      if (k === 'patch') refuse(event, `${name} = …`, { file: show(cs[i].file), line: cs[i].line ?? 0 });
      caller ??= { kind: k, file: cs[i].file ?? '', line: cs[i].line ?? 0 };
    }
    const ok = own
      ? (caller?.kind === 'lib' && matches(own, caller.file)) || (throughBuiltins && caller?.kind === 'base')
      : caller?.kind === 'lib' || caller?.kind === 'base';
    if (!ok) {
      const by = caller?.file ? show(caller.file) : '(no caller: a built-in function)';
      refuse(event, `${name} = … by ${by}, not the runner`, { file: by, line: caller?.line ?? 0 });
    }
  }
  // Equality testers (expect.addEqualityTesters pushes to them; every
  // toEqual consults them), held so that only the runner's or the base's
  // code may add one.
  function heldTesters(testers, own, label) {
    const check = () => runnerSets(`${label} equality testers changed`, 'customEqualityTesters', own, true);
    return new Proxy(testers, {
      set(t, k, v) {
        check();
        return reflectSet(t, k, v);
      },
      defineProperty(t, k, d) {
        check();
        return reflectDefine(t, k, d);
      },
      deleteProperty(t, k) {
        check();
        return reflectDelete(t, k);
      },
    });
  }
  function runnerOwned(o, key, label, wrap, own = VITEST_FILE) {
    const d = getOwnPropertyDescriptor(o, key);
    if (d && (!d.configurable || !('value' in d))) return;
    let value = wrap ? wrap(d?.value) : d?.value;
    define(o, key, {
      get: () => value,
      set(v) {
        runnerSets(`${label} changed`, `${label}.${nameOfKey(key)}`, own);
        value = wrap ? wrap(v) : v;
      },
      enumerable: d ? d.enumerable : true,
      configurable: false,
    });
  }
  const TEST_FIELDS = ['id', 'fails', 'mode', 'retry', 'repeats', 'onFinished', 'onFailed'];
  const RESULT_FIELDS = ['state', 'errors', 'pending'];
  const isTest = (o) => objectish(o) && o.type === 'test' && 'fails' in o && 'mode' in o;
  // vitest sets a test's duration once it is over, after its retries and its
  // `fails` flip: what the result says then is what the report must say. A
  // failure is sent on the channel as under node --test (the report must
  // show it failed: a result lost or rewritten on its way, or a test whose
  // id was changed so that its result never arrives, which vitest's JUnit
  // reporter writes as a pass, is refused). A test marked as expected to
  // fail passes when it fails, so a property may not be one (as pytest's
  // xfail counts as failed).
  function finished(test, r) {
    if (r.state === 'skip') return;
    if (test.fails)
      note(
        'vitest test.fails',
        `${JSON.stringify(String(test.name)).slice(0, 160)} is marked as expected to fail, which vitest reports as a pass when it fails; a property test may not be`,
        { file: '(vitest test)', line: 0 },
      );
    if (r.state === 'fail') send({ t: 'failed', name: String(test.name) });
  }
  function lockResult(r, test) {
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
  let justMade = null;
  let fnMap = null;
  const weakSet = WeakMap.prototype.set;
  const weakHas = WeakMap.prototype.has;
  WeakMap.prototype.set = {
    set(key, value) {
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
  // Every test vitest runs must be one it made, with no frame of production
  // code on the stack as it did (a collector's `test` swapped for one that
  // hands vitest another function, a test object of production code's own).
  const made = new WeakSet();
  function lockTask(task) {
    const a = patchOnStack();
    if (a?.kind === 'patch') refuse('vitest test made through production code', 'test(…)', a);
    made.add(task);
    for (const key of TEST_FIELDS) runnerOwned(task, key, 'vitest test');
    runnerOwned(task, 'result', 'vitest test', (r) => lockResult(r, task));
    justMade = task;
  }
  // Once a file's tests run, its tree is as collected: a test taken out of
  // its suite's tasks no longer fails its file.
  function freezeTasks(task) {
    const ts = task?.tasks;
    if (!isArray(ts) || Object.isFrozen(ts)) return;
    for (let i = 0; i < ts.length; i++) freezeTasks(ts[i]);
    freeze(ts);
  }
  let workerState;
  function lockState(state) {
    if (!objectish(state)) return;
    const ks = ownKeys(state);
    for (let i = 0; i < ks.length; i++) if (ks[i] !== 'current') runnerOwned(state, ks[i], 'vitest worker state');
    // A test about to run: collection is over, and with it the base's setup
    // files (production code loaded without a compile the guard sees, as
    // Node's own ES module loader does, has run by then).
    runnerOwned(state, 'current', 'vitest worker state', (t) => {
      if (t !== workerState?.current) lockState(workerState);
      if (objectish(t) && t.type === 'test') {
        if (!made.has(t)) refuse('vitest test not made by vitest', String(t.name).slice(0, 120), actor());
        lockVitest();
        freezeTasks(t.file);
      }
      return t;
    });
    // The run's configuration, read as tests run (`passWithNoTests`, the
    // diff options each failure is processed with, `retry`): vitest's own.
    if (objectish(state.config))
      for (const key of ownKeys(state.config)) runnerOwned(state.config, key, 'vitest config');
  }
  function provideState(state) {
    runnerSets('vitest worker state changed', `globalThis.${WORKER_STATE}`, VITEST_FILE);
    workerState = state;
    lockState(state);
  }
  // vitest's runner (the guard meets it as vitest hands it its executor):
  // runTest calls a `runTask` in place of each test's function where the
  // runner has one, so its classes are frozen and each hook it lacks is
  // fixed as absent; its own methods (vitest wraps some) are vitest's to set.
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
  let runner = null;
  function lockRunner(r) {
    for (let p = getPrototypeOf(r); p !== null && p !== Object.prototype; p = getPrototypeOf(p)) freeze(p);
    for (const key of ownKeys(r)) if (typeof r[key] === 'function') runnerOwned(r, key, 'vitest runner');
    for (const key of RUNNER_HOOKS)
      if (!(key in r)) define(r, key, { value: undefined, writable: false, configurable: false, enumerable: false });
  }
  // Before production code runs in a vitest worker, Object.prototype takes
  // no more names: vitest reads optional fields of plain objects and of its
  // runner (a test's options' `fails`, the runner's `runTask`, chai's
  // `negate` flag) where a name inherited from there would answer.
  let protoLocked = false;
  let vitestLocked = false;
  function lockVitest() {
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
    const expect = globalThis[EXPECT];
    if (typeof expect !== 'function') return;
    vitestLocked = true;
    // Every matcher and chai's own assertion live on chai's Assertion.prototype,
    // which an assertion made here shows (not counted as one of a test's).
    const { assertionCalls } = expect.getState?.() ?? {};
    const proto = getPrototypeOf(expect(undefined));
    expect.setState?.({ assertionCalls });
    lockMethods(proto, 'vitest expect (Assertion.prototype)', false);
    for (const key of ownKeys(proto)) {
      const d = getOwnPropertyDescriptor(proto, key);
      if (d.configurable) define(proto, key, { configurable: false });
    }
    readOnly(globalThis, EXPECT);
    // The equality testers every toEqual consults, held.
    const JM = Symbol.for('$$jest-matchers-object');
    const jd = getOwnPropertyDescriptor(globalThis, JM);
    if (jd?.get && jd.configurable) {
      const testers = apply(jd.get, globalThis, []).customEqualityTesters;
      const held = isArray(testers) ? heldTesters(testers, VITEST_FILE, 'vitest expect') : testers;
      define(globalThis, JM, {
        get() {
          const o = apply(jd.get, this, []);
          if (objectish(o)) o.customEqualityTesters = held;
          return o;
        },
        enumerable: jd.enumerable,
        configurable: false,
      });
    }
    for (const sym of [Symbol.for('matchers-object'), Symbol.for('asymmetric-matchers-object')])
      if (getOwnPropertyDescriptor(globalThis, sym)?.configurable) define(globalThis, sym, { configurable: false });
    const jm = globalThis[JM];
    if (objectish(jm?.matchers))
      for (const name of ownKeys(jm.matchers))
        runnerOwned(jm.matchers, name, 'vitest expect matchers', undefined, null);
  }
  Object.defineProperty = {
    defineProperty(o, key, d) {
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
  }.defineProperty;

  lockIntrinsics(globalThis, mainOwners);
  process.on('exit', () => {
    try {
      checkLocked(mainOwners);
    } catch {
      /* sent as a finding */
    }
    send({ t: 'final' });
  });
  // Worker pools (vitest's tinypool, jest-worker) end their worker processes
  // with a signal, and their threads by terminating them: neither gets to
  // send its final record, so the process that ends it sends one for it when
  // the runner (not production code) asks. A worker that dies any other way
  // still ends without one.
  const ended = (pid, how) => {
    const a = actor();
    if (a.kind !== 'patch' && a.kind !== 'none') send({ t: 'final', ended: how }, pid);
  };
  const { ChildProcess } = require('node:child_process');
  const childKill = ChildProcess.prototype.kill;
  ChildProcess.prototype.kill = function (...args) {
    if (this.pid && args[0] !== 0 && this.exitCode === null && this.signalCode === null)
      ended(String(this.pid), 'killed by its pool');
    return Reflect.apply(childKill, this, args);
  };
  const { Worker } = require('node:worker_threads');
  const terminate = Worker.prototype.terminate;
  Worker.prototype.terminate = function (...args) {
    if (this.threadId >= 0) ended(`${process.pid}.${this.threadId}`, 'terminated by its pool');
    return Reflect.apply(terminate, this, args);
  };
})();
