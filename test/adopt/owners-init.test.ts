// Ownership from the first commit: `init --owner-key` lists the owner's key
// and a new config turns owners on (required, known agents by identity and by
// trailer); `init --yes` alone makes no one an owner, and then every oracle
// commit is refused with the step that sets an owner up. Real SSH-signed
// commits, a real bare server with the hook, the real gate.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { commitAs, Keys, server, type Server } from '../prereceive/server.js';

const keys = new Keys();
const owner = keys.make('owner');
const OWNER = 'dana@example.com';
const SPEC = 'version: 1\ninvariants: []\n';
const said = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

test.after.each(cleanup);
test.after(() => keys.rm());

/** A project initialised as its owner would (`init` with the given flags), pushed as the server's first commit. */
function adopted(initArgs: string[]): { s: Server; init: string } {
  const s = server();
  s.work.write('src/app.ts', 'export const a = 1;\n').write('spec/invariants.yaml', SPEC);
  const init = s.work.pw(['init', '--yes', ...initArgs], {
    env: { GIT_COMMITTER_EMAIL: OWNER, GIT_AUTHOR_EMAIL: OWNER },
  });
  assert.is(init.code, 0, said(init));
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  s.work.commit({}, 'adopt patchwarden');
  const r = s.push('main');
  assert.is(r.code, 0, said(r));
  s.bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  return { s, init: init.stdout };
}

const config = (work: TempRepo) => parse(readFileSync(path.join(work.dir, '.patchwarden.yml'), 'utf8'));

test('init --owner-key lists the owner and turns ownership on; an agent is refused by identity and by trailer, the owner is not', () => {
  const { s, init } = adopted(['--owner-key', `${owner.file}.pub`]);
  assert.match(init, /\.patchwarden\/allowed_signers: dana@example\.com added as an owner, key SHA256:/);
  const owners = config(s.work).owners;
  assert.is(owners.signers, '.patchwarden/allowed_signers');
  assert.is(owners.required, true);
  assert.is(owners.trailers, 'strict');
  assert.ok(owners.agents.includes('*[bot]@*'));
  const signers = readFileSync(path.join(s.work.dir, '.patchwarden/allowed_signers'), 'utf8');
  assert.is(signers, `${OWNER} namespaces="git" ${owner.pub.split(' ').slice(0, 2).join(' ')}\n`);

  // An agent's ledger-style edit of the spec, under its own identity: refused.
  const before = s.ref('main');
  commitAs(s.work, { 'spec/invariants.yaml': `${SPEC}# agent\n` }, 'acknowledge my rename', {
    email: 'noreply@anthropic.com',
  });
  // The server refuses it on its own (pre-push skipped), and so does pre-push.
  let r = s.push('--no-verify', 'main');
  assert.is(r.code, 1, said(r));
  assert.match(r.stderr, /remote: .*owners-agent/, r.stderr);
  assert.is(s.ref('main'), before);
  r = s.push('main');
  assert.is(r.code, 1, said(r));
  assert.match(said(r), /owners-agent/);
  // The same change signed by the owner, but crediting a coding agent in a trailer: still the agent's.
  s.work.git(['reset', '-q', '--hard', 'origin/main']);
  commitAs(s.work, { 'spec/invariants.yaml': `${SPEC}# assisted\n` }, 'spec\n\nAssisted-by: Claude Code\n', {
    sign: owner.file,
    email: OWNER,
  });
  r = s.push('main');
  assert.is(r.code, 1, said(r));
  assert.match(said(r), /credits the coding agent Claude Code in a trailer \(owners\.trailers: strict\)/);
  assert.match(said(r), /owners\.assisted_by_ok/);
  // The gate says the same of the branch.
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  assert.is(gate.code, 1);
  assert.is(gate.out.layers.find((l: { layer: string }) => l.layer === 'owners').status, 'refused');

  // The owner lists their own assistant, in a signed commit of their own; then the assisted commit passes.
  s.work.git(['reset', '-q', '--hard', 'origin/main']);
  const text = readFileSync(path.join(s.work.dir, '.patchwarden.yml'), 'utf8');
  commitAs(
    s.work,
    { '.patchwarden.yml': text.replace('assisted_by_ok: []', 'assisted_by_ok: ["Claude Code"]') },
    'mine',
    {
      sign: owner.file,
      email: OWNER,
    },
  );
  assert.is(s.push('main').code, 0);
  commitAs(s.work, { 'spec/invariants.yaml': `${SPEC}# assisted\n` }, 'spec\n\nAssisted-by: Claude Code\n', {
    sign: owner.file,
    email: OWNER,
  });
  r = s.push('main');
  assert.is(r.code, 0, said(r));
});

test("an agent's ledger edit (acknowledging its own rename) is refused at commit, by pre-push, by the server and by the gate", () => {
  const { s } = adopted(['--owner-key', `${owner.file}.pub`]);
  const ledger = config(s.work).freeze.ledger as string;
  const edit = `${readFileSync(path.join(s.work.dir, ledger), 'utf8')}# test_total renamed to test_sum: same case (agent)\n`;
  const agent = { GIT_AUTHOR_EMAIL: 'noreply@anthropic.com', GIT_COMMITTER_EMAIL: 'noreply@anthropic.com' };
  const before = s.ref('main');
  // At commit time: the hooks init installed refuse the agent identity.
  s.work.write(ledger, edit);
  s.work.git(['add', '-A']);
  const c = s.work.git(['commit', '-q', '-m', 'acknowledge my rename'], { env: agent, allowFail: true });
  assert.is(c.code, 1, said(c));
  assert.match(said(c), /owners-agent/);
  // Past the hooks (--no-verify): pre-push, the server alone, and the gate each refuse it.
  commitAs(s.work, {}, 'acknowledge my rename', { email: 'noreply@anthropic.com' });
  let r = s.push('main');
  assert.is(r.code, 1, said(r));
  assert.match(said(r), /owners-agent/);
  r = s.push('--no-verify', 'main');
  assert.is(r.code, 1, said(r));
  assert.match(r.stderr, /remote: .*owners-agent/, r.stderr);
  assert.is(s.ref('main'), before);
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  assert.is(gate.code, 1);
  assert.is(gate.out.layers.find((l: { layer: string }) => l.layer === 'owners').status, 'refused');
});

test('init --yes alone makes no one an owner: doctor says so, every oracle commit is refused, and the printed step sets it up', () => {
  const { s, init } = adopted([]);
  assert.match(init, /owners: no owner's key given, so every oracle commit is refused until one is/);
  const owners = config(s.work).owners;
  assert.is(owners.signers, undefined, 'no signer under --yes alone');
  assert.is(owners.required, true);

  let doctor = s.work.json(['doctor']);
  const finding = doctor.out.checks.find((c: { check: string }) => c.check === 'owners');
  assert.is(finding.ok, false);
  assert.match(finding.detail, /owners\.required is set, but owners\.signers names no allowed-signers file/);

  const before = s.ref('main');
  commitAs(s.work, { 'spec/invariants.yaml': `${SPEC}# owner\n` }, 'spec', { sign: owner.file, email: OWNER });
  const r = s.push('--no-verify', 'main');
  assert.is(r.code, 1, said(r));
  assert.match(r.stderr, /remote: .*owners-required/, r.stderr);
  assert.is(s.ref('main'), before);
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  const layer = gate.out.layers.find((l: { layer: string }) => l.layer === 'owners');
  assert.is(layer.status, 'refused');
  const fix = layer.violations[0].fix as string;
  assert.match(fix, /patchwarden init --owner-key ~\/\.ssh\/id_ed25519\.pub/);

  // The owner follows it with their key: the existing config gains owners.signers, comments kept.
  s.work.git(['reset', '-q', '--hard', 'origin/main']);
  const follow = s.work.pw(['init', '--yes', '--owner-key', owner.file], { env: { GIT_COMMITTER_EMAIL: OWNER } });
  assert.is(follow.code, 0, said(follow));
  assert.match(follow.stdout, /\.patchwarden\.yml: owners\.signers set to \.patchwarden\/allowed_signers/);
  const text = readFileSync(path.join(s.work.dir, '.patchwarden.yml'), 'utf8');
  assert.match(text, /# Known coding agents/, 'comments kept');
  assert.is(parse(text).owners.signers, '.patchwarden/allowed_signers');
  doctor = s.work.json(['doctor']);
  assert.is(doctor.out.checks.find((c: { check: string }) => c.check === 'owners')?.ok ?? true, true);
  // Running it twice changes nothing, and says nothing of owners.
  const again = s.work.pw(['init', '--yes', '--owner-key', `${owner.file}.pub`], {
    env: { GIT_COMMITTER_EMAIL: OWNER },
  });
  assert.is(again.code, 0, said(again));
  assert.not.match(again.stdout, /owner/);
  assert.is(readFileSync(path.join(s.work.dir, '.patchwarden/allowed_signers'), 'utf8').split('\n').length, 2);
});

test('init --owner-key refuses what is not a public key, and writes nothing', () => {
  const s = server();
  s.work.write('notakey.pub', 'hello\n');
  const r = s.work.pw(['init', '--yes', '--owner-key', 'notakey.pub']);
  assert.is(r.code, 2);
  assert.match(said(r), /--owner-key notakey\.pub is not an SSH public key/);
  assert.not.ok(s.work.git(['status', '--porcelain']).stdout.includes('.patchwarden.yml'));
});

test('a config without owners keeps judging as before; doctor names the key that turns ownership on', () => {
  const s = server();
  s.work.commit({ '.patchwarden.yml': 'version: 1\n', 'spec/invariants.yaml': SPEC }, 'start');
  const doctor = s.work.json(['doctor']);
  const finding = doctor.out.checks.find((c: { check: string }) => c.check === 'owners');
  assert.is(finding.ok, true);
  assert.is(finding.warn, true);
  assert.match(finding.detail, /owners\.required: true/);
  commitAs(s.work, { 'spec/invariants.yaml': `${SPEC}# anyone\n` }, 'spec\n\nAssisted-by: Claude Code\n');
  const gate = s.work.json(['gate', '--base', 'HEAD~1']);
  assert.is(gate.out.layers.find((l: { layer: string }) => l.layer === 'owners').status, 'skipped');
});

test.run();
