// The results file `replay --out` writes and `replay merge` reads: every run of
// one runner, checked field by field on the way in, since it crosses machines.
import { readFileSync, writeFileSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';
import type { CiRun } from './ci.js';
import type { EnvClass, Observation, Results, RunRecord } from './types.js';
import { isFixtureId } from '../fixtures/id.js';

export function writeResults(file: string, results: Results): void {
  try {
    writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  } catch (err) {
    throw new CannotJudge(
      `cannot write the results: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { file },
    );
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks one results object; `bad(where, what)` throws naming the file. */
function check(data: unknown, bad: (what: string) => never): Results {
  if (!isObject(data)) bad('not a replay results file (expected a JSON object)');
  if (data.format !== 'patchwarden-replay') bad('not a replay results file (no "format": "patchwarden-replay")');
  if (data.version !== 1)
    bad(`unknown results version ${JSON.stringify(data.version)} (this patchwarden reads version 1)`);
  if (typeof data.seed !== 'string' || !data.seed) bad('"seed" must be a non-empty string');
  if (data.env_class !== 'local' && data.env_class !== 'remote') bad('"env_class" must be "local" or "remote"');
  for (const k of ['command', 'runner', 'started'] as const)
    if (typeof data[k] !== 'string') bad(`"${k}" must be a string`);
  const ci = data.ci as Json | null | undefined;
  if (
    ci !== undefined &&
    ci !== null &&
    (!isObject(ci) || typeof ci.provider !== 'string' || typeof ci.run !== 'string')
  )
    bad('"ci" must be null or an object with "provider" and "run"');
  if (!Array.isArray(data.runs) || data.runs.length === 0) bad('"runs" must be a non-empty list');
  const runs = data.runs.map((r, i): RunRecord => {
    const at = `runs[${i}]`;
    if (!isObject(r)) bad(`${at} must be an object`);
    if (!Number.isInteger(r.run)) bad(`${at}.run must be an integer`);
    if (r.exit_code !== null && !Number.isInteger(r.exit_code)) bad(`${at}.exit_code must be an integer or null`);
    if (r.signal !== null && typeof r.signal !== 'string') bad(`${at}.signal must be a string or null`);
    if (typeof r.timed_out !== 'boolean' || typeof r.report !== 'boolean')
      bad(`${at}.timed_out and ${at}.report must be booleans`);
    if (typeof r.elapsed_ms !== 'number') bad(`${at}.elapsed_ms must be a number`);
    if (!Array.isArray(r.cases)) bad(`${at}.cases must be a list`);
    if (!r.report && r.cases.length) bad(`${at} has no report but lists cases`);
    const cases = r.cases.map((c, j): Observation => {
      const cat = `${at}.cases[${j}]`;
      if (!isObject(c)) bad(`${cat} must be an object`);
      if (typeof c.name !== 'string') bad(`${cat}.name must be a string`);
      if (c.outcome !== 'pass' && c.outcome !== 'fail' && c.outcome !== 'skipped')
        bad(`${cat}.outcome must be pass, fail or skipped`);
      if (c.sig !== undefined && (typeof c.sig !== 'string' || !/^[0-9a-f]+$/.test(c.sig)))
        bad(`${cat}.sig must be lowercase hex`);
      if (c.eligible !== undefined && typeof c.eligible !== 'boolean') bad(`${cat}.eligible must be a boolean`);
      if (c.frames !== undefined && (!Array.isArray(c.frames) || c.frames.some((f) => typeof f !== 'string')))
        bad(`${cat}.frames must be a list of strings`);
      // The key must be the one its ids give, so a hand-edited file cannot key a case by its name.
      const want =
        c.kind === 'fixture'
          ? typeof c.fixture === 'string' && isFixtureId(c.fixture)
            ? `fixture:${c.fixture}`
            : null
          : c.kind === 'invariant'
            ? typeof c.invariant === 'string' && c.invariant
              ? `invariant:${c.invariant}`
              : null
            : c.kind === 'signature'
              ? c.outcome === 'fail' && typeof c.sig === 'string'
                ? `sig:${c.sig}`
                : null
              : bad(`${cat}.kind must be fixture, invariant or signature`);
      if (want === null || c.key !== want) bad(`${cat}.key does not follow from its ${String(c.kind)} id`);
      return c as unknown as Observation;
    });
    return { ...(r as unknown as RunRecord), cases };
  });
  return { ...(data as unknown as Results), runs };
}

export function readResults(file: string): Results {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CannotJudge(`cannot read the results: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      file,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CannotJudge(`malformed JSON: ${(err as Error).message}`, {
      file,
      line: jsonErrorLine(text, err as Error),
    });
  }
  return check(data, (what) => {
    throw new CannotJudge(what, { file });
  });
}

/** The line of a JSON.parse error, from the position V8 reports. */
function jsonErrorLine(text: string, err: Error): number | undefined {
  const m = /position (\d+)/.exec(err.message);
  return m ? text.slice(0, Number(m[1])).split('\n').length : undefined;
}

export interface Merged {
  seed: string;
  envClass: EnvClass;
  /** The CI run of the first remote file that names one. */
  ci: CiRun | null;
  /** Every run of every file, with the file it came from. */
  runs: { source: string; record: RunRecord }[];
}

/**
 * Pools the runs of several runners. They must share a seed: under another
 * seed a case is another experiment, and a difference would read as flicker.
 * The merged class is remote when any runner was: a flake seen on a remote
 * runner is what a freeze is for.
 */
export function mergeResults(inputs: { file: string; results: Results }[]): Merged {
  const [first] = inputs;
  for (const { file, results } of inputs) {
    if (results.seed !== first.results.seed) {
      throw new CannotJudge(
        `seed ${results.seed} differs from seed ${first.results.seed} of ${first.file}: merge only results of one seed`,
        { file },
      );
    }
  }
  return {
    seed: first.results.seed,
    envClass: inputs.some((i) => i.results.env_class === 'remote') ? 'remote' : 'local',
    ci: inputs.find((i) => i.results.env_class === 'remote' && i.results.ci)?.results.ci ?? null,
    runs: inputs.flatMap(({ file, results }) => results.runs.map((record) => ({ source: file, record }))),
  };
}

/**
 * The merged runs as one results file (`replay merge --out`), the file a
 * `freeze add --from-replay` row is bound to: one seed, one pinned
 * environment (runs under another are another experiment), each run
 * numbered anew, the CI run and variables of the remote file that names one.
 */
export function mergedResults(inputs: { file: string; results: Results }[], merged: Merged): Results {
  const [first] = inputs;
  const env = JSON.stringify(first.results.env ?? null);
  const other = inputs.find((i) => JSON.stringify(i.results.env ?? null) !== env);
  if (other)
    throw new CannotJudge(
      `its pinned environment differs from that of ${first.file}: one results file holds runs of one environment; merge them without --out`,
      { file: other.file },
    );
  const withCi = inputs.find((i) => i.results.env_class === 'remote' && i.results.ci);
  return {
    format: 'patchwarden-replay',
    version: 1,
    seed: merged.seed,
    env_class: merged.envClass,
    command: first.results.command,
    runner: [...new Set(inputs.map((i) => i.results.runner))].join(', '),
    started: first.results.started,
    ci: merged.ci,
    ...(first.results.env && { env: first.results.env }),
    ...(withCi?.results.ci_vars && { ci_vars: withCi.results.ci_vars }),
    runs: merged.runs.map(({ record }, i) => ({ ...record, run: i + 1 })),
  };
}
