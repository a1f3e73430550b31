// Where pre-push's revert check starts: the merge base with the branch the
// pushed branch merges into, read from the remote at push time, so a branch
// rebased onto a fixed main is judged as the gate judges it. Real git, a real
// bare remote with the project's pre-push hook, node's own test runner.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, installPrePush, tempRepo, type TempRepo } from '../helpers/repo.js';
import { BUGGY_JS, config, FIXED_JS, jsProperty, NODE_TEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const START = {
  '.gitignore': 'build/\n',
  '.patchwarden.yml': config(NODE_TEST),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': BUGGY_JS,
};
/** A production change that leaves the invariant alone: it owes evidence it cannot give. */
const UNRELATED = { 'src/currency.mjs': 'export const currency = "EUR";\n' };

test.after.each(cleanup);

/** A bare remote whose main holds the buggy start, an owner's clone that pushes to it, and an agent's clone with the hook. */
function team(): { remote: TempRepo; owner: TempRepo; agent: TempRepo } {
  const remote = tempRepo({ bare: true });
  const owner = tempRepo();
  owner.git(['remote', 'add', 'origin', remote.dir]);
  owner.commit(START, 'start');
  owner.git(['push', '-q', '--no-verify', 'origin', 'main']);
  const agent = tempRepo();
  agent.git(['remote', 'add', 'origin', remote.dir]);
  agent.git(['fetch', '-q', 'origin']);
  agent.git(['remote', 'set-head', 'origin', 'main']);
  agent.git(['reset', '-q', '--hard', 'origin/main']);
  installPrePush(agent);
  return { remote, owner, agent };
}

/** The owner lands the fix of the registered invariant on `branch` of the remote. */
function landFix(owner: TempRepo, branch: string): string {
  owner.git(['switch', '-q', '-C', branch, 'main']);
  const fix = owner.commit({ 'src/bill.mjs': FIXED_JS }, 'fix: totals are never negative');
  owner.git(['push', '-q', '--no-verify', 'origin', branch]);
  return fix;
}

const said = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

/** The hook run directly on one ref line, as git hands it; the verdict as JSON. */
function prePush(agent: TempRepo, local: string, remoteRef: string, extra: string[] = []) {
  const tip = agent.git(['rev-parse', local]).stdout.trim();
  const old = agent.git(['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${remoteRef}`], { allowFail: true });
  const line = `refs/heads/${local} ${tip} refs/heads/${remoteRef} ${old.stdout.trim() || '0'.repeat(40)}\n`;
  return agent.json(['pre-push', 'origin', 'unused', ...extra], { input: line });
}

test('a branch rebased onto a fixed main: pre-push refuses as the gate does; offline, it says so and judges as before', () => {
  const { owner, agent } = team();
  agent.git(['switch', '-q', '-c', 'feature']);
  agent.commit(UNRELATED, 'feat: a currency');
  // Pushed while main's invariant was still red: the hook is skipped, as a draft would be.
  agent.git(['push', '-q', '--no-verify', '-u', 'origin', 'feature']);
  const fix = landFix(owner, 'main');
  agent.git(['pull', '-q', '--rebase', 'origin', 'main']);
  assert.is(agent.git(['rev-parse', 'HEAD~1']).stdout.trim(), fix);
  // main moves on after the pull: the hook reads it from the remote, fetching its objects and moving no ref.
  const later = owner.commit({ 'docs/notes.md': 'notes\n' }, 'docs');
  owner.git(['push', '-q', '--no-verify', 'origin', 'main']);
  const refs = agent.git(['for-each-ref']).stdout;
  const fetchHead = readFileSync(path.join(agent.dir, '.git/FETCH_HEAD'), 'utf8');
  const pushed = agent.git(['push', '-q', '--force-with-lease'], { allowFail: true });
  assert.is.not(pushed.code, 0, said(pushed));
  assert.match(said(pushed), 'refused [revert] revert check does_not_describe');
  assert.match(said(pushed), `the revert check starts at ${fix.slice(0, 12)}: its merge base with origin/main`);
  assert.is(agent.git(['cat-file', '-t', later]).stdout.trim(), 'commit');
  assert.is(agent.git(['for-each-ref']).stdout, refs);
  assert.is(readFileSync(path.join(agent.dir, '.git/FETCH_HEAD'), 'utf8'), fetchHead);
  // The gate, run as CI runs it, reaches the same verdict on the same tip.
  const gate = agent.json(['gate', '--base', 'origin/main']);
  const revert = gate.out.layers.find((l: { layer: string }) => l.layer === 'revert');
  assert.is(gate.code, 1, gate.stderr);
  assert.is(revert.status, 'refused');
  assert.match(JSON.stringify(revert.violations), 'does_not_describe');
  const verdict = prePush(agent, 'feature', 'feature');
  assert.is(verdict.code, 1);
  assert.is(verdict.out.refs[0].revert, 'does_not_describe');
  assert.is(verdict.out.refs[0].revert_base.from, fix);
  // Offline: the remote cannot be read, so the check starts where the push does (the old fork point),
  // and it says so: main's fix is credited to the branch, which the gate will not do.
  agent.git(['remote', 'set-url', 'origin', path.join(agent.dir, 'gone')]);
  const offline = prePush(agent, 'feature', 'feature');
  assert.match(offline.stderr, /could not read the default branch from origin \(.*gone/);
  assert.match(offline.stderr, 'so the gate may judge it otherwise');
  assert.is(offline.out.refs[0].revert, 'describes_patch');
  assert.is(offline.out.refs[0].revert_base.from, offline.out.refs[0].base);
  assert.is.not(offline.out.refs[0].base, fix);
});

test('a branch of develop is judged against develop; pre_push.base names the target of a branch with no other upstream', () => {
  const { owner, agent } = team();
  // The fix lands on develop only; main stays red.
  const fix = landFix(owner, 'develop');
  agent.git(['fetch', '-q', 'origin']);
  agent.git(['switch', '-q', '-c', 'topic', '--track', 'origin/develop']);
  agent.commit(UNRELATED, 'feat: a currency');
  const onDevelop = prePush(agent, 'topic', 'topic');
  assert.is(onDevelop.code, 1, onDevelop.stderr);
  assert.is(onDevelop.out.refs[0].revert_base.target, 'refs/heads/develop');
  assert.is(onDevelop.out.refs[0].revert_base.from, fix);
  assert.is(onDevelop.out.refs[0].revert, 'does_not_describe');
  const gate = agent.json(['gate', '--base', 'origin/develop']);
  assert.is(gate.out.layers.find((l: { layer: string }) => l.layer === 'revert').status, 'refused');
  // The same branch with itself as upstream: measured from main, where develop's fix is the branch's.
  agent.git(['branch', '-q', '--unset-upstream', 'topic']);
  const onMain = prePush(agent, 'topic', 'topic');
  assert.is(onMain.out.refs[0].revert_base.target, 'refs/heads/main');
  assert.is.not(onMain.out.refs[0].revert_base.from, fix);
  assert.is(onMain.out.refs[0].revert, 'describes_patch');
  // pre_push.base: develop (also spelt origin/develop) names develop as the target.
  for (const base of ['develop', 'origin/develop']) {
    const file = path.join(agent.dir, '..', `${path.basename(agent.dir)}-${base.replace('/', '-')}.yml`);
    writeFileSync(file, config(NODE_TEST, `pre_push:\n  base: ${base}\n`));
    const named = prePush(agent, 'topic', 'topic', ['--config', file]);
    assert.is(named.out.refs[0].revert_base.target, 'refs/heads/develop', base);
    assert.is(named.out.refs[0].revert_base.from, fix, base);
    assert.is(named.out.refs[0].revert, 'does_not_describe', base);
    assert.match(named.stderr, 'pre_push.base in');
  }
});

test('develop itself, pushed again, is judged from what the remote holds of it, as before', () => {
  const { owner, agent } = team();
  landFix(owner, 'develop');
  agent.git(['fetch', '-q', 'origin']);
  agent.git(['switch', '-q', '-c', 'develop', '--track', 'origin/develop']);
  const old = agent.head();
  agent.commit(UNRELATED, 'feat: a currency');
  const r = prePush(agent, 'develop', 'develop');
  assert.is(r.out.refs[0].base, old);
  assert.is(r.out.refs[0].revert_base.from, old);
  assert.match(r.stderr, 'origin already holds this branch past where it left main');
  assert.is(r.out.refs[0].revert, 'does_not_describe');
});

test('pre_push.base: a name git would refuse is an error naming the key', () => {
  const repo = tempRepo();
  repo.commit({ '.patchwarden.yml': 'version: 1\npre_push:\n  base: "main..x"\n' }, 'config');
  const r = repo.pw(['doctor']);
  assert.match(r.stdout + r.stderr, 'pre_push.base: must be a branch name');
});

test.run();
