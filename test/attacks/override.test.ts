// The audited break-glass: an owner-signed commit with a
// `Patchwarden-Override: <reason>` trailer passes the mixing and revert rules
// for its own changes, at pre-push, pre-receive and the gate, and each lists
// it. The trailer proves nothing by itself: unsigned, signed by an agent's
// own key, replayed from another history or older than owners.max_age, the
// override is refused, through real signed commits and real pushes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, installPrePush } from '../helpers/repo.js';
import { FIXED_JS, jsProperty, NODE_TEST, registry } from '../properties/projects.js';
import { commitAs, guardedServer, Keys, type Server } from '../prereceive/server.js';

const keys = new Keys();
const owner = keys.make('owner');
const agent = keys.make('agent');
const OWNER = 'owner@example.com';
const AGENT = 'coder[bot]@agents.example.com';
const CONFIG = `version: 1\nowners:\n  signers: .patchwarden/allowed_signers\n  agents: ["*[bot]@*"]\n`;
const SPEC = 'version: 1\ninvariants: []\n';
/** Production code and the registry in one commit: what the mixing rule refuses. */
const MIXED = { 'src/app.ts': 'export const a = 2; // hotfix\n', 'spec/invariants.yaml': `${SPEC}# hotfix\n` };
const override = (reason: string) => `hotfix\n\nPatchwarden-Override: ${reason}\n`;

/** A guarded server with an owner in its signers file, and a clone with the pre-push hook. */
function site(config = CONFIG, files: Record<string, string> = {}): Server {
  const s = guardedServer(config, { '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`, ...files });
  installPrePush(s.work);
  s.work.git(['fetch', '-q', 'origin']);
  return s;
}

const said = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

test.after.each(cleanup);
test.after(() => keys.rm());

test('an owner-signed override commit passes pre-push, pre-receive and the gate, and each lists it', () => {
  // No registry to run: the gate's properties layers are skipped, so its verdict is the commit rules'.
  const s = site(`${CONFIG}properties:\n  invariants: spec/none.yaml\n`);
  const o = commitAs(s.work, MIXED, override('production is down, the spec fix follows'), {
    sign: owner.file,
    email: OWNER,
  });
  // The agent's commit on top is judged as if the override were not there: production code alone.
  s.work.commit({ 'src/app.ts': 'export const a = 3; // hotfix\n' }, 'follow-up');
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  assert.is(gate.code, 0, JSON.stringify(gate.out));
  assert.equal(gate.out.overrides, [{ commit: o, reason: 'production is down, the spec fix follows' }]);
  assert.match(
    s.work.pw(['gate', '--base', 'origin/main']).stdout,
    new RegExp(`override: commit ${o.slice(0, 12)} passes the mixing and revert rules for its own changes`),
  );
  const r = s.push('main');
  assert.is(r.code, 0, said(r));
  assert.match(
    r.stderr,
    new RegExp(`patchwarden: refs/heads/main: override: commit ${o.slice(0, 12)}`),
    'pre-push lists it',
  );
  assert.match(
    r.stderr,
    new RegExp(
      `remote: patchwarden: refs/heads/main: override: commit ${o.slice(0, 12)} passes the mixing and revert rules for its own changes \\(Patchwarden-Override: production is down`,
    ),
    'pre-receive lists it',
  );
  assert.is(s.ref('main'), s.work.head());
});

test('pre-receive JSON lists the override of each ref', () => {
  const s = site();
  const before = s.ref('main')!;
  const o = commitAs(s.work, MIXED, override('hotfix'), { sign: owner.file, email: OWNER });
  // The server's objects without the ref moving: what pre-receive sees inside a push.
  s.bare.git(['fetch', '-q', s.work.dir, o]);
  const r = s.bare.json(['pre-receive'], { input: `${before} ${o} refs/heads/main\n` });
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.equal(r.out.refs[0].overrides, [{ commit: o, reason: 'hotfix' }]);
});

/** Pushes with the local hook skipped, so the server's verdict shows; then the same range through pre-push and the gate. */
function refusedEverywhere(s: Server, why: RegExp): void {
  const server = s.work.git(['push', '--no-verify', 'origin', 'main'], { allowFail: true });
  assert.is.not(server.code, 0);
  assert.match(server.stderr, why, server.stderr);
  assert.match(server.stderr, /\[mix\]/);
  const local = s.push('main');
  assert.is.not(local.code, 0);
  assert.match(said(local), why);
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  assert.is(gate.code, 1, JSON.stringify(gate.out));
  assert.equal(gate.out.overrides, []);
  const mixing = gate.out.layers.find((l: { layer: string }) => l.layer === 'mixing');
  assert.ok(
    mixing.violations.some((v: { rule: string; message: string }) => v.rule === 'override' && why.test(v.message)),
    JSON.stringify(mixing),
  );
}

test('attack: an unsigned override is refused at every enforcement point', () => {
  const s = site();
  s.work.commit(MIXED, override('trust me'));
  refusedEverywhere(
    s,
    /carries Patchwarden-Override \("trust me"\), but it is not signed by a key in \.patchwarden\/allowed_signers/,
  );
});

test("attack: an override signed with the agent's own key, under the agent's name, is refused", () => {
  const s = site();
  commitAs(s.work, MIXED, override('agent knows best'), { sign: agent.file, email: AGENT });
  refusedEverywhere(s, /carries Patchwarden-Override \("agent knows best"\), but it is not signed by a key in/);
});

test("attack: an owner's override replayed from another history is refused (its parent is not the merge base)", () => {
  const s = site();
  const old = s.work.head();
  s.work.commit({ 'README.md': 'moved on\n' }, 'main moves on');
  assert.is(s.push('main').code, 0);
  // Long ago the owner signed an override on an older main, on a branch of its own.
  s.work.git(['checkout', '-q', '-b', 'other', old]);
  const o = commitAs(s.work, MIXED, override('old emergency'), { sign: owner.file, email: OWNER });
  s.work.git(['checkout', '-q', 'main']);
  s.work.git(['merge', '-q', '--no-edit', 'other'], { env: { GIT_EDITOR: 'true' } });
  s.work.git(['fetch', '-q', 'origin']);
  refusedEverywhere(s, new RegExp(`its parent ${old.slice(0, 12)} is neither the range's merge base`));
  assert.ok(o);
});

test("attack: an owner's override older than owners.max_age is refused", () => {
  const s = site(`${CONFIG}  max_age: 7d\n`);
  const when = new Date(Date.now() - 30 * 86_400_000).toISOString();
  s.work.write('src/app.ts', MIXED['src/app.ts']).write('spec/invariants.yaml', MIXED['spec/invariants.yaml']);
  s.work.git(['add', '-A']);
  s.work.git(
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
      override('stale'),
    ],
    { env: { GIT_AUTHOR_EMAIL: OWNER, GIT_COMMITTER_EMAIL: OWNER, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when } },
  );
  refusedEverywhere(s, /it was committed 30d ago, more than owners\.max_age \(7d\)/);
});

test("the revert rule: the override's own production change owes no property, an agent commit after it still does", () => {
  const ID = 'bill.total_non_negative';
  const s = site(
    `${CONFIG}properties:\n  command: ${JSON.stringify(NODE_TEST)}\n  invariants: spec/invariants.yaml\n`,
    {
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': FIXED_JS,
    },
  );
  const o = commitAs(
    s.work,
    { 'src/bill.mjs': `${FIXED_JS}export const currency = "EUR";\n` },
    override('a constant the release needs now'),
    { sign: owner.file, email: OWNER },
  );
  const alone = s.work.json(['gate', '--base', 'origin/main']);
  assert.is(alone.code, 0, JSON.stringify(alone.out));
  assert.equal(
    alone.out.overrides.map((x: { commit: string }) => x.commit),
    [o],
  );
  const r = s.push('main');
  assert.is(r.code, 0, said(r));
  // The same change without the trailer is refused by the revert check: the property does not describe it.
  s.work.commit({ 'src/bill.mjs': `${FIXED_JS}export const currency = "USD";\n` }, 'agent change');
  const agentPush = s.push('main');
  assert.is.not(agentPush.code, 0);
  assert.match(said(agentPush), /refused \[revert\]/);
});

test.run();
