'use strict';
// The property side of a sealed run: one worker process per property
// process, started at the first import or require of a src-zone file, and
// the module proxies that stand for those files here. Production code never
// loads in this process. PROP_SEED stays this process's: the property's
// own seeding reads it, and fast-check starts with it as its global seed.
const { spawn } = require('node:child_process');
const { readFileSync, realpathSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { Peer, MODE, intrinsics } = require('./peer.cjs');

const KEY = Symbol.for('patchwarden.sealed.runtime');
/** fast-check's CommonJS entry (lib/ in version 3): it starts with PROP_SEED as its global seed. */
const FAST_CHECK_CJS = /[\\/]node_modules[\\/]fast-check[\\/]lib[\\/](?:cjs[\\/])?fast-check\.js$/;

class Runtime {
  /** @param {{ src: string[], confine: string[], env: Record<string, string>, root: string, calls: string }} config */
  constructor(config) {
    this.config = config;
    this.src = new Set(config.src);
    this.peer = null;
    this.namespaces = new Map();
    /** PROP_SEED, handed to fast-check as its global seed where it is a 32-bit integer. */
    this.seed = /^-?\d{1,10}$/.test(process.env.PROP_SEED ?? '') ? Number(process.env.PROP_SEED) | 0 : null;
  }

  isSrc(file) {
    if (this.src.has(file)) return true;
    try {
      return this.src.has(realpathSync(file));
    } catch {
      return false;
    }
  }

  /** The worker, started on first use; a worker that ended is an error at every call. */
  worker() {
    if (this.peer) return this.peer;
    const { confine, env, root } = this.config;
    const argv = [...confine, process.execPath, path.join(__dirname, 'worker.cjs')];
    // stdout and stderr both go to this process's stderr: a test runner reads
    // its children's stdout as its protocol, which production code must not write.
    const child = spawn(argv[0], argv.slice(1), { env, cwd: root, stdio: ['ignore', 2, 2, 'pipe'] });
    child.on('error', (e) => process.stderr.write(`${MODE}: the sealed worker did not start: ${e.message}\n`));
    child.unref();
    const socket = child.stdio[3];
    this.peer = new Peer({ fd: socket._handle.fd, handle: socket._handle, socket, side: 'property' });
    process.on('exit', () => this.tally());
    return this.peer;
  }

  /** This process's calls to its worker, for the run's cost line (config.calls: a folder the worker cannot reach). */
  tally() {
    const { peer } = this;
    try {
      writeFileSync(
        path.join(this.config.calls, `${process.pid}.json`),
        JSON.stringify({ calls: peer.nextQ - 1, ms: Number(peer.inCalls / 1_000_000n) }),
      );
    } catch {
      // The figure is told, never judged: a process that cannot write it costs the line only.
    }
  }

  /** module.exports of a src file, loaded in the worker (a CommonJS require here). */
  require(file) {
    return this.worker().call('require', { f: file });
  }

  /** The module namespace of a src file as the worker imports it, once per file. */
  namespace(file) {
    let ns = this.namespaces.get(file);
    if (!ns) {
      ns = this.worker().call('import', { f: file });
      this.namespaces.set(file, ns);
    }
    return ns;
  }

  /** A src file required here runs in the worker: its exports are what crosses. */
  hookRequire() {
    const rt = this;
    const compile = Module.prototype._compile;
    Module.prototype._compile = function (content, filename, format) {
      if (rt.isSrc(filename)) {
        this.exports = rt.require(filename);
        return undefined;
      }
      if (rt.seed !== null && format !== 'module' && FAST_CHECK_CJS.test(filename)) {
        const r = Reflect.apply(compile, this, [content, filename, format]);
        const fc = this.exports;
        fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: rt.seed });
        return r;
      }
      // require() of an ES module links its imports where no module hook
      // runs: refused as Node refused it before require(esm), so a runner
      // falls back to import() (mocha does), where the hooks run.
      if (format === 'module') {
        const err = new Error(`${MODE}: require() of the ES module ${filename}: load it with import()`);
        err.code = 'ERR_REQUIRE_ESM';
        throw err;
      }
      return Reflect.apply(compile, this, [content, filename, format]);
    };
    const native = Module._extensions['.node'];
    Module._extensions['.node'] = function (module, filename) {
      if (!rt.isSrc(filename)) return native.call(this, module, filename);
      module.exports = rt.require(filename);
      return undefined;
    };
  }

  /** Answers the module hooks' thread: the names a src module exports. */
  answer(port) {
    port.on('message', ({ q, f }) => {
      Promise.resolve()
        .then(() => this.namespace(f))
        .then(
          (ns) => port.postMessage({ q, names: Object.keys(ns) }),
          () => port.postMessage({ q, names: [] }),
        );
    });
    port.unref();
  }
}

/** The runtime of this process (one, however it was loaded), made from PATCHWARDEN_SEALED's file. */
function runtime() {
  if (!globalThis[KEY]) {
    // The realm's built-ins, before any test code runs: the worker gets no handle to one.
    intrinsics();
    const config = JSON.parse(readFileSync(process.env.PATCHWARDEN_SEALED, 'utf8'));
    Object.defineProperty(globalThis, KEY, { value: new Runtime(config) });
  }
  return globalThis[KEY];
}

module.exports = { runtime };
