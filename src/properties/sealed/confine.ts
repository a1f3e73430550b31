// What the kernel lets a sealed worker reach (confine.py applies it with
// Landlock). Read and execute: the system, the judged tree, the dependency
// folders linked into it, the interpreters' installs. Read and write: the
// worker's own temporary root, /dev/null and a /dev/shm of its own (a fresh
// tmpfs in a mount namespace: the machine's holds other processes' shared
// memory). Never: the judge's install, the
// property's report, the guard's channel, the run's private folders, the git
// directory (the revert cache and the judge's config cache live there). A
// granted folder that holds a denied path is granted entry by entry instead,
// so a judge installed under node_modules or /usr stays out of reach.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { python as python3, pythonNow } from '../../runner/python.js';
import { piped } from '../piped.js';
/** Read-only system paths; those a machine lacks grant nothing. */
const SYSTEM = [
  '/usr',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/bin',
  '/sbin',
  '/etc',
  '/opt',
  '/proc',
  '/sys',
  '/dev/zero',
  '/dev/full',
  '/dev/random',
  '/dev/urandom',
];

/** Written by the worker besides its temporary root. */
const SYSTEM_RW = ['/dev/null'];

export interface Probe {
  /** The Landlock ABI (0: unavailable). */
  abi: number;
  /** The Python that applies the rules (absolute), or null when there is none. */
  python: string | null;
}

let probed: Probe | null = null;
let probing: Promise<Probe> | null = null;

/** Isolated, and without site: nothing of the project's runs in the launcher. */
const ISOLATED = ['-I', '-S'];

/** PATCHWARDEN_LANDLOCK=off runs the fallback on purpose (it can only weaken: gate.require names kernel). */
const off = () => process.platform !== 'linux' || process.env.PATCHWARDEN_LANDLOCK === 'off';

/** The probe's answer: the ABI it printed, with the Python that ran it. */
function answer(python: string, status: number | null, stdout: string): Probe {
  const abi = status === 0 ? Number.parseInt(stdout.trim(), 10) : 0;
  return { abi: Number.isFinite(abi) && abi > 0 ? abi : 0, python };
}

/**
 * Starts the probe without holding the event loop: a check calls it early,
 * so its answer is in when a run needs it.
 */
export function probeLandlock(source: string): Promise<Probe> {
  probing ??= (async () => {
    if (probed) return probed; // asked already, by a caller that could not wait
    const python = off() ? null : await python3();
    if (!python) return (probed ??= { abi: 0, python: null });
    // The synchronous probe's timeout: a hung interpreter leaves no Landlock, never a check waiting.
    const { code, stdout } = await piped(
      python,
      [...ISOLATED, '-c', source, '--probe'],
      tmpdir(),
      Buffer.alloc(0),
      process.env,
      10_000,
    );
    return (probed ??= answer(python, code, stdout));
  })().catch(() => (probed ??= { abi: 0, python: null }));
  return probing;
}

/** The Landlock ABI this machine offers sealed workers (0: none) and the Python that applies it, probed once per process with confine.py's `source`. */
export function landlockProbe(source: string): Probe {
  if (probed) return probed;
  const python = off() ? null : pythonNow();
  if (!python) return (probed = { abi: 0, python: null });
  const r = spawnSync(python, [...ISOLATED, '-c', source, '--probe'], { encoding: 'utf8', timeout: 10_000 });
  return (probed = answer(python, r.status, r.stdout ?? ''));
}

/** What the ABI lets the worker be kept from, for the output and doctor. */
export function abiReach(abi: number): string {
  const parts = ['files'];
  if (abi >= 4) parts.push('TCP');
  if (abi >= 6) parts.push('signals and abstract sockets outside its domain');
  return `Landlock ABI ${abi}: ${parts.join(', ')}`;
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

function real(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** `p` granted whole, or entry by entry around the denied paths beneath it. */
export function carve(p: string, deny: string[]): string[] {
  const r = real(p);
  if (!r || deny.some((d) => inside(r, d))) return [];
  if (!deny.some((d) => inside(d, r))) return [r];
  if (!statSync(r).isDirectory()) return [];
  return readdirSync(r).flatMap((e) => carve(path.join(r, e), deny));
}

const pythonInstalls = new Map<string, string[]>();

/** Isolated, so no sitecustomize (the guard's) runs. */
const INSTALL_DIRS = [
  '-I',
  '-c',
  'import json, site, sys; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages(), site.getusersitepackages()]))',
];

/** The folders from the answer, none where it gave none. */
function installDirs(status: number | null, stdout: string): string[] {
  try {
    return status === 0 ? (JSON.parse(stdout) as unknown[]).filter((d): d is string => typeof d === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Asks for pythonDirs(pathVar) in the background: `python3` on PATH is often
 * a version manager's shim, a few hundred ms a start, which the synchronous
 * ask would spend with the event loop held just before a sealed command
 * starts. A check calls this early; pythonDirs takes the answer when it is in.
 */
export function warmPythonDirs(pathVar: string): void {
  if (pythonInstalls.has(pathVar)) return;
  // The timeout the synchronous ask has: a hung python3 leaves pythonDirs to ask again, and never holds the process.
  piped('python3', INSTALL_DIRS, process.cwd(), Buffer.alloc(0), { ...process.env, PATH: pathVar }, 10_000)
    .then(({ code, stdout }) => {
      if (!pythonInstalls.has(pathVar)) pythonInstalls.set(pathVar, installDirs(code, stdout));
    })
    .catch(() => undefined);
}

/**
 * The folders of the Python the property command finds on `PATH` (its
 * prefixes and site folders), asked once per PATH.
 */
function pythonDirs(pathVar: string): string[] {
  let dirs = pythonInstalls.get(pathVar);
  if (dirs) return dirs;
  const r = spawnSync('python3', INSTALL_DIRS, {
    encoding: 'utf8',
    timeout: 10_000,
    env: { ...process.env, PATH: pathVar },
  });
  dirs = installDirs(r.status, r.stdout ?? '');
  pythonInstalls.set(pathVar, dirs);
  return dirs;
}

/**
 * The Python installs virtual environments in the tree or the linked folders
 * were made from (pyvenv.cfg's `home`, the folder of its python): a venv's
 * python is a link into that install.
 */
function venvHomes(dirs: string[]): string[] {
  return dirs.flatMap((d) =>
    ['', '.venv', 'venv'].flatMap((sub) => {
      try {
        const cfg = readFileSync(path.join(d, sub, 'pyvenv.cfg'), 'utf8');
        const home = /^home\s*=\s*(.+?)\s*$/m.exec(cfg)?.[1];
        return home && path.isAbsolute(home) ? [path.dirname(home)] : [];
      } catch {
        return [];
      }
    }),
  );
}

/** Node's install: patchwarden's own node and the one the command finds on PATH. */
function nodeDirs(pathVar: string): string[] {
  const nodes = [process.execPath];
  for (const d of pathVar.split(path.delimiter)) {
    const n = d && path.join(d, 'node');
    if (n && existsSync(n)) {
      nodes.push(n);
      break;
    }
  }
  return nodes.flatMap((n) => {
    const r = real(n);
    return r ? [path.dirname(path.dirname(r))] : [];
  });
}

export interface ConfineSetup {
  /** The judged tree (a real path). */
  tree: string;
  /** Dependency folders linked into the tree (in the main tree). */
  linked: string[];
  /** The folder holding confine.py and the worker runtimes (read only). */
  runtime: string;
  /** The worker's temporary root (read and write). */
  tmp: string;
  /** What the worker must never reach. */
  deny: string[];
  /** The PATH the property command runs with. */
  pathVar: string;
  /** Folders of the project's PYTHONPATH. */
  pythonPath: string[];
  /** Inside the revert check's fence (fence.ts), where no /dev/shm can be mounted: the worker writes the side's own. */
  fenced: boolean;
}

/** The argv prefix that confines a worker: [python, -I, -S, confine.py, --rw ..., --ro ..., --]; `python` from landlockProbe. */
export function confinePrefix(s: ConfineSetup, python: string): string[] {
  const deny = s.deny.map((d) => real(d) ?? d);
  const ro = new Set<string>();
  const grant = (p: string) => {
    for (const c of carve(p, deny)) ro.add(c);
  };
  for (const p of [
    ...SYSTEM,
    s.tree,
    ...s.linked,
    s.runtime,
    ...pythonDirs(s.pathVar),
    ...venvHomes([s.tree, ...s.linked]),
    ...s.pythonPath,
    ...nodeDirs(s.pathVar),
  ])
    grant(p);
  const rw = [s.tmp, ...SYSTEM_RW, ...(s.fenced ? ['/dev/shm'] : [])].flatMap((p) => carve(p, deny));
  for (const p of rw) ro.delete(p);
  return [
    python,
    ...ISOLATED,
    path.join(s.runtime, 'confine.py'),
    // A /dev/shm of the worker's own (multiprocessing's semaphores); the machine's is never granted.
    ...(s.fenced ? [] : ['--shm']),
    ...rw.flatMap((p) => ['--rw', p]),
    ...[...ro].flatMap((p) => ['--ro', p]),
    '--',
  ];
}
