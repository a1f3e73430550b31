// Following a refusal's advice as a person would: its commands, run as printed.
import * as assert from 'uvu/assert';
import { sh } from './repo.js';

/** The commands of the refusal's advice (after the line with `marker`), in order, as printed. */
export function advice(refusal: string, marker = 'split it:'): string[] {
  const lines = refusal.split('\n');
  const start = lines.findIndex((l) => l.includes(marker));
  assert.ok(start >= 0, refusal);
  return lines
    .slice(start + 1)
    .filter((l) => /^ {4}git /.test(l))
    .map((l) => l.trim());
}

/** Runs each command in `dir`; any failure fails the test with its output. */
export function follow(dir: string, env: NodeJS.ProcessEnv, commands: string[]): void {
  for (const cmd of commands) {
    const r = sh('sh', ['-c', cmd], { cwd: dir, env });
    assert.is(r.code, 0, `${cmd}\n${r.stdout}${r.stderr}`);
  }
}

/** The commit message editor of a person following the advice. */
export const EDITOR = 'sh -c \'echo "split by the advice" >"$1"\' -';
