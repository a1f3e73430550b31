// A temporary Node project whose properties run sealed, as a sealed run sets
// it up: the runtime's files (the ones sources.ts bundles) written into a
// private folder, PATCHWARDEN_SEALED naming a JSON file there (every file
// under the project's src/ is the src zone; the worker's environment carries
// no PROP_SEED and nothing of patchwarden's), NODE_OPTIONS --import of its
// register.mjs. Runs are real `node --test` with the JUnit reporter; the same
// project runs unsealed too, for the attacks' controls.
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
import { pathToFileURL } from 'node:url';
import { parseReport } from '../../src/junit/parse.js';
import type { TestCase } from '../../src/junit/types.js';
import { cleanEnv, PROJECT, sh } from '../helpers/repo.js';

const RUNTIME = path.join(PROJECT, 'src/properties/sealed/node');
/** What the property process gets in PROP_SEED; the worker gets none. */
export const SEED = '4242';

/** The runtime's files as sources.ts bundles them: a file it leaves out is missing here too. */
function runtimeFiles(): string[] {
  const text = readFileSync(path.join(RUNTIME, 'sources.ts'), 'utf8');
  return [...text.matchAll(/^\s+'([\w.-]+)': \w+,$/gm)].map((m) => m[1]);
}

const made: string[] = [];

export function cleanupSealed(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

function temp(prefix: string): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

export interface NodeRun {
  code: number;
  out: string;
  /** The JUnit report's path, and its text as the run left it. */
  report: string;
  xml: string;
  /** Cases by name. */
  cases: Map<string, TestCase>;
}

export interface RunOptions {
  sealed?: boolean;
  /** Added to the property process's environment. */
  env?: NodeJS.ProcessEnv;
  /** The confinement the worker starts under (argv prefix). */
  confine?: string[];
  /** Added to the worker's environment (process mode: the guard's variables). */
  workerEnv?: Record<string, string>;
}

export class SealedProject {
  readonly dir: string;
  readonly private: string;
  constructor(files: Record<string, string>) {
    this.dir = temp('pw-sealed-project-');
    this.private = temp('pw-sealed-run-');
    for (const [f, text] of Object.entries(files)) this.write(f, text);
    mkdirSync(path.join(this.private, 'node'));
    for (const f of runtimeFiles()) copyFileSync(path.join(RUNTIME, f), path.join(this.private, 'node', f));
  }

  write(file: string, text: string): void {
    const p = path.join(this.dir, file);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }

  /** Every file under src/ (real paths), the src zone. */
  srcFiles(): string[] {
    const src = path.join(this.dir, 'src');
    return readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => realpathSync(path.join(e.parentPath ?? e.path, e.name)));
  }

  /** The JSON a sealed run writes, for this run. */
  sealedJson(confine: string[], workerEnv: Record<string, string> = {}): string {
    const tmp = temp('pw-sealed-tmp-');
    const file = path.join(this.private, 'sealed.json');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp, TMPDIR: tmp, LANG: 'C.UTF-8', ...workerEnv };
    const mode = workerEnv.PATCHWARDEN_GUARD ? 'process' : 'kernel';
    writeFileSync(file, JSON.stringify({ mode, root: this.dir, src: this.srcFiles(), confine, env, tmp }));
    return file;
  }

  /** The property process's environment: sealed unless `opts.sealed` is false. */
  env(opts: RunOptions = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { PROP_SEED: SEED, NODE_OPTIONS: '', ...opts.env };
    if (opts.sealed ?? true) {
      env.PATCHWARDEN_SEALED = this.sealedJson(opts.confine ?? [], opts.workerEnv);
      const register = `--import ${pathToFileURL(path.join(this.private, 'node', 'register.mjs')).href}`;
      env.NODE_OPTIONS = [env.NODE_OPTIONS, register].filter(Boolean).join(' ');
    }
    return cleanEnv(env);
  }

  /** `node ARGS` in the project, as a property command runs. */
  node(args: string[], opts: RunOptions = {}): { code: number; out: string } {
    const r = sh(process.execPath, args, { cwd: this.dir, env: this.env(opts), timeout: 180_000 });
    return { code: r.code, out: r.stdout + r.stderr };
  }

  /** `node --test` over `files`, JUnit report into the private folder. */
  run(files: string[], opts: RunOptions = {}): NodeRun {
    const report = path.join(this.private, `report-${made.length}-${Date.now()}.xml`);
    const r = this.node(
      [
        '--test',
        '--test-reporter=junit',
        `--test-reporter-destination=${report}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        ...files,
      ],
      opts,
    );
    let xml = '';
    try {
      xml = readFileSync(report, 'utf8');
    } catch {
      /* no report: every case below is missing */
    }
    const cases = new Map(xml ? parseReport(xml, report).cases.map((c) => [c.name, c]) : []);
    return { code: r.code, out: r.out, report, xml, cases };
  }
}

/** The status of case `name`, with the run's output when it is not the one wanted. */
export function statusOf(run: NodeRun, name: string): string {
  return run.cases.get(name)?.status ?? 'missing';
}
