// Measuring: wall time (and peak memory) of whole commands, each against a
// baseline measured in the same run, the two alternating run by run.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The CLI under test: a build folder of one's own (relative or absolute) when PATCHWARDEN_BUILD_DIR says so. */
export const CLI = path.resolve(PROJECT, process.env.PATCHWARDEN_BUILD_DIR ?? 'dist', 'main.js');

/**
 * The environment every measured command runs in: the caller's, less
 * NODE_EXTRA_CA_CERTS. A machine that sets it makes every node start read a
 * certificate bundle first (tens of ms); the hook shims unset it, and a user's
 * machine rarely sets it. `bench.ts` prints what it costs where it is set.
 */
export function benchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** The same, for git that reads no user or system config and commits as one fixed author. */
export function benchGitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return benchEnv({
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'Bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
    ...extra,
  });
}

export interface Row {
  name: string;
  /** Each run's measure, in the order run; paired run by run with `baseline` when both have several. */
  ours: number | number[];
  baseline: number | number[];
  /** The baseline spelled out: the command a reader can run, or the fixed limit it stands for. */
  baselineName: string;
  /** The command measured as "patchwarden", spelled out the same way. */
  oursName?: string;
  /** The ratio the issue asks for (ours / baseline at most this). */
  target?: number;
  /** A bound on ours alone, in the row's unit, where the issue sets one. */
  ceiling?: number;
  /** A fixed limit printed beside the row (e.g. a hosting service's), and checked. */
  limit?: { ms: number; name: string };
  /** Extra units allowed on top of target × baseline (e.g. "plus one second"). */
  slack?: number;
  /** invariants: a count, where the row is an equality (target 0 differing). */
  unit?: 'ms' | 'MB' | 'µs' | 'invariants';
  /** Lines printed under the row: figures that say what part of it is not patchwarden's. */
  note?: string[];
  /** CPU ms (user and system, children included) of each run of `ours` and `baseline`, as `paired` measures it. */
  cpu?: { ours: number[]; baseline: number[] };
  /**
   * Consecutive rounds of the same measurement, each judged on its own: the
   * row meets its target only when every round does. `ours` and `baseline`
   * then hold every round's runs.
   */
  rounds?: { ours: number[]; baseline: number[] }[];
}

export interface Cmd {
  cmd: string;
  args: string[];
  opts?: SpawnSyncOptions;
}

/** Wall time in ms of one run; throws when the command cannot start or fails. */
export function timeOnce(cmd: Cmd): number {
  return measureOnce(cmd).wall;
}

/** Wall time and CPU time (of the command and every process under it) in ms of one run. */
function measureOnce({ cmd, args, opts = {} }: Cmd): { wall: number; cpu: number } {
  const c = childrenCpu();
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env: benchEnv(), ...opts, stdio: ['pipe', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`bench: ${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr).trim()}`);
  return { wall, cpu: childrenCpu() - c };
}

/**
 * CPU ms of this process's ended children (Linux: cutime and cstime of
 * /proc/self/stat, in clock ticks of 10 ms); 0 elsewhere. A child's figure
 * includes the processes it waited for (git under the hook).
 */
function childrenCpu(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return 0;
  }
}

/**
 * `runs` paired runs (after one warm-up of each), alternating which goes
 * first: wall times, and the CPU time of each run. On a loaded machine the
 * CPU time is the figure that holds still.
 */
export function paired(
  ours: Cmd,
  baseline: Cmd,
  runs = 7,
): { ours: number[]; baseline: number[]; cpu: { ours: number[]; baseline: number[] } } {
  timeOnce(ours);
  timeOnce(baseline);
  const a: { wall: number; cpu: number }[] = [];
  const b: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2) {
      b.push(measureOnce(baseline));
      a.push(measureOnce(ours));
    } else {
      a.push(measureOnce(ours));
      b.push(measureOnce(baseline));
    }
  }
  const wall = (xs: { wall: number }[]) => xs.map((x) => x.wall);
  const cpu = (xs: { cpu: number }[]) => xs.map((x) => x.cpu);
  return { ours: wall(a), baseline: wall(b), cpu: { ours: cpu(a), baseline: cpu(b) } };
}

/**
 * CPU time (user and system) in ms, wall time in ms and peak resident memory
 * in MB of one run, from GNU time; null when GNU time is missing. On a loaded
 * machine the CPU time is the figure that holds still.
 */
export function cpuTimeOnce({ cmd, args, opts = {} }: Cmd): { cpu: number; wall: number; peak: number } | null {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e %M', cmd, ...args], {
    env: benchEnv(),
    ...opts,
    stdio: ['pipe', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.error) return null;
  if (r.status !== 0) throw new Error(`bench: ${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr).trim()}`);
  const [user, sys, wall, kb] = String(r.stderr).trim().split('\n').pop()!.split(' ').map(Number);
  return { cpu: (user + sys) * 1000, wall: wall * 1000, peak: kb / 1024 };
}

/** Peak resident memory in MB of one run, from GNU time when present. */
export function peakMemory(cmd: string, args: string[], opts: SpawnSyncOptions = {}): number | null {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], {
    env: benchEnv(),
    ...opts,
    stdio: ['pipe', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.error) return null;
  const kb = Number(String(r.stderr).trim().split('\n').pop());
  return Number.isFinite(kb) ? kb / 1024 : null;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A command as a reader would type it, with the project's paths shortened. */
export function spell(cmd: string, args: string[]): string {
  const short = (a: string) =>
    a === process.execPath ? 'node' : a.startsWith(PROJECT + path.sep) ? path.relative(PROJECT, a) : a;
  return [cmd, ...args]
    .map(short)
    .map((a) => (/^[\w./=:,@%+-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}
