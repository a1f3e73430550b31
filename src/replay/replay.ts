// The edge that runs things: the command N times under one seed, each run's
// report read and turned into observations. A run that leaves no usable
// report is recorded as such (and judged a failed run by classify.ts).
import { existsSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';
import { formatDuration } from '../common/duration.js';
import type { Report, TestCase } from '../junit/types.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand, type CommandRun } from '../runner/command.js';
import type { Signed } from '../signature/types.js';
import { observeCases } from './observe.js';
import type { RunRecord } from './types.js';
import { counted } from '../common/text.js';

export interface ReplayOptions {
  command: string;
  cwd: string;
  runs: number;
  /** The pinned environment, with the seed (runner/env.ts). */
  env: Record<string, string>;
  timeoutMs: number;
  readReport(file: string): Promise<Report>;
  signCase(tc: TestCase): Signed | null;
  /** One line of progress (stderr). */
  progress(line: string): void;
}

const TAIL_LINES = 20;

function tail(output: string): string {
  return output.trimEnd().split('\n').slice(-TAIL_LINES).join('\n').slice(-4000);
}

/** Why a run's report cannot be used, or null when it can. */
function unusable(run: CommandRun, cases: TestCase[] | null): string | null {
  if (run.timedOut) return 'timed out';
  if (cases === null) return run.code === null ? `killed by ${run.signal}` : 'wrote no report';
  return disagreement(run.code, run.signal, cases);
}

async function once(k: number, opts: ReplayOptions): Promise<RunRecord> {
  const run = await runTestCommand(opts.command, { cwd: opts.cwd, timeoutMs: opts.timeoutMs, env: opts.env });
  try {
    let cases: TestCase[] | null = null;
    let readError: string | undefined;
    if (existsSync(run.junit)) {
      try {
        cases = (await opts.readReport(run.junit)).cases;
      } catch (err) {
        // A runner killed half-way leaves half a report: that run has none.
        if (!(err instanceof CannotJudge)) throw err;
        readError = `its report cannot be read: ${err.message}`;
      }
    }
    const record = {
      run: k,
      exit_code: run.code,
      signal: run.signal,
      timed_out: run.timedOut,
      elapsed_ms: run.elapsedMs,
    };
    const why = readError ?? unusable(run, cases);
    if (why || !cases) {
      return { ...record, report: false, error: why ?? 'wrote no report', output_tail: tail(run.output), cases: [] };
    }
    return { ...record, report: true, cases: observeCases(cases, opts.signCase, `report of run ${k}`) };
  } finally {
    run.dispose();
  }
}

export async function replay(opts: ReplayOptions): Promise<RunRecord[]> {
  const started = Date.now();
  const records: RunRecord[] = [];
  for (let k = 1; k <= opts.runs; k++) {
    opts.progress(`replay: run ${k} of ${opts.runs} (${formatDuration(Date.now() - started)} elapsed)`);
    const r = await once(k, opts);
    const seen = r.report ? `${counted(r.cases.length, 'keyed case')}` : `no usable report: ${r.error}`;
    opts.progress(
      `replay: run ${k} of ${opts.runs}: exit ${r.exit_code ?? r.signal}, ${seen} (${formatDuration(r.elapsed_ms)})`,
    );
    records.push(r);
  }
  return records;
}
