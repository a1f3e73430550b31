// The split advice on a feature branch, followed as printed: the oracle goes
// to the default branch in a pull request of its own, the branch is rebased
// once it lands, and the gate accepts each state the commands reach. An
// agent's refusal never tells it to make or push the oracle change.
import { chmodSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advice, follow } from '../helpers/advice.js';
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

test('an agent committing the same mix is told a human owner must make the oracle change, and given no oracle command', () => {
  const s = evidenceSite('js', { config: configFor('js', 'owners:\n  agents: ["*[bot]@*"]\n') });
  const { work } = s;
  work.env = { ...work.env, GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT };
  installPreCommit(work);
  const r = mixed(work);
  assert.is(r.code, 1, r.said);
  assert.match(r.said, 'a human owner must make the oracle change');
  const commands = advice(r.said);
  assert.equal(commands, ["git commit -m 'production change' -- src/bill.mjs"]);
  follow(work.dir, work.env, commands);
  assert.match(
    work.git(['status', '--porcelain']).stdout,
    'spec/invariants.yaml',
    'the oracle change is left for the owner',
  );
});

test.run();
