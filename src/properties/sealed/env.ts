// One sealed property run: the runtimes written into a private folder, the
// JSON the property process's runtime reads (PATCHWARDEN_SEALED: the judged
// tree, its production files, how to confine the worker and the worker's
// whole environment), and the variables that load the runtimes first in the
// property process. The JSON sits beside the runtimes, outside the worker's
// reach; the worker's temporary root is a folder of its own, so nothing it
// writes lands where the property process reads (Hypothesis's database, the
// report).
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readRegularFile } from '../../common/regular-file.js';
import type { Config } from '../../config/schema.js';
import { SEED_VARIABLE } from '../../runner/env.js';
import confineSource from './confine.py';
import { abiReach, confinePrefix, landlockProbe } from './confine.js';
import { NODE_SEALED } from './node/sources.js';
import { PYTHON_SEALED } from './python/sources.js';

export type SealedMode = 'kernel' | 'process' | 'off';

/** The Landlock ABI this machine offers sealed workers (0: none), probed once per process. */
export function landlockAbi(): number {
  return landlockProbe(confineSource).abi;
}

export const SEALED_VARIABLE = 'PATCHWARDEN_SEALED';
/** The pytest plugin of the Python runtime (its module on PYTHONPATH). */
const PYTEST_PLUGIN = 'patchwarden_sealed';

/** The mode a run gets here: `kernel` falls back to `process` where the kernel has no Landlock. */
export function sealedMode(config: Config): SealedMode {
  const wanted = config.properties.sealed;
  return wanted === 'kernel' && landlockAbi() === 0 ? 'process' : wanted;
}

/** What each mode says in the output. */
export function sealedWhy(mode: SealedMode, wanted: SealedMode): string {
  if (mode === 'kernel') return `production code ran in a worker confined by the kernel (${abiReach(landlockAbi())})`;
  if (mode === 'process')
    return wanted === 'kernel'
      ? 'production code ran in a worker the runtime guard watches: properties.sealed is kernel, but this machine has no Landlock'
      : 'production code ran in a worker the runtime guard watches (no kernel confinement)';
  return 'production code ran in the property process';
}

// The weakest mode any run of this process got, for the output and gate.require.
const ORDER: SealedMode[] = ['kernel', 'process', 'off'];
let weakest: SealedMode | null = null;
let wantedMode: SealedMode = 'off';

/** The mode the property runs of this process got (the weakest), or null when none ran. */
export function sealedSoFar(): SealedMode | null {
  return weakest;
}

// The calls property processes made to their workers, summed over the runs of this process.
const crossed = { calls: 0, ms: 0 };
/** From this many calls on, the output says what they cost (about 50 to 70 µs each, docs/sealed-node.md). */
const MANY_CALLS = 100_000;

/** The calls property processes made to their workers so far, or null when none did. */
export function sealedCalls(): { calls: number; ms: number } | null {
  return crossed.calls ? { ...crossed } : null;
}

/** The output's lines on it, or none when no property ran. */
export function sealedLines(): string[] {
  if (!weakest) return [];
  const calls = crossed.calls
    ? `; ${crossed.calls.toLocaleString('en-US')} calls crossed to the worker, ${(crossed.ms / 1000).toFixed(1)} s in them`
    : '';
  const lines = [`sealed: ${weakest} (${sealedWhy(weakest, wantedMode)})${calls}`];
  if (crossed.calls >= MANY_CALLS)
    lines.push(
      "sealed: each call from a property to production code is a round trip to the worker (tens of µs, whatever the call does): fewer, larger calls cost less, such as one call with all of a case's inputs (docs/revert-check.md#sealed-runs)",
    );
  return lines;
}

/** Adds up the figures the property processes of one run wrote (runtime.cjs and patchwarden_sealed_runtime.py). */
function tally(dir: string): void {
  for (const name of readdirSync(dir)) {
    try {
      const { calls, ms } = JSON.parse(readRegularFile(path.join(dir, name), MAX_FIGURE)?.toString('utf8') ?? '');
      if (Number.isSafeInteger(calls) && Number.isSafeInteger(ms) && calls > 0 && ms >= 0) {
        crossed.calls += calls;
        crossed.ms += ms;
      }
    } catch {
      // A figure cut short (a process killed while writing it) is left out.
    }
  }
}

/** A figure is a line of JSON: far shorter than this. */
const MAX_FIGURE = 4096;

/** The line of a merge of matrix parts: the weakest mode their runs got, on the machines that ran them. */
export function partsSealedLine(mode: SealedMode): string {
  const why = mode === 'kernel' ? 'production code ran in workers confined by the kernel' : sealedWhy(mode, mode);
  return `sealed: ${mode} (the weakest of the parts' runs: ${why})`;
}

/** The weakest of some runs' modes (one not named is `off`). */
export function weakestMode(modes: unknown[]): SealedMode {
  const known = modes.map((m) => (ORDER.includes(m as SealedMode) ? (m as SealedMode) : 'off'));
  return ORDER[Math.max(0, ...known.map((m) => ORDER.indexOf(m)))];
}

function noteMode(mode: SealedMode, wanted: SealedMode): void {
  weakest = weakestMode(weakest === null ? [mode] : [weakest, mode]);
  wantedMode = wanted;
}

export interface WorkerSetup {
  /** The judged tree (a real path). */
  tree: string;
  /** The production files of the tree (real paths). */
  src: string[];
  /** Dependency folders linked into the tree. */
  linked: string[];
  /** Paths the worker must never reach (the report, the guard's folder, the run's own temporary root, the git directory). */
  deny: string[];
  /** The property process's temporary root: the worker's too in process mode. */
  tmp: string;
  /** The run is fenced (fence.ts): the worker shares the side's own /dev/shm, since no mount can be made inside the fence. */
  fenced: boolean;
}

export interface SealedSession {
  mode: 'kernel' | 'process';
  /** The runtimes' folder (python/, node/, confine.py): code the guard counts as the harness's. */
  runtime: string;
  /** What the worker writes outside the property process's temporary root: its own root and its figures. */
  writable: string[];
  /**
   * Writes the JSON for a property command about to run with `env` (its
   * whole environment, the guard's variables in it) and returns that
   * environment with sealing on.
   */
  activate(env: NodeJS.ProcessEnv, setup: WorkerSetup): NodeJS.ProcessEnv;
  dispose(): void;
}

/** Null when sealing is off. */
export function openSealed(config: Config): SealedSession | null {
  const mode = sealedMode(config);
  noteMode(mode, config.properties.sealed);
  if (mode === 'off') return null;
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-sealed-')));
  const calls = path.join(dir, 'calls');
  const dispose = () => {
    try {
      tally(calls);
    } catch {
      // No figures: the line goes without them.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const runtime = path.join(dir, 'runtime');
    write(path.join(runtime, 'python'), PYTHON_SEALED);
    write(path.join(runtime, 'node'), NODE_SEALED);
    writeFileSync(path.join(runtime, 'confine.py'), confineSource);
    const workerTmp = path.join(dir, 'worker');
    mkdirSync(path.join(workerTmp, 'home'), { recursive: true });
    mkdirSync(calls);
    const file = path.join(dir, 'sealed.json');
    return {
      mode,
      runtime,
      writable: [workerTmp, calls],
      dispose,
      activate: (env, setup) => {
        const tmp = mode === 'kernel' ? workerTmp : setup.tmp;
        const worker = mode === 'kernel' ? kernelWorkerEnv(env, tmp) : processWorkerEnv(env);
        const confine =
          mode === 'kernel'
            ? confinePrefix(
                {
                  tree: setup.tree,
                  linked: setup.linked,
                  runtime,
                  tmp,
                  deny: [...setup.deny, file, calls],
                  pathVar: env.PATH ?? '',
                  pythonPath: (worker.PYTHONPATH ?? '').split(path.delimiter).filter((p) => path.isAbsolute(p)),
                  fenced: setup.fenced,
                },
                landlockProbe(confineSource).python!,
              )
            : [];
        writeFileSync(
          file,
          JSON.stringify({ mode, root: setup.tree, src: setup.src, confine, env: defined(worker), tmp, calls }),
        );
        return propertyEnv(env, runtime, file);
      },
    };
  } catch (err) {
    dispose();
    throw err;
  }
}

function write(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** The property command's environment: the runtimes load first, Python's through its pytest plugin, Node's through --import. */
function propertyEnv(env: NodeJS.ProcessEnv, runtime: string, file: string): NodeJS.ProcessEnv {
  const register = JSON.stringify(pathToFileURL(path.join(runtime, 'node', 'register.mjs')).href);
  return {
    ...env,
    [SEALED_VARIABLE]: file,
    PYTHONPATH: [path.join(runtime, 'python'), env.PYTHONPATH].filter(Boolean).join(path.delimiter),
    PYTEST_PLUGINS: [PYTEST_PLUGIN, env.PYTEST_PLUGINS].filter(Boolean).join(','),
    NODE_OPTIONS: [env.NODE_OPTIONS, `--import ${register}`].filter(Boolean).join(' '),
  };
}

/** The run's own variables: a worker is told nothing of the property run (the side, the seed, the shard). */
function withoutRunVariables(env: NodeJS.ProcessEnv, keep: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([k]) => keep.includes(k) || (!k.startsWith('PATCHWARDEN_') && k !== SEED_VARIABLE && k !== 'PYTEST_PLUGINS'),
    ),
  );
}

/** process: the guard stays loaded in the worker (its PYTHONPATH entry, its Node preload, its configuration). */
function processWorkerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return withoutRunVariables(env, ['PATCHWARDEN_GUARD']);
}

/**
 * kernel: none of patchwarden's variables, and the guard's entries taken out
 * of PYTHONPATH and NODE_OPTIONS (the kernel holds the worker; the guard's
 * paths would tell it where the judge's files are). Temporary files, caches
 * and the home folder (`~`: empty, as a fresh account's; the user's own is
 * out of the kernel's grant) go to the worker's own root.
 */
function kernelWorkerEnv(env: NodeJS.ProcessEnv, tmp: string): NodeJS.ProcessEnv {
  const guard = env.PATCHWARDEN_GUARD ? path.dirname(env.PATCHWARDEN_GUARD) : null;
  const notGuard = (s: string) => !guard || !s.includes(guard);
  const pythonPath = (env.PYTHONPATH ?? '').split(path.delimiter).filter((p) => p && notGuard(p));
  const nodeOptions = (env.NODE_OPTIONS ?? '').replace(/--require\s+("(?:[^"\\]|\\.)*"|\S+)/g, (m) =>
    notGuard(m) ? m : '',
  );
  return {
    ...withoutRunVariables(env, []),
    PYTHONPATH: pythonPath.length ? pythonPath.join(path.delimiter) : undefined,
    NODE_OPTIONS: nodeOptions.trim() || undefined,
    TMPDIR: tmp,
    HOME: path.join(tmp, 'home'),
    XDG_CACHE_HOME: path.join(tmp, 'cache'),
    HYPOTHESIS_STORAGE_DIRECTORY: path.join(tmp, 'hypothesis'),
  };
}

function defined(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
