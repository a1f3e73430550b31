// One run of `properties.command` on a tree, read back through its JUnit
// report and mapped to invariant ids. Everything that keeps the run from
// saying anything (not configured, timed out, no report, unreadable report) is
// a `problem`: the callers refuse on it, they never read it as a pass. So is
// a report that disagrees with the command's exit code: production code runs
// inside the command and can reach the report. A guarded run (the revert
// check's) also has the runtime guards watch the command from inside, and
// any finding of theirs is a problem too.
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import { formatDuration } from '../common/duration.js';
import { shortList, showPath } from '../common/text.js';
import type { Config } from '../config/schema.js';
import { readReport } from '../junit/read.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand } from '../runner/command.js';
import { runEnv } from '../runner/env.js';
import { traced, traceMark } from '../common/trace.js';
import { checkoutFiles, checkoutTracked } from '../git/files.js';
import type { TreeEntry } from '../git/objects.js';
import { commonGitDir } from '../git/worktrees.js';
import { installDir } from '../runner/install.js';
import type { Classify } from '../zones/classify.js';
import { ORACLE_ZONES, type ZoneName } from '../zones/names.js';
import { unreported } from './guard/records.js';
import { type GuardSession, openGuard } from './guard/session.js';
import { GUARD_SOURCES } from './guard/sources.js';
import { mapCases, type Mapping, type Placement } from './mapping.js';
import type { Registry } from './registry.js';
import { propertyRunEnv, SHARD_VARIABLE, SIDE_VARIABLE, TREE_ENV } from './runenv.js';
import { openSealed, type SealedMode, type SealedSession, type WorkerSetup } from './sealed/env.js';
import { changedTrusted, stampTrusted } from './trusted-files.js';
import { changedTree, stampTree } from './tree-stamps.js';
import { fencePrefix } from './fence.js';
import { workspaceDirs } from './workspaces.js';

export interface PropertyRun {
  /** Null when the run produced nothing to map (see `problem`). */
  mapping: Mapping | null;
  /** Why the run says nothing, or null when its report was read. */
  problem: string | null;
  /** The command's own output (stdout and stderr), for showing on failure. */
  output: string;
  code: number | null;
  elapsedMs: number;
  /** Where production code ran (sealed/env.ts): `off` for an unguarded run. */
  sealed: SealedMode;
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
  guard?: {
    tmp: string;
    trusted: string[];
    main: string | null;
    gocache: string;
    /** The tree's entries, when the other side runs at the same time (only ever fenced, fence.ts): each is stamped and checked (tree-stamps.ts). */
    tracked?: TreeEntry[];
  };
  /** Set after the pinned variables, so no config changes them (the revert check's side). */
  env?: Record<string, string>;
  /** A guarded run: hears each case the runner says failed as it goes, before the report exists (pytest's plugin; guard/records.ts). */
  onFailing?: (name: string) => void;
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
      files ??= checkoutFiles(root, TREE_ENV);
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
  const { guard, sealed } = opts.guard
    ? openSessions(tree, config, opts.guard, opts.onFailing)
    : { guard: null, sealed: null };
  // Only a run with the other side beside it is fenced (fence.ts).
  const fenced = opts.guard?.tracked !== undefined;
  let run;
  let refused: string[] = [];
  let failures: string[] = [];
  let rewritten: string[] = [];
  let touched: string[] = [];
  try {
    const env = commandEnv(tree, config, opts, { guard, sealed, fenced });
    // {shard}: this run's share of its side (runenv.ts), 1/1 unless a matrix part set it.
    const shard = /^\d+\/\d+$/.test(env[SHARD_VARIABLE] ?? '') ? env[SHARD_VARIABLE]! : '1/1';
    const trusted = opts.guard ? stampTrusted(tree, judgingFiles(tree, opts.guard.trusted, opts.classify)) : null;
    const tracked = opts.guard?.tracked
      ? await traced(`${name}: tree stamped`, () => stampTree(tree, opts.guard!.tracked!))
      : null;
    run = await traced(`${name}: property command`, () =>
      runTestCommand(command.replaceAll('{shard}', shard), {
        cwd: treeDir,
        timeoutMs: config.properties.timeout,
        env,
        signal: opts.signal,
        junit: guard?.junit,
        onSpawn: () => traceMark(`${name}: property command started`),
        wrap: fenced ? fenceWrap(tree, opts.guard!.tmp, guard!, sealed) : undefined,
      }),
    );
    // Read only now that every process the command started has ended.
    if (guard) {
      const said = await traced(`${name}: guard records`, () => guard.finish());
      refused = said.problems;
      failures = said.failures;
    }
    if (trusted) rewritten = changedTrusted(tree, trusted);
    if (tracked) touched = changedTree(tree, tracked);
  } catch (err) {
    guard?.dispose();
    sealed?.dispose();
    throw err;
  }
  const base = {
    output: run.output,
    code: run.code,
    elapsedMs: run.elapsedMs,
    sealed: sealed?.mode ?? ('off' as const),
  };
  try {
    if (run.timedOut)
      return {
        ...base,
        mapping: null,
        problem: `the property command ran past properties.timeout (${formatDuration(config.properties.timeout)}) and was killed`,
      };
    if (rewritten.length) return { ...base, mapping: null, problem: rewrittenProblem(rewritten) };
    if (touched.length) return { ...base, mapping: null, problem: touchedProblem(touched) };
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
    sealed?.dispose();
  }
}

/** The command's environment: the guard's and the pinned variables, then the caller's, then sealing's. */
function commandEnv(
  tree: string,
  config: Config,
  opts: RunOptions,
  { guard, sealed, fenced }: { guard: GuardSession | null; sealed: SealedSession | null; fenced: boolean },
): NodeJS.ProcessEnv {
  const plain = {
    ...(guard ? propertyRunEnv(opts.guard!.tmp, opts.guard!.gocache, guard) : TREE_ENV),
    ...runEnv(config),
    ...opts.env,
  };
  return sealed && guard
    ? sealed.activate({ ...process.env, ...plain }, workerSetup(tree, config, opts, guard, fenced))
    : plain;
}

/** The files a run trusts as the base's: the spec's and harness's code, and every tracked file of an oracle zone (the spec, fixtures, the guard's own). */
function judgingFiles(tree: string, code: string[], classify: Classify): string[] {
  const oracle = checkoutTracked(tree, TREE_ENV).filter((f) => ORACLE_ZONES.includes(classify(f) as ZoneName));
  return [...new Set([...code, ...oracle])];
}

/** The fence of a run with the other side beside it: it writes its tree, its temporary root, its report and guard channel, its sealed worker's folders. */
function fenceWrap(tree: string, tmp: string, guard: GuardSession, sealed: SealedSession | null): string[] {
  return fencePrefix([tree, tmp, path.dirname(guard.junit), guard.channel, ...(sealed?.writable ?? [])]);
}

/** Why a run whose base spec, harness or fixture files changed meanwhile is not judged (trusted-files.ts). */
function rewrittenProblem(files: string[]): string {
  return `files the run trusts as the base's (its spec, harness and fixtures) changed while the property command ran (${shown(files)}): production code that rewrote one before it was read would change how it is judged, so this run is not judged. If the project's own tests write one (a snapshot written into its test file, a fixture opened for writing), run them so they do not (jest --ci, a copy under the temporary folder)`;
}

/** Why a run whose tree's files changed while both sides ran at once is not judged (tree-stamps.ts). */
function touchedProblem(files: string[]): string {
  return `files of the run's tree changed while both sides ran at once (${shown(files)}): under revert.jobs: 2 the other side's code runs beside this run as the same user and could change the mode of what it builds and runs (unreadable, not executable), so this run is not judged. If the project's own tests write, chmod or replace a tracked file, run them so they do not (a copy under the temporary folder), or set revert.jobs: 1`;
}

/** The first five of `files`, and how many more. */
function shown(files: string[]): string {
  return shortList(files.map(showPath));
}

/** A guarded run's guard, and its sealing (the guard counts the sealed runtimes as the harness's). */
function openSessions(
  tree: string,
  config: Config,
  g: NonNullable<RunOptions['guard']>,
  onFailing: RunOptions['onFailing'],
): { guard: GuardSession; sealed: SealedSession | null } {
  const sealed = openSealed(config);
  try {
    const guard = openGuard(
      {
        tree,
        main: g.main && realpathSync(g.main),
        trusted: g.trusted,
        writable: [realpathSync(g.tmp), tree],
        runtime: sealed?.runtime ?? null,
      },
      GUARD_SOURCES,
      onFailing,
    );
    return { guard, sealed };
  } catch (err) {
    sealed?.dispose();
    throw err;
  }
}

/**
 * What a sealed worker loads and must not reach: the tree's production
 * files, the dependency folders linked in from the main tree, and the
 * guard's folder, the run's temporary root, the git directory and the
 * judge's install kept out.
 */
function workerSetup(
  tree: string,
  config: Config,
  opts: RunOptions,
  guard: GuardSession,
  fenced: boolean,
): WorkerSetup {
  const main = opts.guard!.main;
  const entries = config.revert.link.flatMap((entry) =>
    path.basename(entry) === 'node_modules'
      ? [
          entry,
          ...workspaceDirs(path.join(main ?? tree, path.posix.dirname(entry))).map((ws) =>
            path.posix.join(path.posix.dirname(entry), ws, 'node_modules'),
          ),
        ]
      : [entry],
  );
  const judge = installDir();
  return {
    tree,
    src: checkoutFiles(tree, TREE_ENV)
      .filter((f) => opts.classify(f) === 'src')
      .flatMap((f) => {
        try {
          return [realpathSync(path.join(tree, f))];
        } catch {
          return [];
        }
      }),
    linked: main ? entries.map((e) => path.join(main, e)) : [],
    deny: [
      path.dirname(guard.config),
      opts.guard!.tmp,
      commonGitDir(tree, { ...process.env, ...TREE_ENV }),
      ...(judge ? [judge] : []),
    ],
    tmp: opts.guard!.tmp,
    fenced,
  };
}
