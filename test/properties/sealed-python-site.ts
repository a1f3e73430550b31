// A sealed pytest run driven directly, as patchwarden will drive it: the
// Python runtime (src/properties/sealed/python) written into a folder of its
// own, put first on PYTHONPATH and loaded by PYTEST_PLUGINS, and the JSON
// PATCHWARDEN_SEALED names, written here with `confine: []` (no kernel
// confinement: these tests prove the runtime, not Landlock). Real pytest and
// Hypothesis from the machine; the same project runs unsealed to compare.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseReport } from '../../src/junit/parse.js';
import type { TestCase } from '../../src/junit/types.js';
import { PROJECT, sh } from '../helpers/repo.js';
import { ciInstalls, missingUnless } from '../helpers/skip.js';

export const sealedMissing = missingUnless(
  'python3',
  ['-c', 'import pytest, hypothesis'],
  ciInstalls('python3 with pytest and Hypothesis is not installed'),
);

const RUNTIME = path.join(PROJECT, 'src/properties/sealed/python');
const made: string[] = [];

export function removeProjects(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface SealedRun {
  code: number;
  output: string;
  cases: Map<string, TestCase>;
  /** The project's folder (a real path). */
  dir: string;
}

/** The src files of a project: every .py under src/, real paths. */
function srcFiles(dir: string): string[] {
  return readdirSync(path.join(dir, 'src'), { recursive: true })
    .map((f) => path.join(dir, 'src', String(f)))
    .filter((f) => f.endsWith('.py'));
}

export interface RunOptions {
  sealed?: boolean;
  /** Added to the property process's environment (the worker's is `workerEnv`). */
  env?: Record<string, string>;
  /** The worker's whole environment; PATH and HOME of this process by default. */
  workerEnv?: Record<string, string>;
  args?: string[];
}

/** A project with `files` (src/ is production code, spec/ the properties), run once by pytest. */
export function runProject(files: Record<string, string>, opts: RunOptions = {}): SealedRun {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'pw-sealed-py-')));
  made.push(dir);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return rerun(dir, opts);
}

/** Runs the project in `dir` again. */
export function rerun(dir: string, opts: RunOptions = {}): SealedRun {
  const junit = path.join(dir, 'report.xml');
  rmSync(junit, { force: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PYTHONDONTWRITEBYTECODE: '1',
    HYPOTHESIS_STORAGE_DIRECTORY: path.join(dir, '.hypothesis'),
    ...opts.env,
  };
  if (opts.sealed !== false) {
    const run = realpathSync(mkdtempSync(path.join(tmpdir(), 'pw-sealed-run-')));
    made.push(run);
    mkdirSync(path.join(run, 'python'));
    for (const f of readdirSync(RUNTIME).filter((f) => f.endsWith('.py')))
      copyFileSync(path.join(RUNTIME, f), path.join(run, 'python', f));
    const tmp = path.join(run, 'tmp');
    mkdirSync(tmp);
    const workerEnv = opts.workerEnv ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: tmp };
    const config = { mode: 'process', root: dir, src: srcFiles(dir), confine: [], env: workerEnv, tmp };
    writeFileSync(path.join(run, 'sealed.json'), JSON.stringify(config));
    Object.assign(env, {
      PATCHWARDEN_SEALED: path.join(run, 'sealed.json'),
      PYTHONPATH: path.join(run, 'python'),
      PYTEST_PLUGINS: 'patchwarden_sealed',
    });
  }
  const args = [
    '-m',
    'pytest',
    '-p',
    'no:cacheprovider',
    '-o',
    'pythonpath=src',
    `--junitxml=${junit}`,
    ...(opts.args ?? ['spec']),
  ];
  const r = sh('python3', args, { cwd: dir, env });
  let cases = new Map<string, TestCase>();
  try {
    cases = new Map(parseReport(readFileSync(junit), junit).cases.map((c) => [c.name, c]));
  } catch {
    /* no report: the output says why */
  }
  return { code: r.code, output: r.stdout + r.stderr, cases, dir };
}

/** The status of each case, by name. */
export function statuses(run: SealedRun): Record<string, string> {
  return Object.fromEntries([...run.cases].map(([name, c]) => [name, c.status]));
}
