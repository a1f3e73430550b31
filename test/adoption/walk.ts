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
import { GITHUB_RUN } from '../helpers/flake.js';
import { PROJECT, sh, type Run } from '../helpers/repo.js';
import { packed } from './pack.js';
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
export function agentClone(p: Project, install: string[][]): Clone {
  const agent = new Clone(p.origin, {
    ...p.env,
    GIT_AUTHOR_NAME: 'Claude',
    GIT_AUTHOR_EMAIL: 'noreply@anthropic.com',
    GIT_COMMITTER_NAME: 'Claude',
    GIT_COMMITTER_EMAIL: 'noreply@anthropic.com',
  });
  for (const cmd of install) agent.ok(cmd[0], cmd.slice(1));
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
  const ci = new Clone(p.origin, p.env, branch);
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

/** The revert check's verdict in a refusal a push printed, or null. */
export function revertVerdict(r: Run): string | null {
  return /refused \[revert\] revert check (\w+)/.exec(said(r))?.[1] ?? null;
}

type Case = { name: string; freeze_candidate: { command: string; fixture: string } | null };

/**
 * A suite test that fails every other run with no input (`name`): replay in
 * CI (`pw` runs patchwarden) prints its freeze line, the owner runs that line
 * in a shell with the project's bin folder on PATH and pushes the row, and the
 * gate then passes a failing run of it as frozen (`failNext` makes the next
 * run the failing one).
 */
export function freezeFlake(p: Project, pw: string[], name: string, failNext: (count: string) => void): void {
  const config = readFileSync(path.join(p.dir, '.patchwarden.yml'), 'utf8');
  const suite = /^suite:\n {2}command: (.*)$/m.exec(config)?.[1];
  assert.ok(suite, config);
  const replay = sh(
    pw[0],
    [
      ...pw.slice(1),
      'replay',
      '--runs',
      '4',
      '--seed',
      '20261205',
      '--out',
      'replay.json',
      '--format',
      'json',
      '--',
      suite,
    ],
    { cwd: p.dir, env: { ...p.env, ...GITHUB_RUN } },
  );
  const flake = (JSON.parse(replay.stdout).cases as Case[]).find((c) => c.name.includes(name));
  assert.ok(flake?.freeze_candidate, said(replay));
  assert.is(flake.freeze_candidate.fixture, 'none');
  const line = flake.freeze_candidate.command;
  const frozen = sh('sh', ['-c', line], {
    cwd: p.dir,
    env: {
      ...p.env,
      PATH: `${path.join(p.dir, 'node_modules/.bin')}:${p.env.PATH}`,
      OWNER: 'Dana Owner',
      REASON: 'the step sleeps past its deadline on a loaded runner',
    },
  });
  assert.is(frozen.code, 0, `${line}\n${said(frozen)}`);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'freeze: the deadline flake, from its replay']);
  assert.match(said(p.ok('git', ['push'])), /pre-receive ok/);
  const rows = JSON.parse(p.ok(pw[0], [...pw.slice(1), 'freeze', 'list', '--format', 'json']).stdout).records;
  assert.equal([rows[0].fixture, rows[0].runs, rows[0].fails], ['none', '4', '2']);
  // The gate on a later change, in a run where the flake fails: frozen, and the suite passes.
  p.ok('git', ['switch', '-q', '-c', 'notes']);
  p.write({ 'NOTES.md': 'notes\n' });
  p.ok('git', ['add', 'NOTES.md']);
  p.ok('git', ['commit', '-q', '-m', 'docs: notes']);
  failNext('1');
  const gate = p.run(pw[0], [...pw.slice(1), 'gate', '--base', 'origin/main', '--format', 'json']);
  const layer = JSON.parse(gate.stdout).layers.find((l: { layer: string }) => l.layer === 'suite');
  assert.is(layer.status, 'pass', JSON.stringify(layer));
  assert.equal(
    layer.details.failures.map((f: { name: string; action: string }) => [f.name, f.action]),
    [[flake.name, 'frozen']],
  );
}

/** What a stack's walk puts in each step; the steps are the same for every stack. */
export interface Stack {
  /** How the project runs patchwarden (npx, pnpm exec, …). */
  pw: string[];
  /** The agent's install commands in its fresh clone, as the docs give them; CI's steps before the action. */
  agentInstall: string[][];
  ciSetup: string[][];
  /** The owner's commit that adds a pending invariant. */
  pending: Record<string, string>;
  /** The agent's change that touches no production code; its production change that describes nothing; its fix. */
  unrelated: Record<string, string>;
  draft: Record<string, string>;
  fix: Record<string, string>;
  /** The fix's invariant states, by id. */
  states: Record<string, string>;
  /** A suite test that flickers with no input, its case name, and the file that makes its next run fail. */
  flake: { files: Record<string, string>; name: string; failNext: (count: string) => Record<string, string> };
}

/**
 * The walk after init: the owner's pending invariant, the agent's clone and
 * its unrelated change, a draft branch, its fix proven by the revert check
 * and action.yml, the draft rebased onto the fixed main (pre-push and the gate
 * alike), and a timing flake frozen. Returns the agent's clone, for the
 * stack's own steps.
 */
export function walk(p: Project, s: Stack): Clone {
  guardServer(p);

  // The owner lands a pending invariant: its property fails on main.
  p.write(s.pending);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'spec: totals are never negative (pending)']);
  assert.match(said(p.ok('git', ['push'])), /pre-receive ok/);

  // An agent's clone, installed as the project installs; its hooks run.
  const agent = agentClone(p, s.agentInstall);
  const doctor = agent.run(s.pw[0], [...s.pw.slice(1), 'doctor']);
  assert.match(doctor.stdout, /^ok +pre-push: /m, said(doctor));

  // A change with no production code passes pre-push and the server while the invariant is pending.
  agent.ok('git', ['switch', '-q', '-c', 'docs']);
  agent.commit(s.unrelated, 'docs: what the shop does');
  assert.match(said(agent.ok('git', ['push', '-u', 'origin', 'docs'])), /pre-receive ok/);

  // A branch the agent pushes as a draft while main is red (hooks skipped), before the fix lands.
  agent.ok('git', ['switch', '-q', '-c', 'currency', 'origin/main']);
  agent.commit(s.draft, 'feat: a currency');
  agent.ok('git', ['push', '-q', '--no-verify', '-u', 'origin', 'currency']);

  // The agent's fix of the pending invariant: the revert check proves it (fixed), pre-push and the server take it.
  agent.ok('git', ['switch', '-q', '-c', 'fix-total', 'origin/main']);
  agent.commit(s.fix, 'fix: an empty bill totals 0');
  const checked = agent.run(s.pw[0], [...s.pw.slice(1), 'revert-check', '--base', 'origin/main', '--format', 'json']);
  const verdict = JSON.parse(checked.stdout);
  assert.is(verdict.status, 'describes_patch', said(checked));
  assert.equal(
    Object.fromEntries(verdict.states.map((x: { id: string; state: string }) => [x.id, x.state])),
    s.states,
    said(checked),
  );
  assert.match(said(agent.ok('git', ['push', '-u', 'origin', 'fix-total'])), /pre-receive ok/);

  // CI: action.yml's step on the fix's pull request, the judge pinned from the base.
  const ci = runAction(p, 'fix-total', s.ciSetup);
  assert.ok(ci.ok, said(ci));

  // The owner merges it; the agent rebases the draft onto the fixed main and pushes as the docs say.
  p.ok('git', ['fetch', '-q', 'origin']);
  p.ok('git', ['merge', '-q', '--ff-only', 'origin/fix-total']);
  p.ok('git', ['push', '-q', 'origin', 'main']);
  agent.ok('git', ['switch', '-q', 'currency']);
  agent.ok('git', ['pull', '-q', '--rebase', 'origin', 'main']);
  const rebased = agent.run('git', ['push', '--force-with-lease']);
  assert.is.not(rebased.code, 0, said(rebased));
  assert.is(revertVerdict(rebased), 'does_not_describe', said(rebased));
  // The gate, as the Action runs it on that pull request, says the same.
  agent.ok('git', ['push', '-q', '--no-verify', '--force-with-lease']);
  const gate = runAction(p, 'currency', s.ciSetup);
  assert.not.ok(gate.ok, said(gate));
  assert.match(gate.stdout, /does_not_describe/, said(gate));

  // A timing flake in the suite, frozen from replay's printed line.
  p.write(s.flake.files);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'test: the step keeps its deadline']);
  p.ok('git', ['push', '-q']);
  freezeFlake(p, s.pw, s.flake.name, (count) => p.write(s.flake.failNext(count)));
  return agent;
}
