// Following a refusal's advice as a person would: its commands, run as printed.
import * as assert from 'uvu/assert';
import path from 'node:path';
import { sh, tempRepo, TempRepo } from './repo.js';

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

/** A clone of a bare remote in a fresh folder, its editor one that writes the advice's message. */
export function cloneOf(origin: TempRepo): TempRepo {
  const parent = tempRepo();
  const dir = path.join(parent.dir, 'work');
  const clone = sh('git', ['clone', '-q', origin.dir, dir], { env: parent.env });
  assert.is(clone.code, 0, clone.stderr);
  return new TempRepo(dir, { GIT_EDITOR: EDITOR });
}

/**
 * The environment of an owner running the advice addressed to them: their
 * identity and their SSH signing key, with commit.gpgSign on, as many owners
 * have it (the advice must not make them sign production commits).
 */
export function ownerEnv(env: NodeJS.ProcessEnv, email: string, key: string): NodeJS.ProcessEnv {
  return {
    ...env,
    GIT_AUTHOR_NAME: 'Dana Owner',
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: 'Dana Owner',
    GIT_COMMITTER_EMAIL: email,
    GIT_CONFIG_COUNT: '3',
    GIT_CONFIG_KEY_0: 'gpg.format',
    GIT_CONFIG_VALUE_0: 'ssh',
    GIT_CONFIG_KEY_1: 'user.signingkey',
    GIT_CONFIG_VALUE_1: key,
    GIT_CONFIG_KEY_2: 'commit.gpgSign',
    GIT_CONFIG_VALUE_2: 'true',
  };
}
