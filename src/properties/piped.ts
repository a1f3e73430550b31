// One child process fed a buffer on stdin, its whole output collected: how
// the syntax helpers (python3, the Go helper) are asked about source files.
import { spawn } from 'node:child_process';

export interface Piped {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cmd` in `cwd` with `input` on stdin; rejects only when it cannot start. `timeout` (ms, none when 0) ends it: code null. */
export function piped(
  cmd: string,
  args: string[],
  cwd: string,
  input: Buffer,
  env: NodeJS.ProcessEnv = process.env,
  timeout = 0,
): Promise<Piped> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, timeout, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => {
      /* an early exit is reported by its code */
    });
    child.stdin.end(input);
  });
}
