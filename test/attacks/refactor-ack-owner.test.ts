// With owners.signers set, an owner's signed row in the refactor's own branch
// acknowledges it, as an admitted owner commit's pending mark counts: the gate
// and pre-push read the row as head has it. The same row from the agent, or
// an owner's row for another diff, changes nothing. Real node --test, real
// SSH signatures, the real gate and pre-push.
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
  const { work } = site(CONFIG, {
    '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
    'spec/invariants.yaml': `version: 1\ninvariants:\n  - id: ${TOTAL}\n    description: totals hold\n`,
    'spec/properties/total.test.mjs': JS_TOTAL,
    'src/bill.mjs': JS_BILL,
  });
  work.git(['switch', '-q', '-c', 'refactor', 'origin/main']);
  commitBy(work, AGENT, { 'src/bill.mjs': REFACTOR }, 'refactor: name the currency');
  return work;
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

test.run();
