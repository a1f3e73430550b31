// Process locks: production code may not end the process, kill, abort or
// load bindings, nor start a process (a child outside every guard, a shell
// or `cp`, could write the report, or outlive the run's process group).
import childProcess from 'node:child_process';
import workerThreads from 'node:worker_threads';
import { type CallJudge, guarded } from './locks.js';
import { send } from './record.js';
import { actor, unowned } from './stack.js';

/** The judge of a call only the runner may make, whatever its arguments. */
export const always: CallJudge = (_, who) => unowned(who());

export const PROCESS_CALLS = ['exit', 'reallyExit', 'kill', 'abort', 'binding', '_linkedBinding', 'dlopen'];
export const SPAWNS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];

export function guardProcess(): void {
  for (const name of PROCESS_CALLS) guarded(process, name, `process.${name}`, always);
}

export function guardSpawns(): void {
  for (const name of SPAWNS) guarded(childProcess, name, `child_process.${name}`, always);
  guarded(childProcess.ChildProcess.prototype, 'spawn', 'child_process.spawn', always);
}

/**
 * Worker pools (vitest's tinypool, jest-worker) end their worker processes
 * with a signal, and their threads by terminating them: neither gets to send
 * its final record, so the process that ends it sends one for it when the
 * runner (not production code) asks. A worker that dies any other way still
 * ends without one.
 */
export function recordPoolEnds(): void {
  const ended = (pid: string, how: string) => {
    if (!unowned(actor())) send({ t: 'final', ended: how }, pid);
  };
  const { ChildProcess } = childProcess;
  const childKill = ChildProcess.prototype.kill;
  ChildProcess.prototype.kill = function (this: InstanceType<typeof ChildProcess>, ...args) {
    if (this.pid && args[0] !== 0 && this.exitCode === null && this.signalCode === null)
      ended(String(this.pid), 'killed by its pool');
    return Reflect.apply(childKill, this, args);
  };
  const { Worker } = workerThreads;
  const terminate = Worker.prototype.terminate;
  Worker.prototype.terminate = function (this: InstanceType<typeof Worker>, ...args) {
    if (this.threadId >= 0) ended(`${process.pid}.${this.threadId}`, 'terminated by its pool');
    return Reflect.apply(terminate, this, args);
  };
}
