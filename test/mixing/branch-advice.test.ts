// The split advice on a feature branch, followed as printed: the oracle goes
// to the default branch in a pull request of its own, the branch is rebased
// once it lands, and the gate accepts each state the commands reach. An
// agent's refusal never tells it to make or push the oracle change.
import { chmodSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advice, follow, ownerEnv } from '../helpers/advice.js';
import { Keys } from '../prereceive/server.js';
import { cleanup, PROJECT, type TempRepo } from '../helpers/repo.js';
import {
  AGENT,
  configFor,
  DISCOUNT,
  evidenceSite,
  gate,
  JS_BILL_FIXED,
  JS_DISCOUNT,
  MARK,
  registryOf,
  TOTAL,
} from '../properties/evidence-site.js';

test.after.each(cleanup);

function installPreCommit(repo: TempRepo): void {
  const hook = path.join(repo.dir, '.git/hooks/pre-commit');
  copyFileSync(path.join(PROJECT, 'hooks/pre-commit'), hook);
  chmodSync(hook, 0o755);
}

/** A fix and the owner's pending property for it, staged together on a feature branch. */
function mixed(work: TempRepo): { code: number; said: string } {
  work.git(['switch', '-q', '-c', 'fix-discount']);
  work
    .write('src/bill.mjs', JS_BILL_FIXED)
    .write('spec/properties/discount.test.mjs', JS_DISCOUNT)
    .write('spec/invariants.yaml', registryOf([{ id: TOTAL }, { id: DISCOUNT, pending: MARK }]));
  work.git(['add', '-A']);
  const r = work.git(['commit', '-q', '-m', 'fix discounts, with their property'], { allowFail: true });
  return { code: r.code, said: r.stdout + r.stderr };
}

test('on a feature branch: a pull request with only the oracle change, then the branch rebased; every command as printed, each state accepted by the gate', () => {
  const s = evidenceSite('js');
  const { work } = s;
  installPreCommit(work);
  const r = mixed(work);
  assert.is(r.code, 1, r.said);
  assert.match(
    r.said,
    'open a pull request with only the oracle change against main; rebase this branch once it lands',
  );
  const [now, later] = r.said.split('once fix-discount-oracle has landed on main:');
  follow(work.dir, work.env, advice(now));
  assert.is(work.git(['symbolic-ref', '--short', 'HEAD']).stdout.trim(), 'fix-discount');
  // The oracle pull request, as pushed: the gate accepts it, the pending invariant listed.
  work.git(['switch', '-q', 'fix-discount-oracle']);
  let g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.equal(g.layers.properties.details.pending, [DISCOUNT]);
  // It lands; the branch is rebased as printed and its fix is proven by the property.
  assert.is(s.localPush(['fix-discount-oracle:main']).code, 0);
  work.git(['switch', '-q', 'fix-discount']);
  follow(work.dir, work.env, advice(`once:\n${later}`, 'once:'));
  g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.is(g.layers.revert.details.status, 'describes_patch');
  assert.is(s.localPush(['fix-discount']).code, 0);
});

test('a branch that already changed the oracle in an earlier commit: the whole branch is split as printed, and the gate accepts each state', () => {
  const s = evidenceSite('js');
  const { work } = s;
  installPreCommit(work);
  // Made from origin/main, so it tracks origin/main: a bare `git push` of it would be refused.
  work.git(['switch', '-q', '-c', 'fix-discount', 'origin/main']);
  work.write('spec/properties/discount.test.mjs', JS_DISCOUNT);
  work.git(['add', '-A']);
  work.git(['commit', '-q', '-m', 'property: discounts never go negative']);
  const earlier = work.head();
  work
    .write('src/bill.mjs', JS_BILL_FIXED)
    .write('spec/invariants.yaml', registryOf([{ id: TOTAL }, { id: DISCOUNT, pending: MARK }]));
  work.git(['add', '-A']);
  const r = work.git(['commit', '-q', '-m', 'fix discounts, with their row'], { allowFail: true });
  const said = r.stdout + r.stderr;
  assert.is(r.code, 1, said);
  assert.match(said, `this branch already changes the oracle in commit ${earlier.slice(0, 12)}`);
  const [now, later] = said.split('once fix-discount-oracle has landed on main:');
  const commands = advice(now);
  assert.is(commands[0], `git reset --soft ${work.git(['rev-parse', 'origin/main']).stdout.trim()}`);
  follow(work.dir, work.env, commands);
  assert.is(work.git(['status', '--porcelain', '--untracked-files=no']).stdout, '', 'nothing left behind');
  // The oracle pull request holds the earlier property and the new row: the gate accepts it, pending listed.
  work.git(['switch', '-q', 'fix-discount-oracle']);
  assert.equal(work.git(['diff', '--name-only', 'origin/main', 'HEAD']).stdout.trim().split('\n'), [
    'spec/invariants.yaml',
    'spec/properties/discount.test.mjs',
  ]);
  let g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.equal(g.layers.properties.details.pending, [DISCOUNT]);
  assert.is(s.localPush(['fix-discount-oracle:main']).code, 0);
  work.git(['switch', '-q', 'fix-discount']);
  follow(work.dir, work.env, advice(`once:\n${later}`, 'once:'));
  g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.is(g.layers.mixing.status, 'pass');
  assert.is(g.layers.revert.details.status, 'describes_patch');
  assert.is(s.ref('refs/heads/fix-discount'), work.head(), 'pushed as printed');
});

for (const earlier of [false, true]) {
  test(`with owners.signers${earlier ? ', on a branch that already changed the oracle' : ''}: the owner runs the printed commands with their key; the push and the gate accept it`, () => {
    const keys = new Keys();
    const owner = keys.make('owner');
    try {
      const s = evidenceSite('js', {
        config: configFor('js', 'owners:\n  signers: .patchwarden/allowed_signers\n'),
        files: { '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n` },
      });
      const { work } = s;
      installPreCommit(work);
      work.git(['switch', '-q', '-c', 'fix-discount', 'origin/main']);
      if (earlier) {
        work.write('spec/properties/discount.test.mjs', JS_DISCOUNT);
        work.git(['add', '-A']);
        work.git(['commit', '-q', '-m', 'property: discounts never go negative']);
      }
      work
        .write('src/bill.mjs', JS_BILL_FIXED)
        .write('spec/properties/discount.test.mjs', JS_DISCOUNT)
        .write('spec/invariants.yaml', registryOf([{ id: TOTAL }, { id: DISCOUNT }]));
      work.git(['add', '-A']);
      const r = work.git(['commit', '-q', '-m', 'fix discounts, with their property'], { allowFail: true });
      assert.is(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, 'split it: an owner signs the oracle commit');
      const commands = advice(r.stderr);
      assert.is(commands.length, earlier ? 6 : 5, r.stderr);
      follow(work.dir, ownerEnv(work.env, 'owner@example.com', owner.file), commands);
      const g = gate(work);
      assert.is(g.code, 0, JSON.stringify(g.out));
      assert.is(g.layers.revert.details.status, 'describes_patch');
      assert.is(g.layers.properties.details.owner_commits.length, 1);
      assert.is(
        g.layers.revert.details.evidence.owed,
        true,
        'the production commit is not signed: it owes its fixed case',
      );
      assert.is(s.ref('refs/heads/fix-discount'), work.head(), 'pushed as printed');
    } finally {
      keys.rm();
    }
  });
}

test('an agent committing the same mix is told a human owner must make the oracle change, and given no oracle command', () => {
  const s = evidenceSite('js', { config: configFor('js', 'owners:\n  agents: ["*[bot]@*"]\n') });
  const { work } = s;
  work.env = { ...work.env, GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT };
  installPreCommit(work);
  const r = mixed(work);
  assert.is(r.code, 1, r.said);
  assert.match(r.said, 'a human owner must make the oracle change');
  const staged = work.git(['write-tree']).stdout.trim();
  const start = work.head();
  const commands = advice(r.said);
  assert.equal(
    commands.map((c) => c.replace(/[0-9a-f]{40}/, 'TREE')),
    ['git read-tree TREE', "git commit -m 'production change'", 'git read-tree TREE'],
  );
  follow(work.dir, work.env, commands);
  assert.equal(work.git(['diff', '--name-only', start, 'HEAD']).stdout.trim().split('\n'), ['src/bill.mjs']);
  assert.is(
    work.git(['write-tree']).stdout.trim(),
    staged,
    'the oracle change is left staged for the owner, as it was',
  );
  assert.equal(work.git(['diff', '--cached', '--name-only']).stdout.trim().split('\n'), [
    'spec/invariants.yaml',
    'spec/properties/discount.test.mjs',
  ]);
});

test.run();
