// patchwarden's runtime guard for one Node property run, preloaded through
// NODE_OPTIONS (--require) in every Node process of the run, before any
// project code. It keeps production code from ending the process, killing,
// aborting or loading bindings (process.exit, reallyExit, kill, abort,
// binding, _linkedBinding), from starting processes, from touching the test
// report or the guard's folder or writing outside the run's folders, from
// replacing node:assert, and from
// rewriting the results a worker sends its pool (its IPC, v8's serializer,
// the channel's pipe, node's stream prototypes, node:test's reporter, the
// built-in prototypes in every realm), jest-circus's state or vitest's
// tests, worker state and expect; it keeps globalThis.process, the global
// names of the built-ins, those methods and the test frameworks' globals
// and exports (node:test, mocha, jest, vitest) from being rebound, inside
// the vm contexts jest runs tests in too; vitest's vm pools are refused.
// Who asked is read from the stack (stack.ts). Each refusal is a record on
// the run's channel and an error thrown at the call; under node --test and
// vitest each failure the runner settles is a record too, which the report
// must agree with; the last record says the process ended through the guard
// (or was ended by its pool).
//
// The modules of this folder are bundled into the one CommonJS file each
// guarded run writes out and loads (scripts/guard-preload.mjs); this is its
// entry. Loading it installs the guard and exposes nothing.
import fs from 'node:fs';
import path from 'node:path';
import workerThreads from 'node:worker_threads';
import { freezeSerializer, lockIntrinsics, lockStreams } from './builtins.js';
import { guardFiles } from './files.js';
import { bindGlobals } from './globals.js';
import { guardIpc } from './ipc.js';
import { install } from './lock-list.js';
import { checkLocked, mainOwners } from './locks.js';
import { guardProcess, guardSpawns, recordPoolEnds } from './process.js';
import { openChannel, send } from './record.js';
import { isJestMain } from './runners/jest.js';
import { guardAssert, guardAsyncScope, selectTests, watchReporter } from './runners/node-test.js';
import { watchVitest } from './runners/vitest.js';
import { installStack } from './stack.js';
import { guardCompiles } from './vm.js';

/** The guard's configuration (session.ts writes it). */
interface GuardConfig {
  channel: string;
  tree: string;
  trusted: string[];
  report: string;
  runtime: string | null;
  /** The folders the run may write (real paths: its temporary root, the tree). */
  writable: string[];
}

function main(): void {
  const where = process.env.PATCHWARDEN_GUARD;
  if (!where) return;
  const cfg: GuardConfig = JSON.parse(fs.readFileSync(where, 'utf8'));
  const { threadId, isMainThread, parentPort } = workerThreads;
  openChannel(cfg.channel, threadId ? `${process.pid}.${threadId}` : String(process.pid));
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
  const tree = cfg.tree;
  install('stack traces', () =>
    installStack({
      tree,
      trusted: new Set(cfg.trusted),
      runtime: typeof cfg.runtime === 'string' ? cfg.runtime : null,
      guardFile: __filename,
    }),
  );
  install('process calls', guardProcess);
  install('report writes', () => guardFiles(path.dirname(where), cfg.report, cfg.writable));
  // jest runs each test file in a vm context of its own, whose globals it
  // copies from this one and then sets: its processes lock them inside each
  // context instead (vm.ts).
  if (!isJestMain(process.argv[1] || '')) install('globals', bindGlobals);
  install('compiles', () => guardCompiles(tree));
  install('node:test exports', () => Object.freeze(require('node:test')));
  if (process.env.PATCHWARDEN_ONLY !== undefined) selectTests(new Set(JSON.parse(process.env.PATCHWARDEN_ONLY)));
  install('v8 serializer', freezeSerializer);
  install('stream prototypes', lockStreams);
  install('node:test reporter', watchReporter);
  install('node:assert', guardAssert);
  install('async scope', guardAsyncScope);
  install('processes started', guardSpawns);
  install('IPC', guardIpc);
  install('vitest', watchVitest);
  install('built-ins', () => lockIntrinsics(globalThis, mainOwners));
  process.on('exit', () => {
    try {
      checkLocked(mainOwners);
    } catch {
      /* sent as a finding */
    }
    send({ t: 'final' });
  });
  recordPoolEnds();
}

main();
