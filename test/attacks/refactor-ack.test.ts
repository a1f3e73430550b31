// A refactor the properties cannot describe goes through only with an owner's
// row keyed by the digest of exactly that diff, landed before the push. An
// acknowledgment in the same push, or a row for another diff, changes nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo, type TempRepo, installPrePush } from '../helpers/repo.js';
import { config, FIXED_JS, jsProperty, NODE_TEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const REFACTOR = FIXED_JS + 'export const currency = "EUR";\n';

/** A pushed project whose property passes; hooks/pre-push installed. */
function pushed(): TempRepo {
  const remote = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(
    {
      '.gitignore': 'build/\n',
      '.patchwarden.yml': config(NODE_TEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': FIXED_JS,
    },
    'start',
  );
  assert.is(push(repo).code, 0);
  return repo;
}

const push = (repo: TempRepo) => {
  const r = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
  return { code: r.code, said: r.stdout + r.stderr };
};

const ack = (digest: string, owner = 'Dana Owner') =>
  `version: 1\nrefactors:\n  - diff: ${digest}\n    owner: ${owner}\n    reason: adds a constant nothing reads yet\n`;

/** Pushes the refactor and returns the digest its refusal names. */
function refusedDigest(repo: TempRepo): string {
  const r = push(repo);
  assert.is(r.code, 1, r.said);
  assert.match(r.said, /refused \[revert\] revert check does_not_describe/);
  const digest = /- diff: ([0-9a-f]{64})/.exec(r.said)?.[1];
  assert.ok(digest, r.said);
  return digest!;
}

test.after.each(cleanup);

test('attack: the patch acknowledges its own diff in the same push; refused', () => {
  const repo = pushed();
  repo.commit({ 'src/bill.mjs': REFACTOR }, 'refactor');
  const digest = refusedDigest(repo);
  // The agent adds the row after its change (and in the range): the base has no such row.
  repo.commit({ '.patchwarden/refactors.yaml': ack(digest, 'agent') }, 'acknowledge');
  const r = push(repo);
  assert.is(r.code, 1, r.said);
  assert.match(r.said, /refused \[mix-range\]|refused \[revert\]/);
  // Even with the range rule off, the row is read from the base side, where it is not.
  repo.git(['reset', '-q', '--hard', 'HEAD~2']);
  repo.commit({ '.patchwarden.yml': config(NODE_TEST) + 'mix:\n  range: allow\n' }, 'allow ranges');
  assert.is(push(repo).code, 0);
  repo.commit({ 'src/bill.mjs': REFACTOR }, 'refactor');
  repo.commit({ '.patchwarden/refactors.yaml': ack(digest, 'agent') }, 'acknowledge');
  const same = push(repo);
  assert.is(same.code, 1, same.said);
  assert.match(same.said, /refused \[revert\] revert check does_not_describe/);
});

test("an owner's row for this diff, landed first, lets exactly this refactor through; another diff is still refused", () => {
  const repo = pushed();
  repo.commit({ 'src/bill.mjs': REFACTOR }, 'refactor');
  const digest = refusedDigest(repo);
  const refactor = repo.head();
  // The owner's row goes first, on its own, from the base; then the refactor on top.
  repo.git(['reset', '-q', '--hard', 'HEAD~1']);
  repo.commit({ '.patchwarden/refactors.yaml': ack(digest) }, 'acknowledge the currency refactor');
  assert.is(push(repo).code, 0);
  repo.git(['cherry-pick', refactor], { env: { GIT_EDITOR: 'true' } });
  // The gate honours the same row, read from its base.
  const gate = repo.json(['gate', '--base', 'origin/main']);
  const revert = gate.out.layers.find((l: { layer: string }) => l.layer === 'revert');
  assert.is(gate.code, 0, JSON.stringify(gate.out));
  assert.match(revert.summary, /^acknowledged refactor [0-9a-f]{12} by Dana Owner/);
  // pre-push's JSON names the row too, beside the revert check's own status.
  const line = `refs/heads/main ${repo.head()} refs/heads/main ${repo.git(['rev-parse', 'origin/main']).stdout.trim()}\n`;
  const json = repo.json(['pre-push', 'origin', repo.git(['remote', 'get-url', 'origin']).stdout.trim()], {
    input: line,
  });
  assert.is(json.code, 0, JSON.stringify(json.out));
  assert.is(json.out.refs[0].revert, 'acknowledged', 'looked up before any run');
  assert.equal(json.out.refs[0].acknowledged, {
    diff: digest,
    owner: 'Dana Owner',
    reason: 'adds a constant nothing reads yet',
  });
  const r = push(repo);
  assert.is(r.code, 0, r.said);
  assert.match(r.said, new RegExp(`${digest.slice(0, 12)} is acknowledged as a refactor by Dana Owner`));
  // A different production diff keeps its refusal.
  repo.commit({ 'src/bill.mjs': REFACTOR + 'export const rate = 1;\n' }, 'another change');
  assert.is.not(refusedDigest(repo), digest);
});

test('revert-check on its own consults the same row before any run: refused with the digest without it, acknowledged with it', () => {
  const repo = pushed();
  repo.commit({ 'src/bill.mjs': REFACTOR }, 'refactor');
  const refactor = repo.head();
  const before = repo.json(['revert-check', '--base', 'origin/main']);
  assert.is(before.code, 1, JSON.stringify(before.out));
  assert.is(before.out.status, 'does_not_describe');
  const digest = before.out.digest;
  assert.match(before.out.fix, `- diff: ${digest}`);
  assert.is(refusedDigest(repo), digest, 'the digest pre-push names');
  repo.git(['reset', '-q', '--hard', 'HEAD~1']);
  repo.commit({ '.patchwarden/refactors.yaml': ack(digest) }, 'acknowledge the currency refactor');
  assert.is(push(repo).code, 0);
  repo.git(['cherry-pick', refactor], { env: { GIT_EDITOR: 'true' } });
  const after = repo.json(['revert-check', '--base', 'origin/main']);
  assert.is(after.code, 0, JSON.stringify(after.out));
  assert.is(after.out.status, 'acknowledged');
  assert.equal(after.out.acknowledged, {
    diff: digest,
    owner: 'Dana Owner',
    reason: 'adds a constant nothing reads yet',
  });
  assert.is(after.out.head_run, null, 'no property run');
  assert.is(after.out.revert_run, null, 'no property run');
  assert.match(after.stderr, 'no property run');
  // Its base defaults to the upstream's merge base, where the row is too.
  repo.git(['branch', '-q', '--set-upstream-to', 'origin/main']);
  const text = repo.pw(['revert-check']);
  assert.is(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /revert check passed for [0-9a-f]{12}\.\.[0-9a-f]{12} \(acknowledged\)/);
});

test('a malformed acknowledgment file fails closed with its line', () => {
  const repo = pushed();
  repo.commit(
    { '.patchwarden/refactors.yaml': 'version: 1\nrefactors:\n  - diff: abc\n    owner: o\n    reason: r\n' },
    'bad row',
  );
  assert.is(push(repo).code, 0);
  repo.commit({ 'src/bill.mjs': REFACTOR }, 'refactor');
  const r = push(repo);
  assert.is.not(r.code, 0, r.said);
  assert.match(r.said, /refactors\.yaml:3: diff: "abc" is not a sha256 digest/);
});

test.run();
