// A team's walk through a real project, from the packed tarball: the owner
// installs it from .patchwarden/vendor/ with the project's own package
// manager and signs every commit, an administrator puts the hook on the
// server, an agent works in a clone of its own, and CI runs action.yml's
// step as GitHub runs it. The stack's test files (walk-*.test.ts) build the
// projects; this file holds the people and the places.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { EDITOR } from '../helpers/advice.js';
import { PROJECT, sh, type Run } from '../helpers/repo.js';
import { packed, userEnv } from './pack.js';
import { type Project, tempDir } from './project.js';

export const said = (r: Run) => r.stdout + r.stderr;

/** The vendored tarball's path in the project, as the README names it. */
export function vendored(): string {
  return `./.patchwarden/vendor/${path.basename(packed())}`;
}

/** The owner copies the packed tarball under .patchwarden/vendor/ and installs it with the README's line for the manager. */
export function installVendored(p: Project, install: string[]): Run {
  mkdirSync(path.join(p.dir, '.patchwarden/vendor'), { recursive: true });
  copyFileSync(packed(), path.join(p.dir, vendored()));
  return p.ok(install[0], [...install.slice(1), vendored()]);
}

/** The owner signs every commit (commit.gpgSign), as many owners have it. */
export function ownerSigns(p: Project): void {
  p.ok('git', ['config', 'commit.gpgSign', 'true']);
}

/** The administrator installs the installed package's pre-receive hook into the bare remote, judging main. */
export function guardServer(p: Project): void {
  const bin = path.join(p.dir, 'node_modules/.bin/patchwarden');
  const script = path.join(p.dir, 'node_modules/patchwarden/scripts/install-server-hook.sh');
  p.ok('sh', [script, '--bin', bin, '--branch', 'main', p.origin]);
}

/** A checkout of someone else than the owner: an agent's clone, or CI's. */
export class Clone {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  constructor(origin: string, env: NodeJS.ProcessEnv, branch = 'main') {
    this.dir = path.join(tempDir('pw-clone-'), 'work');
    this.env = env;
    const r = sh('git', ['clone', '-q', '-b', branch, origin, this.dir], { env });
    assert.is(r.code, 0, said(r));
  }
  run(cmd: string, args: string[]): Run {
    return sh(cmd, args, { cwd: this.dir, env: this.env });
  }
  ok(cmd: string, args: string[]): Run {
    const r = this.run(cmd, args);
    assert.is(r.code, 0, `${cmd} ${args.join(' ')}\n${said(r)}`);
    return r;
  }
  write(files: Record<string, string>): this {
    for (const [f, c] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(this.dir, f)), { recursive: true });
      writeFileSync(path.join(this.dir, f), c);
    }
    return this;
  }
  /** Writes, stages everything and commits through the hooks. */
  commit(files: Record<string, string>, message: string): Run {
    this.write(files);
    this.ok('git', ['add', '-A']);
    return this.ok('git', ['commit', '-q', '-m', message]);
  }
  pw(...args: string[]): Run {
    return this.run(path.join(this.dir, 'node_modules/.bin/patchwarden'), args);
  }
}

/** An agent's clone: a coding agent's identity (owners.agents lists it), no signing key, the project installed by `install`. */
export function agentClone(p: Project, install: string[], env: NodeJS.ProcessEnv = {}): Clone {
  const agent = new Clone(
    p.origin,
    userEnv({
      GIT_EDITOR: EDITOR,
      GIT_AUTHOR_NAME: 'Claude',
      GIT_AUTHOR_EMAIL: 'noreply@anthropic.com',
      GIT_COMMITTER_NAME: 'Claude',
      GIT_COMMITTER_EMAIL: 'noreply@anthropic.com',
      ...env,
    }),
  );
  agent.ok(install[0], install.slice(1));
  return agent;
}

const action = parse(readFileSync(path.join(PROJECT, 'action.yml'), 'utf8'));

/**
 * action.yml's step on a pull request from `branch` into main, as GitHub runs
 * it: a fresh clone with the whole history (actions/checkout, fetch-depth 0),
 * the project's `setup` commands (the workflow's steps before the action), then
 * the step's script under `bash -e -o pipefail` with no version input, so the
 * judge is pinned from the base's lock or vendored tarball.
 */
export function runAction(p: Project, branch: string, setup: string[][] = []): Run & { ok: boolean } {
  const ci = new Clone(p.origin, userEnv(), branch);
  for (const cmd of setup) ci.ok(cmd[0], cmd.slice(1));
  const temp = tempDir('pw-runner-');
  const output = path.join(temp, 'output');
  writeFileSync(output, '');
  const step = action.runs.steps.find((s: { id?: string }) => s.id === 'gate');
  const r = sh('bash', ['-e', '-o', 'pipefail', '-c', step.run], {
    cwd: ci.dir,
    env: {
      ...ci.env,
      PW_BASE: '',
      PW_BASE_REF: 'main',
      PW_QUEUE_BASE: '',
      PW_VERSION: '',
      PW_SUITE_TIMEOUT: '5m',
      GITHUB_OUTPUT: output,
      RUNNER_TEMP: temp,
    },
  });
  const out = readFileSync(output, 'utf8');
  sh('chmod', ['-R', 'u+w', temp]);
  return { ...r, ok: /^ok=true$/m.test(out) };
}

/** The refusal a push printed for the revert check, or null. */
export function revertVerdict(r: Run): string | null {
  return /revert check (\w+)/.exec(said(r))?.[1] ?? null;
}
