// The whole-range advice, followed as printed. A branch whose oracle commit
// (an owner's pending property) comes before the fix it proves is refused by
// pre-push, by the server and by the gate; each prints commands for where the
// range goes and who runs them. The commands are read out of the real output
// and run exactly as printed, in the clone (pushes go through its pre-push
// hook and the server's), by the role they are addressed to; the oracle pull
// request then lands as a reviewer would merge it, and the next push and the
// gate accept what the commands reached, the fix proven by the property.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { follow, ownerEnv } from '../helpers/advice.js';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { Keys } from '../prereceive/server.js';
import {
  AGENT,
  commitBy,
  configFor,
  DISCOUNT,
  evidenceSite,
  gate,
  JS_BILL_FIXED,
  JS_DISCOUNT,
  MARK,
  ok,
  registryOf,
  TOTAL,
} from '../properties/evidence-site.js';
import type { Site } from '../attacks/range-site.js';

const keys = new Keys();
const ownerKey = keys.make('owner');
const OWNER = 'owner@example.com';

test.after.each(cleanup);
test.after(() => keys.rm());

const ORACLE = {
  'spec/properties/discount.test.mjs': JS_DISCOUNT,
  'spec/invariants.yaml': registryOf([{ id: TOTAL }, { id: DISCOUNT, pending: MARK }]),
};

/** On `branch` from main: the owner's pending property, then the fix, as two commits (hooks skipped). */
function mixedRange(work: TempRepo, branch: string): string {
  if (branch !== 'main') work.git(['switch', '-q', '-c', branch]);
  const oracle = work.commit(ORACLE, 'property: discounts never go negative');
  work.commit({ 'src/bill.mjs': JS_BILL_FIXED }, 'fix: discounts stop at zero');
  return oracle;
}

/** The commands of a refusal's advice: the indented `git` lines after `marker`, up to `until`, as printed. */
function commands(said: string, marker: string, until?: string): string[] {
  const lines = said.split('\n').map((l) => l.replace(/^remote: /, '').trimEnd());
  const start = lines.findIndex((l) => l.includes(marker));
  assert.ok(start >= 0, `no "${marker}" in:\n${said}`);
  const rest = lines.slice(start + 1);
  const end = until ? rest.findIndex((l) => l.includes(until)) : -1;
  return (end >= 0 ? rest.slice(0, end) : rest).filter((l) => /^ +git /.test(l)).map((l) => l.trim());
}

/** The output of a push the range rule refused. */
function refusedPush(r: { code: number; stdout: string; stderr: string }): string {
  const said = r.stdout + r.stderr;
  assert.is.not(r.code, 0, said);
  assert.match(said, 'mix-range');
  return said;
}

/** The reviewer merges the oracle pull request: its branch as it is on the server becomes main. */
function landOracle(s: Site, side: string): void {
  const tip = s.ref(`refs/heads/${side}`);
  assert.ok(tip, `${side} was pushed`);
  ok(s.localPush([`${tip}:refs/heads/main`]));
}

/** After the advice: the gate accepts the branch and the property proves the fix; the server holds it. */
function accepted(s: Site, branch: string): void {
  const g = gate(s.work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.is(g.layers.revert.details.status, 'describes_patch');
  assert.equal(g.layers.revert.details.failing_on_revert, [DISCOUNT]);
  assert.is(s.ref(`refs/heads/${branch}`), s.work.head());
}

/** The feature-branch advice (pull request first), split at its "once ... has landed" line and followed. */
function followPullRequest(s: Site, said: string, branch: string): void {
  const side = `${branch}-oracle`;
  const once = `once ${side} has landed on main`;
  const now = commands(said, 'open a pull request with only the oracle commits against main', once);
  assert.is(now.length, 1, said);
  follow(s.work.dir, s.work.env, now);
  // The oracle pull request as pushed: only the property, which the gate accepts, listed as pending.
  s.work.git(['fetch', '-q', 'origin']);
  s.work.git(['switch', '-q', '--detach', `origin/${side}`]);
  const g = gate(s.work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.equal(g.layers.properties.details.pending, [DISCOUNT]);
  s.work.git(['switch', '-q', branch]);
  landOracle(s, side);
  const later = commands(said, once);
  assert.is(later.length, 2, said);
  follow(s.work.dir, s.work.env, later);
  accepted(s, branch);
}

test('pre-push on a feature branch: the oracle pull request pushed as printed, landed, the branch rebased and pushed as printed', () => {
  const s = evidenceSite('js');
  mixedRange(s.work, 'fix-discount');
  const said = refusedPush(s.localPush(['fix-discount']));
  followPullRequest(s, said, 'fix-discount');
});

test('the server on a feature branch (no local hook): its advice, run in the clone as printed, lands the same way', () => {
  const s = evidenceSite('js');
  mixedRange(s.work, 'fix-discount');
  const said = refusedPush(s.push(['-u', 'fix-discount']));
  assert.match(said, 'origin: what your clone calls this server');
  assert.is(s.ref('refs/heads/fix-discount'), null);
  followPullRequest(s, said, 'fix-discount');
});

test('the gate on a feature branch: its fix, run as printed, lands the same way', () => {
  const s = evidenceSite('js');
  mixedRange(s.work, 'fix-discount');
  const g = gate(s.work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  const v = g.layers.mixing.violations.find((x: { rule: string }) => x.rule === 'mix-range');
  assert.ok(v, JSON.stringify(g.layers.mixing));
  assert.not.match(v.fix, '<', 'no placeholder left to fill in');
  // check --range over the same commits prints the same commands.
  const checked = s.check('origin/main..HEAD');
  assert.is(checked.code, 1);
  assert.equal(
    commands(checked.stdout + checked.stderr, 'open a pull request'),
    commands(v.fix, 'open a pull request'),
  );
  followPullRequest(s, v.fix, 'fix-discount');
});

for (const [where, push] of [
  ['pre-push', (s: Site) => s.localPush(['main'])],
  ['the server', (s: Site) => s.push(['main'])],
] as const) {
  test(`${where} on the default branch: the two printed pushes, oracle first, each accepted`, () => {
    const s = evidenceSite('js');
    mixedRange(s.work, 'main');
    const said = refusedPush(push(s));
    const printed = commands(said, 'push the oracle commits on their own first');
    assert.is(printed.length, 2, said);
    follow(s.work.dir, s.work.env, printed);
    s.work.git(['fetch', '-q', 'origin']);
    assert.is(s.ref('refs/heads/main'), s.work.head());
    // The fix, pushed after its property, was proven by it on the way (pre-push ran the revert check).
    const check = s.work.json(['revert-check', '--base', 'origin/main~1', '--head', 'origin/main']);
    assert.is(check.out.status, 'describes_patch', JSON.stringify(check.out));
  });
}

test('the gate on the default branch: the two printed pushes, each accepted', () => {
  const s = evidenceSite('js');
  mixedRange(s.work, 'main');
  const g = gate(s.work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  const v = g.layers.mixing.violations.find((x: { rule: string }) => x.rule === 'mix-range');
  const printed = commands(v.fix, 'push the oracle commits on their own first');
  assert.is(printed.length, 2, v.fix);
  follow(s.work.dir, s.work.env, printed);
  assert.is(s.ref('refs/heads/main'), s.work.head());
});

/** A site whose owners sign: the owner's key in the allowed-signers file, agents named. */
function signersSite(): Site {
  return evidenceSite('js', {
    config: configFor('js', 'owners:\n  signers: .patchwarden/allowed_signers\n  agents: ["*[bot]@*"]\n'),
    files: { '.patchwarden/allowed_signers': `${OWNER} ${ownerKey.pub}\n` },
  });
}

for (const [where, push] of [
  ['pre-push', (s: Site) => s.localPush(['fix-discount'])],
  ['the server', (s: Site) => s.push(['fix-discount'])],
] as const) {
  test(`${where}, with owners.signers, on a feature branch: the owner signs the oracle commit as printed; the push and the gate accept it`, () => {
    const s = signersSite();
    const { work } = s;
    work.git(['switch', '-q', '-c', 'fix-discount']);
    work.commit(ORACLE, 'property: discounts never go negative');
    commitBy(work, 'dev@example.com', { 'src/bill.mjs': JS_BILL_FIXED }, 'fix: discounts stop at zero');
    const said = refusedPush(push(s));
    const printed = commands(said, 'an owner signs the oracle commits');
    assert.is(printed.length, 3, said);
    follow(work.dir, ownerEnv(work.env, OWNER, ownerKey.file), printed);
    assert.is(work.git(['symbolic-ref', '--short', 'HEAD']).stdout.trim(), 'fix-discount');
    const g = gate(work);
    assert.is(g.code, 0, JSON.stringify(g.out));
    assert.is(g.layers.revert.details.status, 'describes_patch');
    assert.is(g.layers.revert.details.evidence.owed, true, 'the unsigned fix still owes its fixed case');
    assert.is(g.layers.properties.details.owner_commits.length, 1);
    assert.is(s.ref('refs/heads/fix-discount'), work.head());
  });
}

test('an agent pushing the same range is given no command: a human owner must land the oracle commits', () => {
  const s = signersSite();
  const { work } = s;
  work.env = { ...work.env, GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT };
  mixedRange(work, 'fix-discount');
  for (const said of [
    refusedPush(s.localPush(['fix-discount'])),
    refusedPush(s.push(['fix-discount'])),
    gate(work).layers.mixing.violations.find((x: { rule: string }) => x.rule === 'mix-range').fix,
  ]) {
    assert.match(said, 'a human owner must land the oracle commits');
    assert.equal(commands(said, 'a human owner must land'), []);
  }
});

test.run();
