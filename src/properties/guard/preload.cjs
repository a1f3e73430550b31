// patchwarden's runtime guard for one Node property run, preloaded through
// NODE_OPTIONS (--require) in every Node process of the run, before any
// project code. It keeps production code from ending the process, killing,
// aborting or loading bindings (process.exit, reallyExit, kill, abort,
// binding, _linkedBinding) and from writing the test report, and keeps
// globalThis.process, those methods and node:test's exports from being
// redefined. Each refusal is a record on the run's channel and an error
// thrown at the call; the last record says the process ended through the guard.
'use strict';
(() => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { fileURLToPath } = require('node:url');
  const { threadId } = require('node:worker_threads');
  const where = process.env.PATCHWARDEN_GUARD;
  if (!where) return;
  const cfg = JSON.parse(fs.readFileSync(where, 'utf8'));
  const fd = fs.openSync(cfg.channel, 'w');
  const writeSync = fs.writeSync;
  const stringify = JSON.stringify;
  const id = threadId ? `${process.pid}.${threadId}` : String(process.pid);
  const send = (rec) => {
    try {
      writeSync(fd, stringify({ ...rec, pid: id }) + '\n');
    } catch {
      /* the channel is gone: no final record, the run fails closed */
    }
  };
  send({ t: 'start', rt: 'node', v: process.versions.node });
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
  const trusted = new Set(cfg.trusted);
  const tree = cfg.tree;
  const report = cfg.report;
  const guardFile = __filename;
  const capture = Error.captureStackTrace;
  const kinds = new Map();

  // 'internal' Node itself, 'framework' node's test runner, 'lib' an
  // installed package, 'base' the spec or harness as on the base side,
  // 'guard' this file, 'patch' the rest.
  function kind(file) {
    if (!file) return 'internal';
    let k = kinds.get(file);
    if (k) return k;
    if (file.startsWith('node:'))
      k = file.startsWith('node:internal/test_runner/') || file === 'node:test' ? 'framework' : 'internal';
    else {
      let p = file;
      try {
        p = fs.realpathSync(file.startsWith('file:') ? fileURLToPath(file) : file);
      } catch {
        /* gone: judged by its name */
      }
      const rel = p.startsWith(tree + path.sep)
        ? p
            .slice(tree.length + 1)
            .split(path.sep)
            .join('/')
        : null;
      // Inside the tree only the root's node_modules is installed code: a
      // node_modules folder the patch adds under src is the patch's.
      if (p === guardFile) k = 'guard';
      else if (rel !== null) k = trusted.has(rel) ? 'base' : rel.startsWith('node_modules/') ? 'lib' : 'patch';
      else k = p.split(path.sep).includes('node_modules') ? 'lib' : 'patch';
    }
    kinds.set(file, k);
    return k;
  }

  function sites() {
    const prepare = Error.prepareStackTrace;
    const limit = Error.stackTraceLimit;
    const holder = {};
    try {
      Error.prepareStackTrace = (_, cs) => cs;
      Error.stackTraceLimit = Infinity;
      capture(holder, sites);
      return Array.isArray(holder.stack) ? holder.stack : null;
    } finally {
      Error.prepareStackTrace = prepare;
      Error.stackTraceLimit = limit;
    }
  }

  // The first frame that is not Node itself or the guard: whose code asked for
  // it. A call with none (a callback Node runs, such as setTimeout(process.exit))
  // answers to nobody, so it is refused too.
  function actor() {
    const cs = sites();
    if (!cs) return { kind: 'patch', file: '(stack unreadable: Error.prepareStackTrace is held)', line: 0 };
    for (const c of cs) {
      const file = c.getFileName();
      let k = kind(file);
      // Code compiled from a string answers as the patch's unless installed or base code holds it.
      if (c.isEval() && k !== 'lib' && k !== 'base' && k !== 'framework') k = 'patch';
      if (k === 'internal' || k === 'guard') continue;
      return { kind: k, file: show(file), line: c.getLineNumber() ?? 0 };
    }
    return { kind: 'none', file: '(no caller: a callback Node itself runs)', line: 0 };
  }

  function show(file) {
    if (!file) return '';
    let p = file;
    try {
      p = file.startsWith('file:') ? fileURLToPath(file) : file;
    } catch {
      /* as written */
    }
    return p.startsWith(tree + path.sep)
      ? p
          .slice(tree.length + 1)
          .split(path.sep)
          .join('/')
      : p;
  }

  function refuse(event, detail, a) {
    send({ t: 'finding', event, detail: String(detail).slice(0, 300), file: a.file, line: a.line });
    throw new Error(
      `patchwarden: refused in a property run: ${event} from production code (${a.file}:${a.line}): ${detail}`,
    );
  }

  function guarded(owner, name, event, judge) {
    const real = owner[name];
    if (typeof real !== 'function') return;
    const wrapper = {
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
        return Reflect.apply(real, this, args);
      },
    }[name];
    Object.defineProperty(owner, name, { value: wrapper, writable: false, configurable: false, enumerable: true });
  }

  const always = (_, who) => who().kind === 'patch' || who().kind === 'none';
  for (const name of ['exit', 'reallyExit', 'kill', 'abort', 'binding', '_linkedBinding', 'dlopen'])
    guarded(process, name, `process.${name}`, always);

  const resolved = (p) => {
    if (typeof p !== 'string' && !(p instanceof URL) && !Buffer.isBuffer(p)) return null;
    let s = p instanceof URL ? fileURLToPath(p) : String(p);
    s = path.resolve(s);
    try {
      return path.join(fs.realpathSync(path.dirname(s)), path.basename(s));
    } catch {
      return s;
    }
  };
  // By name first, so most calls cost no system call; a link to the report
  // under another name cannot be made (link and symlink are judged too).
  const reportName = path.basename(report);
  const isReport = (p) => (typeof p === 'string' ? path.basename(p) === reportName : true) && resolved(p) === report;
  const WRITE_FLAGS = /[wa+]/;
  // A write stream opens its file a tick after it is made, when no caller is
  // left on the stack: one such open of the report is allowed for each report
  // stream the runner itself made.
  let streams = 0;
  const writesReport = (n, flagsAt) => (args, who) => {
    for (let i = 0; i < n; i++)
      if (isReport(args[i])) {
        const a = who();
        if (flagsAt !== undefined) {
          const flags = args[flagsAt];
          const writes =
            typeof flags === 'number'
              ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) !== 0
              : flags !== undefined && WRITE_FLAGS.test(String(flags));
          if (!writes) return false;
          if (a.kind === 'none' && streams > 0) {
            streams--;
            return false;
          }
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
    writeFile: writesReport(1),
    appendFile: writesReport(1),
    truncate: writesReport(1),
    rm: writesReport(1),
    unlink: writesReport(1),
    copyFile: writesReport(2),
    cp: writesReport(2),
    rename: writesReport(2),
    link: writesReport(2),
    symlink: writesReport(2),
    open: writesReport(1, 1),
    utimes: writesReport(1),
    chmod: writesReport(1),
  };
  for (const [op, judge] of Object.entries(fileOps)) {
    for (const name of [op, `${op}Sync`]) guarded(fs, name, `fs.${name} on the test report`, judge);
    guarded(fs.promises, op, `fs.promises.${op} on the test report`, judge);
  }

  // What the run is judged by cannot be swapped: the process object, and node:test's exports.
  Object.defineProperty(globalThis, 'process', {
    value: process,
    writable: false,
    configurable: false,
    enumerable: false,
  });
  Object.freeze(require('node:test'));

  process.on('exit', () => send({ t: 'final' }));
})();
