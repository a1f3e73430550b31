// One run of `properties.command` on a tree, read back through its JUnit
// report and mapped to invariant ids. Everything that keeps the run from
// saying anything (not configured, timed out, no report, unreadable report) is
// a `problem`: the callers refuse on it, they never read it as a pass. So is
// a report that disagrees with the command's exit code: production code runs
// inside the command and can reach the report.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import { formatDuration } from '../common/duration.js';
import type { Config } from '../config/schema.js';
import { readReport } from '../junit/read.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand } from '../runner/command.js';
import type { Classify } from '../zones/classify.js';
import { mapCases, type Mapping, type Placement } from './mapping.js';
import type { Registry } from './registry.js';

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
}

/** Git's own variables would point a command in another tree at the user's repository. */
export const TREE_ENV: NodeJS.ProcessEnv = { GIT_DIR: undefined, GIT_WORK_TREE: undefined, GIT_INDEX_FILE: undefined, GIT_PREFIX: undefined, GIT_COMMON_DIR: undefined, GIT_OBJECT_DIRECTORY: undefined };

export function propertyCommand(config: Config): string {
  const command = config.properties.command;
  if (!command) throw new CannotJudge(`properties.command is not set in ${config.source}; the revert check needs the command that runs the properties`);
  return command;
}

/** Spec files of the tree the command ran in. */
function placement(root: string, classify: Classify): Placement {
  return {
    root,
    inSpec: (f) => classify(f) === 'spec',
    exists: (f) => !f.startsWith('../') && !path.isAbsolute(f) && statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile() === true,
  };
}

/** Runs the property command once in `treeDir` and maps its cases to the registry. */
export async function runProperties(treeDir: string, config: Config, registry: Registry, opts: RunOptions): Promise<PropertyRun> {
  const command = propertyCommand(config);
  const run = await runTestCommand(command, { cwd: treeDir, timeoutMs: config.properties.timeout, env: TREE_ENV, signal: opts.signal });
  const base = { output: run.output, code: run.code, elapsedMs: run.elapsedMs };
  try {
    if (run.timedOut) return { ...base, mapping: null, problem: `the property command ran past properties.timeout (${formatDuration(config.properties.timeout)}) and was killed` };
    if (!existsSync(run.junit)) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited ${run.code}`;
      return { ...base, mapping: null, problem: `the property command ${how} without writing its JUnit report to {junit} (is --junitxml={junit} or --test-reporter-destination={junit} in properties.command?)` };
    }
    try {
      const report = await readReport(run.junit);
      const why = disagreement(run.code, run.signal, report.cases);
      if (why) return { ...base, mapping: null, problem: `properties.command: ${why}` };
      return { ...base, mapping: mapCases(report.cases, registry, placement(treeDir, opts.classify)), problem: null };
    } catch (err) {
      if (!(err instanceof CannotJudge)) throw err;
      return { ...base, mapping: null, problem: `the property command's JUnit report cannot be read: ${err.message}` };
    }
  } finally {
    run.dispose();
  }
}
