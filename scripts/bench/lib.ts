// Measuring: medians of wall time (and peak memory) of whole commands, each
// against a baseline measured in the same run.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(PROJECT, process.env.PATCHWARDEN_BUILD_DIR ?? 'dist', 'main.js');

export interface Row {
  name: string;
  ours: number;
  baseline: number;
  baselineName: string;
  /** The ratio the issue asks for (ours / baseline at most this). */
  target: number;
  /** Extra ms allowed on top of target × baseline (e.g. "plus one second"). */
  slack?: number;
  unit?: 'ms' | 'MB';
}

/** Median wall time in ms of `runs` runs of a command (after one warm-up). */
export function timeCommand(cmd: string, args: string[], opts: SpawnSyncOptions = {}, runs = 7): number {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'], ...opts });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.error) throw r.error;
    if (i > 0) times.push(ms);
  }
  return median(times);
}

/** Peak resident memory in MB of one run, from GNU time when present. */
export function peakMemory(cmd: string, args: string[], opts: SpawnSyncOptions = {}): number | null {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { ...opts, stdio: ['pipe', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.error) return null;
  const kb = Number(String(r.stderr).trim().split('\n').pop());
  return Number.isFinite(kb) ? kb / 1024 : null;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
