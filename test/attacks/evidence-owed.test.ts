// Who owes evidence, with owners.signers set (revert.require defaults to
// agents): an owner-signed production commit is vouched for by its signer;
// one that credits an agent in a trailer owes a fixed case like any agent's.
// Owner-signed oracle commits may share a pull request with an agent's fix,
// and both runs see them, but only when they are admitted: signed by an
// owner's key, sitting in the range, recent. Real SSH keys, real node
// properties, the real gate and a real server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { commitAs, Keys } from '../prereceive/server.js';
import {
  AGENT,
  commitBy,
  configFor,
  DISCOUNT,
  evidenceSite,
  gate,
  JS_BILL,
  JS_BILL_FIXED,
  JS_DISCOUNT,
  ok,
  registryOf,
  TOTAL,
} from '../properties/evidence-site.js';
import { refused } from './range-site.js';

const keys = new Keys();
const owner = keys.make('owner');
const agentKey = keys.make('agent');
const OWNER = 'owner@example.com';

test.after.each(cleanup);
test.after(() => keys.rm());

const CONFIG = configFor('js', 'owners:\n  signers: .patchwarden/allowed_signers\n  agents: ["*[bot]@*"]\n');
const signed = (email = OWNER) => ({ sign: owner.file, email });

function ownedSite() {
  return evidenceSite('js', { config: CONFIG, files: { '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n` } });
}

/** The owner's property for the discount bug, with its registry row. */
const ORACLE = {
  'spec/properties/discount.test.mjs': JS_DISCOUNT,
  'spec/invariants.yaml': registryOf([{ id: TOTAL }, { id: DISCOUNT }]),
};
const REFACTOR = JS_BILL.replace('xs.reduce((a, b) => a + b, 0)', 'xs.reduce((sum, x) => sum + x, 0)');

test("owner and agent in one pull request: the owner-signed property runs in both runs and proves the agent's fix", () => {
  const s = ownedSite();
  const { work } = s;
  work.git(['switch', '-q', '-c', 'fix-discount']);
  const oracle = commitAs(work, ORACLE, 'property: discounts never go negative', signed());
  commitBy(work, AGENT, { 'src/bill.mjs': JS_BILL_FIXED }, 'fix: discounts stop at zero');
  const g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.is(g.layers.revert.details.status, 'describes_patch');
  assert.equal(g.layers.revert.details.failing_on_revert, [DISCOUNT]);
  assert.equal(g.layers.properties.details.owner_commits, [oracle]);
  assert.is(g.layers.revert.details.evidence.owed, true);
  ok(s.localPush(['fix-discount:main']));
});

test("an oracle commit in the range signed by the agent's own key, unsigned, too old, or from another branch is refused", () => {
  const s = ownedSite();
  const { work } = s;
  work.commit({ 'README.md': 'bill, again\n' }, 'docs');
  ok(s.localPush(['main']));
  const cases: [string, () => void, string][] = [
    [
      'agent key',
      () => commitAs(work, ORACLE, 'property', { sign: agentKey.file, email: OWNER }),
      'is signed, but not by a key in the allowed-signers file',
    ],
    ['unsigned', () => commitAs(work, ORACLE, 'property', { email: OWNER }), 'is not signed'],
    [
      'old',
      () => {
        for (const [f, c] of Object.entries(ORACLE)) work.write(f, c);
        work.git(['add', '-A']);
        const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
        work.git(
          [
            '-c',
            'gpg.format=ssh',
            '-c',
            `user.signingkey=${owner.file}`,
            'commit',
            '-q',
            '--no-verify',
            '-S',
            '-m',
            'property',
          ],
          {
            env: { GIT_AUTHOR_EMAIL: OWNER, GIT_COMMITTER_EMAIL: OWNER, GIT_COMMITTER_DATE: old, GIT_AUTHOR_DATE: old },
          },
        );
      },
      'more than owners.max_age (14d)',
    ],
    [
      'another branch',
      () => {
        work.git(['switch', '-q', '-c', 'abandoned', 'main~1']);
        commitAs(work, ORACLE, 'property, elsewhere', signed());
        work.git(['switch', '-q', 'pr']);
        work.git(['merge', '-q', '--no-ff', '--no-verify', '-m', 'take the property', 'abandoned']);
      },
      "is neither the range's merge base",
    ],
  ];
  for (const [what, make, says] of cases) {
    work.git(['switch', '-q', '-C', 'pr', 'main']);
    make();
    commitBy(work, AGENT, { 'src/bill.mjs': JS_BILL_FIXED }, 'fix: discounts stop at zero');
    const g = gate(work);
    assert.is(g.code, 1, `${what}: ${JSON.stringify(g.out)}`);
    assert.is(g.layers.owners.status, 'refused', what);
    assert.match(JSON.stringify(g.layers.owners.violations), says, what);
    // Refused already, so no property runs: the unadmitted property can change nothing.
    assert.is(g.layers.revert.status, 'skipped', what);
    assert.ok(g.layers.revert.details.not_run.includes('owners'), what);
    work.git(['branch', '-q', '-D', 'abandoned'], { allowFail: true });
  }
});

test('an owner-signed production commit is vouched for; the same commit crediting an agent in a trailer owes evidence; a regression is refused for everyone', () => {
  const s = ownedSite();
  const { work } = s;
  work.git(['switch', '-q', '-c', 'refactor']);
  commitAs(work, { 'src/bill.mjs': REFACTOR }, 'refactor: total', signed());
  let g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.is(g.layers.revert.details.status, 'vouched');
  assert.match(g.layers.revert.details.evidence.why, 'every production commit is signed by an owner');
  ok(s.localPush(['refactor:main']));

  work.git(['switch', '-q', '-c', 'assisted', 'origin/main']);
  commitAs(
    work,
    { 'src/bill.mjs': REFACTOR.replace('sum + x', 'x + sum') },
    'refactor: total\n\nAssisted-by: Claude <noreply@anthropic.com>',
    signed(),
  );
  g = gate(work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.is(g.layers.revert.details.status, 'does_not_describe');
  assert.match(g.layers.revert.details.evidence.why, 'names the agent Claude <noreply@anthropic.com>');
  refused(s.localPush(['assisted:main']), 'does_not_describe');

  work.git(['switch', '-q', '-c', 'unsigned', 'origin/main']);
  work.commit({ 'src/bill.mjs': REFACTOR.replace('sum + x', 'x + sum') }, 'refactor by a person, unsigned');
  g = gate(work);
  assert.is(g.layers.revert.details.status, 'does_not_describe');
  assert.match(g.layers.revert.details.evidence.why, 'is not signed by an owner');

  work.git(['switch', '-q', '-c', 'regress', 'origin/main']);
  commitAs(
    work,
    { 'src/bill.mjs': REFACTOR.replace('sum + x, 0)', 'sum + x, 0) - 1') },
    'owner breaks total',
    signed(),
  );
  g = gate(work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.is(g.layers.properties.details.status, 'regressed');
});

test.run();
