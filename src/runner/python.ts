// The python3 on PATH, resolved once per process to the interpreter behind
// it. A version manager (pyenv, asdf, mise) puts a shim there that costs a
// few hundred ms of CPU a start; what patchwarden runs of its own (the
// Landlock launcher, the syntax-tree compare, the subreaper launcher) needs
// a Python, not a fresh choice per start, so the shim is asked once. Asked
// from the temporary folder, as the syntax compare always ran: no project
// file picks the version there.
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Isolated, and without site: nothing of the project's runs in it. */
const ASK = ['-I', '-S', '-c', 'import sys; print(sys.executable)'];
const OPTS = { cwd: tmpdir(), timeout: 10_000 };

let resolved: string | null | undefined;
let resolving: Promise<string | null> | null = null;

/** An absolute path from the interpreter's answer, else null. */
function executable(status: number | null, stdout: string): string | null {
  const exe = status === 0 ? stdout.trim() : '';
  return exe && path.isAbsolute(exe) ? exe : null;
}

/** The interpreter behind python3 (null when there is none), asked in the background; the first call starts it. */
export function python(): Promise<string | null> {
  if (resolved !== undefined) return Promise.resolve(resolved);
  resolving ??= new Promise((resolve) => {
    let out = '';
    const child = spawn('python3', ASK, { ...OPTS, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.on('error', () => resolve((resolved ??= null)));
    child.on('close', (code) => resolve((resolved ??= executable(code, out))));
  });
  return resolving;
}

/** The same, for a caller that cannot wait: the answer when it is in, else asked now. */
export function pythonNow(): string | null {
  if (resolved === undefined) {
    const r = spawnSync('python3', ASK, { ...OPTS, encoding: 'utf8' });
    resolved = executable(r.status, r.stdout ?? '');
  }
  return resolved;
}
