// Runs a configured test command (properties, suite, replay) through the
// shell, with a fresh path for its JUnit report in `{junit}` and in
// PATCHWARDEN_JUNIT, a timeout that kills the whole process group, and its
// output kept for when it is needed. The run is over when every process it
// started is (contain.ts says how, per host): what the command left running
// is killed before the report is read, so nothing detached can rewrite it
// afterwards. The judge's own modules are all loaded before the first
// command starts, and its install checked after each (install.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import { endCgroup, killCgroup } from './cgroup.js';
import { type Contained, containedSpawn, containment, launcherSurvivors } from './contain.js';
import { checkJudge, sealJudge } from './install.js';

export interface CommandRun {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Where the runner was asked to write its report (may not exist). */
  junit: string;
  /** stdout and stderr, interleaved as they came, capped at the last 1 MiB. */
  output: string;
  elapsedMs: number;
  /** How the processes it started were kept from outliving it. */
  contained: Contained;
  /** Removes the report's temporary folder. */
  dispose(): void;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** Aborting kills the command's process group (e.g. on Ctrl-C). */
  signal?: AbortSignal;
  /** Where the report goes, in a folder the caller owns; a fresh folder of its own when absent. */
  junit?: string;
  /** Told as the command starts (a trace's timeline). */
  onSpawn?: () => void;
  /** An argv the shell line runs under, inside the containment (the revert check's fence). */
  wrap?: string[];
}

const KEEP = 1 << 20;

/** Quotes the report path for the shell line it is put into. */
function quote(p: string): string {
  return `'${p.replace(/'/g, `'\\''`)}'`;
}

/** Polls until no process of the group is left (orphans may wait a moment to be reaped). */
async function groupEnded(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    }
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Runs the command to its end and every process it started with it. Throws
 * CannotJudge when a process it started was found alive and could not be
 * ended, or when the judge's own install changed while it ran.
 */
export async function runTestCommand(command: string, opts: CommandOptions): Promise<CommandRun> {
  // Both once per process, and often started earlier by the caller.
  await Promise.all([sealJudge(), containment()]);
  const { run, left } = await spawnContained(command, opts);
  try {
    // An interrupted check stops at its next step anyway, and says why.
    if (left && !opts.signal?.aborted)
      throw new CannotJudge(
        `processes the test command started outlived it and could not be ended (${left}), so nothing it reported is believed; end them and run again`,
      );
    await checkJudge();
  } catch (err) {
    run.dispose();
    throw err;
  }
  return run;
}

/** What outlived the run, said for a person, or null when everything it started is gone. */
function outlived(groupGone: boolean, survivors: number[] | null): string | null {
  if (survivors === null) return 'the launcher that was to end them was killed first';
  const said = [
    ...(groupGone ? [] : ['members of its process group']),
    ...(survivors.length ? [`process ${survivors.join(', ')}`] : []),
  ];
  return said.length ? said.join('; ') : null;
}

async function spawnContained(
  command: string,
  opts: CommandOptions,
): Promise<{ run: CommandRun; left: string | null }> {
  const dir = opts.junit ? null : mkdtempSync(path.join(tmpdir(), 'patchwarden-junit-'));
  const junit = opts.junit ?? path.join(dir!, 'report.xml');
  const shell = command.replaceAll('{junit}', quote(junit));
  const line = opts.wrap ? `${opts.wrap.map(quote).join(' ')} sh -c ${quote(shell)}` : shell;
  const { contained, file, args, reportFd, cgroup } = await containedSpawn(line);
  const started = Date.now();
  opts.onSpawn?.();
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, PATCHWARDEN_JUNIT: junit },
      stdio: ['ignore', 'pipe', 'pipe', ...(reportFd ? (['pipe'] as const) : [])],
      detached: true, // its own process group, so a timeout kills the runner's children too
    });
    let output = '';
    const keep = (b: Buffer) => {
      output += b.toString('utf8');
      if (output.length > KEEP * 2) output = output.slice(-KEEP);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let report = '';
    child.stdio[3]?.on('data', (b: Buffer) => (report += b.toString('utf8')));
    let timedOut = false;
    const kill = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 2000).unref();
    }, opts.timeoutMs);
    // If patchwarden itself is interrupted, the runner goes with it.
    const onExit = () => {
      kill('SIGKILL');
      if (cgroup) killCgroup(cgroup.dir, cgroup.kind);
    };
    process.once('exit', onExit);
    opts.signal?.addEventListener('abort', onExit, { once: true });
    const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      const elapsedMs = Date.now() - started;
      const groupGone = child.pid !== undefined ? await groupEnded(child.pid, 10_000) : true;
      // The launcher names what it could not end; no report at all means it was killed before it could look.
      const survivors = cgroup
        ? await endCgroup(cgroup.dir, cgroup.kind)
        : reportFd && child.pid !== undefined
          ? launcherSurvivors(report)
          : [];
      process.removeListener('exit', onExit);
      opts.signal?.removeEventListener('abort', onExit);
      const run = {
        code,
        signal,
        timedOut,
        junit,
        elapsedMs,
        contained,
        output: output.length > KEEP ? output.slice(-KEEP) : output,
        dispose: () => {
          if (dir) rmSync(dir, { recursive: true, force: true });
        },
      };
      resolve({ run, left: outlived(groupGone, survivors) });
    };
    child.on('error', (err) => {
      keep(Buffer.from(`cannot start: ${err.message}\n`));
      void finish(127, null);
    });
    // Whatever of the group outlives the shell is a straggler (it may hold the
    // output open, too): it goes before the report is read.
    child.on('exit', () => {
      kill('SIGKILL');
      if (cgroup) killCgroup(cgroup.dir, cgroup.kind);
    });
    child.on('close', (code, sig) => void finish(code, sig));
  });
}
