// The owners rule through real pushes: oracle commits signed with real SSH
// keys (ssh-keygen, gpg.format=ssh), checked by git against the signers file
// on the server's default branch.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { commitAs, guardedServer, Keys } from './server.js';

const keys = new Keys();
const owner = keys.make('owner');
const stranger = keys.make('stranger');
const AGENT = 'coder[bot]@agents.example.com';

const CONFIG = `version: 1
owners:
  signers: .patchwarden/allowed_signers
  agents: ["*[bot]@*"]
`;

function ownedServer() {
  return guardedServer(CONFIG, { '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n` });
}

test.after.each(cleanup);
test.after(() => keys.rm());

test('an oracle commit signed by a listed owner is accepted', () => {
  const s = ownedServer();
  const c = commitAs(s.work, { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# signed\n' }, 'spec, signed', {
    sign: owner.file,
    email: 'owner@example.com',
  });
  const r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), c);
});

test('an unsigned oracle commit is refused', () => {
  const s = ownedServer();
  const before = s.ref('main');
  commitAs(s.work, { 'freeze/signatures.yaml': 'version: 1\nrecords: []\n' }, 'ledger, unsigned');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(
    r.stderr,
    /\[owners-signature\] commit [0-9a-f]{12} "ledger, unsigned": this commit touches freeze and is not signed/,
  );
  assert.match(r.stderr, 'freeze/signatures.yaml  (freeze)');
  assert.is(s.ref('main'), before);
});

test('an oracle commit signed by a key not in the signers file is refused', () => {
  const s = ownedServer();
  commitAs(s.work, { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# stranger\n' }, 'spec, stranger', {
    sign: stranger.file,
    email: 'owner@example.com',
  });
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'is signed, but not by a key in the allowed-signers file');
});

test('a signed change to the signers file itself needs an owner too', () => {
  const s = ownedServer();
  commitAs(
    s.work,
    { '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\nme@example.com ${stranger.pub}\n` },
    'add myself',
    { sign: stranger.file, email: 'me@example.com' },
  );
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'this commit touches guard');
});

test('an agent identity is refused even when the commit is signed by an owner', () => {
  const s = ownedServer();
  commitAs(s.work, { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# agent\n' }, 'spec by agent', {
    sign: owner.file,
    email: AGENT,
  });
  let r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, `[owners-agent]`);
  assert.match(r.stderr, `names the agent identity ${AGENT}`);

  s.work.git(['reset', '-q', '--hard', 'HEAD~1']);
  commitAs(
    s.work,
    { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# pair\n' },
    `spec, paired\n\nCo-authored-by: Coder <${AGENT}>`,
    { sign: owner.file, email: 'owner@example.com' },
  );
  r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, `names the agent identity ${AGENT}`);
});

test('an agent may change production code', () => {
  const s = ownedServer();
  const c = commitAs(s.work, { 'src/app.ts': 'v2\n' }, 'code by agent', { email: AGENT });
  const r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), c);
});

test('owner-signed oracle commits may share a range with production commits', () => {
  const s = ownedServer();
  commitAs(s.work, { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# reviewed\n' }, 'spec, signed', {
    sign: owner.file,
    email: 'owner@example.com',
  });
  const c = commitAs(s.work, { 'src/app.ts': 'v2\n' }, 'code', { email: AGENT });
  let r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), c);
  // Signed or not, one commit still may not hold both.
  commitAs(
    s.work,
    { 'src/app.ts': 'v3\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# both\n' },
    'both, signed',
    { sign: owner.file, email: 'owner@example.com' },
  );
  r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '[mix]');
});

test('without a signers file, agents are still kept out of the oracles', () => {
  const s = guardedServer('version: 1\nowners:\n  agents: ["*@bots.example.com"]\n');
  commitAs(s.work, { 'fixtures/input/a.json': '{}\n' }, 'fixture', { email: 'x@BOTS.example.com' });
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'names the agent identity x@BOTS.example.com');
});

test('a signers file named in the config but missing blocks the push', () => {
  const s = guardedServer(CONFIG);
  commitAs(s.work, { 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# x\n' }, 'spec', {
    sign: owner.file,
    email: 'owner@example.com',
  });
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(
    r.stderr,
    'owners.signers names .patchwarden/allowed_signers, which is not in the commit the config comes from',
  );
});

test.run();
