// The whole-range advice where the oracle commits do not come first: a person
// is told to reorder them (or to have an owner relax mix.range); an agent, who
// may do neither, is told only what it may do and what to ask a human owner.
// Real git, a real bare remote, the project's pre-push hook.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup, installPrePush, PROJECT, tempRepo, type TempRepo } from '../helpers/repo.js';

const AGENT = 'coder[bot]@example.com';
const CONFIG = 'version: 1\nowners:\n  agents: ["*[bot]@*"]\n';

test.after.each(cleanup);

/** A clone on main, pushed, then a production commit followed by an oracle commit (the oracle last), made with `by`'s identity. */
function interleaved(by: NodeJS.ProcessEnv = {}): TempRepo {
  const remote = tempRepo({ bare: true });
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(work);
  work.commit(
    { '.patchwarden.yml': CONFIG, 'src/app.js': 'export const a = 1;\n', 'spec/a.test.js': '// a\n' },
    'start',
  );
  work.git(['push', '-q', 'origin', 'main']);
  // The server's hook, from here on (the config is on main now).
  copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), path.join(remote.dir, 'hooks/pre-receive'));
  chmodSync(path.join(remote.dir, 'hooks/pre-receive'), 0o755);
  work.env = { ...work.env, ...by };
  work.commit({ 'src/app.js': 'export const a = 2;\n' }, 'code');
  work.commit({ 'spec/a.test.js': '// a, loosened\n' }, 'spec');
  return work;
}

const asAgent = { GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT };

/** The mix-range refusal's fix, from the hook as git runs it and from its JSON. */
function rangeFix(work: TempRepo, env: NodeJS.ProcessEnv = {}): { pushed: string; fix: string } {
  const r = work.git(['push', '-q', 'origin', 'main'], { allowFail: true, env });
  assert.is.not(r.code, 0, r.stdout + r.stderr);
  const base = work.git(['rev-parse', 'origin/main']).stdout.trim();
  const json = work.json(['pre-push', 'origin', 'unused'], {
    input: `refs/heads/main ${work.head()} refs/heads/main ${base}\n`,
    env,
  });
  const v = json.out.violations.find((x: { rule: string }) => x.rule === 'mix-range');
  assert.ok(v, JSON.stringify(json.out.violations));
  return { pushed: r.stdout + r.stderr, fix: v.fix };
}

test('a person is told to reorder, or to have an owner relax mix.range', () => {
  const work = interleaved();
  const { pushed, fix } = rangeFix(work);
  assert.match(fix, 'reorder the commits so the oracle commits come first (git rebase -i)');
  assert.match(fix, 'an owner sets mix.range: allow');
  assert.match(pushed, 'reorder the commits');
});

test('an agent is told only what it may do: no oracle push, no reorder of oracle commits, no config key; what to ask an owner', () => {
  const work = interleaved();
  work.env = { ...work.env, ...asAgent };
  const { pushed, fix } = rangeFix(work, asAgent);
  for (const said of [fix, pushed]) {
    assert.match(said, "the oracle changes of this range (spec/a.test.js) are a human owner's to make");
    assert.match(said, 'ask a human owner to land the oracle change on');
    assert.not.match(said, 'mix.range');
    assert.not.match(said, 'reorder the commits so');
  }
  // The gate says the same to the agent, judged from the branch it merges into.
  work.git(['switch', '-q', '-c', 'topic']);
  work.git(['fetch', '-q', 'origin']);
  const gate = work.json(['gate', '--base', 'origin/main']);
  const mixing = gate.out.layers.find((l: { layer: string }) => l.layer === 'mixing');
  const v = mixing.violations.find((x: { rule: string }) => x.rule === 'mix-range');
  assert.match(v.fix, "are a human owner's to make");
  assert.not.match(v.fix, 'mix.range');
});

test('the server tells an agent the same, and a person what a person may do', () => {
  const push = (work: TempRepo, env: NodeJS.ProcessEnv = {}) => {
    const r = work.git(['push', '-q', '--no-verify', 'origin', 'main'], { allowFail: true, env });
    assert.is.not(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, '[mix-range]');
    return r.stderr;
  };
  const person = push(interleaved());
  assert.match(person, 'reorder the commits so the oracle commits come first');
  // The server knows no pusher here: the agent is the one who made the commits.
  const agent = push(interleaved(asAgent));
  assert.match(agent, "the oracle changes of this range (spec/a.test.js) are a human owner's to make");
  assert.match(agent, 'ask a human owner to land the oracle change on main');
  assert.not.match(agent, 'mix.range');
  assert.not.match(agent, 'reorder the commits so');
});

test.run();
