// With owners.signers set, an owner's signed row in the refactor's own branch
// acknowledges it, as an admitted owner commit's pending mark counts: the gate
// and pre-push read the row as head has it. The same row from the agent, or
// an owner's row for another diff, changes nothing; nor does an owner's row
// brought in by a merge the agent edits, cherry-picked, or replayed from
// another history. A row an owner revoked on main must stay revoked on a
// branch forked before that. Real node --test, real SSH signatures, the real
// gate and pre-push.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { commitAs, Keys } from '../prereceive/server.js';
import { AGENT, commitBy, gate, JS_BILL, JS_TOTAL, TOTAL } from '../properties/evidence-site.js';
import { site } from './range-site.js';

const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination={junit} spec/properties/';
const CONFIG = `version: 1
zones:
  spec: [spec/**]
  src: [src/**]
properties:
  command: ${JSON.stringify(NODE_TEST)}
  invariants: spec/invariants.yaml
owners:
  signers: .patchwarden/allowed_signers
`;
const REFACTOR = `${JS_BILL}export const currency = "EUR";\n`;

const keys = new Keys();
const owner = keys.make('owner');
const signed = { sign: owner.file, email: 'owner@example.com' };
test.after.each(cleanup);
test.after(() => keys.rm());

const ack = (digest: string) =>
  `version: 1\nrefactors:\n  - diff: ${digest}\n    owner: Dana Owner\n    reason: adds a constant nothing reads yet\n`;

/** A site whose main holds the project; the work clone on a branch with the agent's refactor. */
function refactored(): TempRepo {
  return refactoredSite().work;
}

function refactoredSite(): ReturnType<typeof site> {
  const s = site(CONFIG, {
    '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
    'spec/invariants.yaml': `version: 1\ninvariants:\n  - id: ${TOTAL}\n    description: totals hold\n`,
    'spec/properties/total.test.mjs': JS_TOTAL,
    'src/bill.mjs': JS_BILL,
  });
  s.work.git(['switch', '-q', '-c', 'refactor', 'origin/main']);
  commitBy(s.work, AGENT, { 'src/bill.mjs': REFACTOR }, 'refactor: name the currency');
  return s;
}

/** Moves the server's main to `rev` of the clone as an owner lands it (no hook: the push is not what is tested). */
function land(s: ReturnType<typeof site>, rev: string): void {
  s.bare.git(['fetch', '-q', s.work.dir, `+${rev}:refs/heads/main`]);
}

/** pre-push's verdict on pushing head as a new branch `refactor`, judged from where it leaves main. */
function prePush(work: TempRepo): { code: number; out: Record<string, any> } {
  const line = `refs/heads/refactor ${work.head()} refs/heads/refactor ${'0'.repeat(40)}\n`;
  return work.json(['pre-push', 'origin', work.git(['remote', 'get-url', 'origin']).stdout.trim()], { input: line });
}

/** The gate's revert layer refuses the refactor; the digest its details name. */
function refusedDigest(work: TempRepo): string {
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'does_not_describe', `${revert.reason}\n${g.stderr}`);
  assert.is(g.code, 1);
  assert.match(
    g.layers.revert.violations[0].fix,
    'signed by an owner (git commit -S), on this branch or landed before it',
  );
  return revert.digest;
}

test("an owner's signed row on the refactor's branch acknowledges it for the gate and pre-push", () => {
  const work = refactored();
  const digest = refusedDigest(work);
  commitAs(work, { '.patchwarden/refactors.yaml': ack(digest) }, 'acknowledge the currency refactor', signed);
  const g = gate(work);
  assert.is(g.code, 0, `${JSON.stringify(g.out.layers)}\n${g.stderr}`);
  assert.match(g.layers.revert.summary, /^acknowledged refactor [0-9a-f]{12} by Dana Owner/);
  const line = `refs/heads/main ${work.head()} refs/heads/main ${work.git(['rev-parse', 'origin/main']).stdout.trim()}\n`;
  const json = work.json(['pre-push', 'origin', work.git(['remote', 'get-url', 'origin']).stdout.trim()], {
    input: line,
  });
  assert.is(json.code, 0, JSON.stringify(json.out));
  assert.is(json.out.refs[0].revert, 'acknowledged');
});

test('attack: the agent commits the row itself, or an owner signs a row for another diff; refused', () => {
  const work = refactored();
  const digest = refusedDigest(work);
  commitBy(work, AGENT, { '.patchwarden/refactors.yaml': ack(digest) }, 'acknowledge');
  const g = gate(work);
  assert.is(g.code, 1);
  // The owners and mixing layers refuse it, so no property runs: the row never counts.
  assert.is(g.layers.revert.summary, 'not run: mixing, owners refused', JSON.stringify(g.layers.revert));
  assert.match(JSON.stringify(g.layers.owners), /owners-signature/);
  assert.match(JSON.stringify(g.layers.mixing), /mix-range/);
  // An owner's signed row for this digest does not cover a change made after it.
  work.git(['reset', '-q', '--hard', 'HEAD~1']);
  commitAs(work, { '.patchwarden/refactors.yaml': ack(digest) }, 'acknowledge the currency refactor', signed);
  commitBy(work, AGENT, { 'src/bill.mjs': `${REFACTOR}export const rate = 1;\n` }, 'and a rate');
  const again = gate(work);
  assert.is(again.code, 1);
  assert.is(again.layers.revert.details.status, 'does_not_describe', again.stderr);
  assert.is.not(again.layers.revert.details.digest, digest);
});

test("attack: an agent merge that brings the owner's ack commit and edits the file, or a later agent commit; refused", () => {
  const work = refactored();
  const digest = refusedDigest(work);
  // The owner acknowledges a different diff on a branch of its own off main; the agent merges
  // it and, in the merge, adds the row for its own diff.
  const refactor = work.head();
  work.git(['switch', '-q', '-c', 'ack', 'origin/main']);
  commitAs(work, { '.patchwarden/refactors.yaml': ack('a'.repeat(64)) }, 'acknowledge another refactor', signed);
  work.git(['switch', '-q', 'refactor']);
  work.git(['merge', '-q', '--no-ff', '--no-commit', 'ack'], {
    env: { GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT },
  });
  work.write(
    '.patchwarden/refactors.yaml',
    `${ack('a'.repeat(64))}  - diff: ${digest}\n    owner: Dana Owner\n    reason: same\n`,
  );
  work.git(['add', '-A']);
  commitBy(work, AGENT, {}, 'merge ack');
  const merged = gate(work);
  assert.is(merged.code, 1, merged.stderr);
  assert.is.not(merged.layers.revert.details.status, 'acknowledged', JSON.stringify(merged.layers.revert));
  // The same row as a second, unsigned commit after the owner's, and then with the file put back by a revert.
  work.git(['reset', '-q', '--hard', refactor]);
  commitAs(work, { '.patchwarden/refactors.yaml': ack('a'.repeat(64)) }, 'acknowledge another refactor', signed);
  commitBy(work, AGENT, { '.patchwarden/refactors.yaml': ack(digest) }, 'fix the digest');
  const second = gate(work);
  assert.is(second.code, 1, second.stderr);
  assert.is.not(second.layers.revert.details.status, 'acknowledged', JSON.stringify(second.layers.revert));
  assert.is(prePush(work).code === 0, false);
});

test("attack: the owner's ack commit cherry-picked (signature lost), or merged in with its parent outside the range; refused", () => {
  const s = refactoredSite();
  const work = s.work;
  const digest = refusedDigest(work);
  // The owner signed the right row, on main as it was, but it never landed; main moved on.
  work.git(['switch', '-q', '-c', 'old-ack', 'origin/main']);
  const owners = commitAs(work, { '.patchwarden/refactors.yaml': ack(digest) }, 'acknowledge', signed);
  work.git(['switch', '-q', 'main']);
  land(s, commitAs(work, { 'README.md': 'bill, moved on\n' }, 'readme', signed));
  work.git(['fetch', '-q', 'origin']);
  work.git(['switch', '-q', '-C', 'refactor', 'origin/main']);
  commitBy(work, AGENT, { 'src/bill.mjs': REFACTOR }, 'refactor: name the currency');
  assert.is(refusedDigest(work), digest);
  const refactor = work.head();
  work.git(['cherry-pick', owners], { env: { GIT_COMMITTER_EMAIL: AGENT } });
  const picked = gate(work);
  assert.is(picked.code, 1, picked.stderr);
  assert.match(JSON.stringify(picked.layers.owners), /owners-signature/);
  // The signed commit itself, merged as git merges it: its parent is neither the merge base nor in the range.
  work.git(['reset', '-q', '--hard', refactor]);
  work.git(['merge', '-q', '--no-ff', '-m', 'merge the acknowledgment', owners], {
    env: { GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT },
  });
  const merged = gate(work);
  assert.is(merged.code, 1, merged.stderr);
  assert.is.not(merged.layers.revert.details.status, 'acknowledged', JSON.stringify(merged.layers.revert));
  assert.is.not(prePush(work).code, 0);
});

test('attack: a row an owner revoked on main comes back through a branch forked before the revocation, once any owner-signed commit on it touches the file', () => {
  const s = refactoredSite();
  const work = s.work;
  const digest = refusedDigest(work);
  const refactor = work.head();
  // The owner acknowledges the diff on main, then thinks better of it and removes the row.
  work.git(['switch', '-q', 'main']);
  const acked = commitAs(
    work,
    { '.patchwarden/refactors.yaml': ack(digest) },
    'acknowledge the currency refactor',
    signed,
  );
  const revoked = commitAs(work, { '.patchwarden/refactors.yaml': 'version: 1\nrefactors: []\n' }, 'revoke it', signed);
  land(s, revoked);
  // The agent's branch forks where the row still stood; an owner then acknowledges another diff on it.
  work.git(['switch', '-q', '-C', 'refactor', acked]);
  work.git(['cherry-pick', refactor], { env: { GIT_COMMITTER_EMAIL: AGENT } });
  const other = 'b'.repeat(64);
  const file = work.git(['show', `${acked}:.patchwarden/refactors.yaml`]).stdout;
  commitAs(
    work,
    { '.patchwarden/refactors.yaml': `${file}  - diff: ${other}\n    owner: Dana Owner\n    reason: another\n` },
    'acknowledge another',
    signed,
  );
  const g = gate(work);
  const p = prePush(work);
  // Both must refuse, as they do when the row is read from main: the owner's row there is gone.
  assert.equal(
    { gate: g.code, revert: g.layers.revert.details.status, prePush: p.code === 0 ? 'passes' : 'refuses' },
    { gate: 1, revert: 'does_not_describe', prePush: 'refuses' },
  );
});

test.run();
