// The key of a cached reverted run: everything that run ran. The tree (the
// base plus what admitted owner commits change), the whole judging config
// (the property command, properties.timeout, runner.env, the zones, the
// guard's tamper mode), the pinned environment with the seed, the judge's
// version and install digest, how test commands are contained and the
// sealed mode the run gets, the linked dependencies' installed state (their
// lock files are in the tree), each program the command names as found on PATH (its bytes, and each
// interpreter's own account of its version, Python's installed
// distributions too), the inherited variables that choose what code runs,
// OS and architecture, and the admitted owner commits. A part missing from
// the key would let a run of other code answer for this one.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/schema.js';

/** What the caller knows of the run; the pinned variables it gets (the seed among them) are passed on their own. */
export interface KeyFacts {
  /** The reverted run's tree object. */
  tree: string;
  /** The admitted owner-signed commits of the range. */
  owners: string[];
  /** The judge's version and the digest of its install. */
  judge: string;
  /** The containment test commands run under (runner/contain.ts). */
  contained: string;
  /** Where production code runs (sealed/env.ts): kernel falls back to process on a machine without Landlock. */
  sealed: string;
}

/** Inherited variables that choose which code a run executes. */
const INHERITED = [
  'PATH',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'VIRTUAL_ENV',
  'NODE_OPTIONS',
  'NODE_PATH',
  'GOFLAGS',
  'GOPATH',
  'GOROOT',
  'JAVA_HOME',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
];

/** Programs asked for their version; Python for its distributions as well. */
const INTERPRETER = /^(python[\d.]*|pypy[\d.]*|node|nodejs|bun|deno|go|java|ruby|php|perl)$/;
const PYTHON = /^(python|pypy)[\d.]*$/;
const PY_PROBE =
  'import os, sys\nprint(sys.version, sys.executable)\nfor p in sys.path:\n    if os.path.isdir(p):\n        print(p, *sorted(n for n in os.listdir(p) if n.endswith((".dist-info", ".egg-info", ".pth"))))';
/** Files a package manager writes as its record of what it installed. */
const RECORDS = [
  '.package-lock.json',
  '.modules.yaml',
  '.pnpm/lock.yaml',
  '.yarn-state.yml',
  '.yarn-integrity',
  'pyvenv.cfg',
  'modules.txt',
];

/** The key; `facts` are awaited while the programs are asked their versions. */
export async function cacheKey(
  config: Config,
  mainRoot: string | null,
  env: Record<string, string>,
  facts: Promise<KeyFacts>,
): Promise<{ key: string; parts: Record<string, unknown> }> {
  const all = { ...process.env, ...env };
  const [known, asked] = await Promise.all([facts, programs(config.properties.command ?? '', all)]);
  const parts = {
    format: 1,
    ...known,
    env,
    config,
    inherited: Object.fromEntries(INHERITED.map((n) => [n, all[n] ?? null])),
    os: [process.platform, process.arch, os.release()],
    programs: asked,
    deps: mainRoot ? config.revert.link.map((entry) => installed(mainRoot, entry)) : [],
  };
  return { key: digest(parts), parts };
}

/**
 * The key of the head side's run, from the reverted run's parts: the same in
 * everything but the tree it ran, and marked as the head side's (its runs are
 * told PATCHWARDEN_SIDE=head, so they may differ on the same tree).
 */
export function headKey(parts: Record<string, unknown>, tree: string): string {
  return digest({ ...parts, tree, side: 'head' });
}

function digest(parts: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Each word of the command found as a program: its path, its bytes (or size and times), an interpreter's version. */
async function programs(command: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const words = new Set(
    command.split(/[\s;&|()<>`"'$]+/).filter((w) => w && !w.includes('=') && !w.startsWith('-') && !w.includes('{')),
  );
  const found = [...words]
    .sort()
    .map((w) => ({ w, file: w.includes('/') ? (path.isAbsolute(w) ? w : null) : which(w, env.PATH ?? '') }))
    .filter((p): p is { w: string; file: string } => p.file !== null);
  return Promise.all(
    found.map(async ({ w, file }) => {
      const { what, interpreter } = fileFacts(file);
      const asked = [path.basename(w), interpreter && path.basename(interpreter)].filter(
        (n): n is string => !!n && INTERPRETER.test(n),
      );
      const said = await Promise.all(asked.map((n) => versionOf(n === path.basename(w) ? file : interpreter!, n, env)));
      return [w, what, ...said].join('\0');
    }),
  );
}

function which(name: string, pathVar: string): string | null {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** A script (or any small file) by its bytes and interpreter line; a large binary by size, inode and change time. */
function fileFacts(file: string): { what: string; interpreter: string | null } {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return { what: `${file} absent`, interpreter: null };
  }
  const st = statSync(real, { bigint: true });
  if (st.size > 1 << 20) return { what: `${real} ${st.size} ${st.ino} ${st.ctimeNs}`, interpreter: null };
  const bytes = readFileSync(real);
  const line = bytes.subarray(0, 256).toString('latin1');
  const shebang = line.startsWith('#!') ? line.slice(2).split('\n')[0].trim().split(/\s+/) : [];
  const interpreter = shebang[0] === '/usr/bin/env' ? (shebang[1] ?? null) : (shebang[0] ?? null);
  return { what: `${real} ${createHash('sha256').update(bytes).digest('hex')}`, interpreter };
}

/** What an interpreter says of itself: Python its version, executable and installed distributions; others `--version`. */
function versionOf(program: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const args = PYTHON.test(name)
    ? ['-c', PY_PROBE]
    : name === 'go'
      ? ['version']
      : name === 'java'
        ? ['-version']
        : ['--version'];
  return new Promise((resolve) => {
    execFile(program, args, { env, timeout: 20_000, maxBuffer: 4 << 20 }, (err, stdout, stderr) =>
      resolve(`${err ? `error ${err.code ?? err.message}` : 'ok'}\0${stdout}\0${stderr}`),
    );
  });
}

/** A linked entry's install records by digest, and the names of its top-level entries (with a virtual environment's packages, whose names carry their versions). */
function installed(mainRoot: string, entry: string): string[] {
  const dir = path.join(mainRoot, entry);
  const out = [entry];
  for (const rec of RECORDS) {
    try {
      out.push(
        `${rec} ${createHash('sha256')
          .update(readFileSync(path.join(dir, rec)))
          .digest('hex')}`,
      );
    } catch {
      // not this manager's
    }
  }
  const listing = (d: string) => {
    try {
      // Names only: runners keep caches of their own in there (.vite, .cache, __pycache__).
      for (const n of readdirSync(d).sort())
        if (!n.startsWith('.') && n !== '__pycache__') out.push(path.relative(dir, path.join(d, n)));
    } catch {
      // absent
    }
  };
  listing(dir);
  try {
    for (const lib of readdirSync(path.join(dir, 'lib'))) listing(path.join(dir, 'lib', lib, 'site-packages'));
  } catch {
    // not a virtual environment
  }
  return out;
}
