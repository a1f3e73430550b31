// One run of `properties.command` on a tree, read back through its JUnit
// report and mapped to invariant ids. Everything that keeps the run from
// saying anything (not configured, timed out, no report, unreadable report) is
// a `problem`: the callers refuse on it, they never read it as a pass. So is
// a report that disagrees with the command's exit code: production code runs
// inside the command and can reach the report. A guarded run (the revert
// check's) also has the runtime guards watch the command from inside, and
// any finding of theirs is a problem too.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import { formatDuration } from '../common/duration.js';
import type { Config } from '../config/schema.js';
import { readReport } from '../junit/read.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand } from '../runner/command.js';
import { runEnv } from '../runner/env.js';
import { traced } from '../common/trace.js';
import { splitNul } from '../git/run.js';
import type { Classify } from '../zones/classify.js';
import { unreported } from './guard/records.js';
import { openGuard } from './guard/session.js';
import { GUARD_SOURCES } from './guard/sources.js';
import { mapCases, type Mapping, type Placement } from './mapping.js';
import type { Registry } from './registry.js';
import { propertyRunEnv, SHARD_VARIABLE, SIDE_VARIABLE, TREE_ENV } from './runenv.js';

export interface PropertyRun {
  /** Null when the run produced nothing to map (see `problem`). */
  mapping: Mapping | null;
  /** Why the run says nothing, or null when its report was read. */
  problem: string | null;
  /** The command's own output (stdout and stderr), for showing on failure. */
  output: string;
  code: number | null;
  elapsedMs: number;
}

export interface RunOptions {
  /** The zones of the judging config: only cases from spec files count. */
  classify: Classify;
  /** Kills the command (its whole process group) when aborted. */
  signal?: AbortSignal;
  /**
   * A guarded run (the revert check's): its own temporary root, and the code
   * files of the tree that are the base's spec and harness. The runtime
   * guards watch it, and any finding of theirs refuses it.
   */
  guard?: { tmp: string; trusted: string[]; main: string | null; gocache: string };
  /** Set after the pinned variables, so no config changes them (the revert check's side). */
  env?: Record<string, string>;
}

export function propertyCommand(config: Config): string {
  const command = config.properties.command;
  if (!command)
    throw new CannotJudge(
      `properties.command is not set in ${config.source}; the revert check needs the command that runs the properties`,
    );
  return command;
}

/** Spec files of the tree the command ran in. */
function placement(root: string, classify: Classify): Placement {
  let files: string[] | null = null;
  return {
    root,
    locate: (suffix) => {
      files ??= splitNul(
        execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
          cwd: root,
          env: { ...process.env, ...TREE_ENV },
          maxBuffer: 1 << 30,
        }),
      );
      return files.filter((f) => f === suffix || f.endsWith(`/${suffix}`));
    },
    inSpec: (f) => classify(f) === 'spec',
    exists: (f) =>
      !f.startsWith('../') &&
      !path.isAbsolute(f) &&
      statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile() === true,
  };
}

/** Runs the property command once in `treeDir` and maps its cases to the registry. */
export async function runProperties(
  treeDir: string,
  config: Config,
  registry: Registry,
  opts: RunOptions,
): Promise<PropertyRun> {
  const command = propertyCommand(config);
  const tree = realpathSync(treeDir);
  const name = opts.env?.[SIDE_VARIABLE] ?? 'run';
  const guard = opts.guard
    ? openGuard(
        {
          tree,
          main: opts.guard.main && realpathSync(opts.guard.main),
          trusted: opts.guard.trusted,
          writable: [realpathSync(opts.guard.tmp), tree],
        },
        GUARD_SOURCES,
      )
    : null;
  let run;
  let refused: string[] = [];
  let failures: string[] = [];
  try {
    const env = {
      ...(guard ? propertyRunEnv(opts.guard!.tmp, opts.guard!.gocache, guard) : TREE_ENV),
      ...runEnv(config),
      ...opts.env,
    };
    // {shard}: this run's share of its side (runenv.ts), 1/1 unless a matrix part set it.
    const shard = /^\d+\/\d+$/.test(env[SHARD_VARIABLE] ?? '') ? env[SHARD_VARIABLE]! : '1/1';
    run = await traced(`${name}: property command`, () =>
      runTestCommand(command.replaceAll('{shard}', shard), {
        cwd: treeDir,
        timeoutMs: config.properties.timeout,
        env,
        signal: opts.signal,
        junit: guard?.junit,
      }),
    );
    // Read only now that every process the command started has ended.
    if (guard) {
      const said = await traced(`${name}: guard records`, () => guard.finish());
      refused = said.problems;
      failures = said.failures;
    }
  } catch (err) {
    guard?.dispose();
    throw err;
  }
  const base = { output: run.output, code: run.code, elapsedMs: run.elapsedMs };
  try {
    if (run.timedOut)
      return {
        ...base,
        mapping: null,
        problem: `the property command ran past properties.timeout (${formatDuration(config.properties.timeout)}) and was killed`,
      };
    if (refused.length)
      return { ...base, mapping: null, problem: `the runtime guard refused the run: ${refused.join('; ')}` };
    if (!existsSync(run.junit)) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited ${run.code}`;
      return {
        ...base,
        mapping: null,
        problem: `the property command ${how} without writing its JUnit report to {junit} (is --junitxml={junit} or --test-reporter-destination={junit} in properties.command?)`,
      };
    }
    try {
      const report = await traced(`${name}: report read`, () => readReport(run.junit));
      const changed = unreported(failures, report.cases);
      if (changed.length)
        return { ...base, mapping: null, problem: `the runtime guard refused the run: ${changed.join('; ')}` };
      const why = disagreement(run.code, run.signal, report.cases);
      if (why) return { ...base, mapping: null, problem: `properties.command: ${why}` };
      return {
        ...base,
        mapping: mapCases(report.cases, registry, placement(treeDir, opts.classify), config.properties.min_cases),
        problem: null,
      };
    } catch (err) {
      if (!(err instanceof CannotJudge)) throw err;
      return { ...base, mapping: null, problem: `the property command's JUnit report cannot be read: ${err.message}` };
    }
  } finally {
    run.dispose();
    guard?.dispose();
  }
}
