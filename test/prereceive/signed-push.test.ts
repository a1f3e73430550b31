// Signed pushes through the server hook with every ssh-keygen call logged
// (a shim first on PATH, which git and the hook both find): owners'
// signatures are verified in-process, so a push of many owner-signed oracle
// commits starts at most one ssh-keygen; a certificate, which only git
// verifies, still gets git's verdict, never a pass on trust.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh } from '../helpers/repo.js';
import { payload, skKey, skSign, store } from '../helpers/sk-key.js';
import { commitAs, guardedServer, Keys, type Server } from './server.js';

const keys = new Keys();
const owner = keys.make('owner');
const stranger = keys.make('stranger');
test.after.each(cleanup);
test.after(() => keys.rm());

const CONFIG = 'version: 1\nowners:\n  signers: .patchwarden/allowed_signers\n';
const realKeygen = sh('sh', ['-c', 'command -v ssh-keygen']).stdout.trim();

/** Pushes with a logging ssh-keygen first on PATH; the push's result and how many ssh-keygen processes it started. */
function countedPush(s: Server, ...args: string[]): { code: number; stderr: string; keygens: number } {
  const log = path.join(keys.dir, 'keygen.log');
  writeFileSync(log, '');
  const shim = path.join(keys.dir, 'ssh-keygen');
  writeFileSync(shim, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realKeygen}' "$@"\n`, { mode: 0o755 });
  const r = s.work.git(['push', 'origin', ...args], {
    allowFail: true,
    env: { PATH: `${keys.dir}:${s.work.env.PATH}` },
  });
  const keygens = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  return { code: r.code, stderr: r.stderr, keygens };
}

const signedSpecs = (s: Server, n: number, key = owner.file) => {
  for (let i = 0; i < n; i++)
    commitAs(s.work, { [`spec/s${i % 5}.yaml`]: `version: 1\n# ${i}\n` }, `spec ${i}`, {
      sign: key,
      email: 'owner@example.com',
    });
};

test('a push of 40 owner-signed oracle commits starts at most one ssh-keygen, and is judged', () => {
  const s = guardedServer(CONFIG, { '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n` });
  signedSpecs(s, 40);
  const ok = countedPush(s, 'main');
  assert.is(ok.code, 0, ok.stderr);
  assert.ok(ok.keygens <= 1, `${ok.keygens} ssh-keygen processes for one push`);
  assert.is(s.ref('main'), s.work.head());
  // One stranger's commit among 20 owner-signed ones: refused by name, still without ssh-keygen per signature.
  signedSpecs(s, 10);
  const bad = commitAs(s.work, { 'spec/x.yaml': 'version: 1\n' }, 'spec, stranger', {
    sign: stranger.file,
    email: 'owner@example.com',
  });
  signedSpecs(s, 10);
  const refused = countedPush(s, 'main');
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, `commit ${bad.slice(0, 12)} "spec, stranger"`);
  assert.match(refused.stderr, 'is signed, but not by a key in the allowed-signers file');
  assert.ok(refused.keygens <= 1, `${refused.keygens} ssh-keygen processes for one push`);
});

test('a certificate signature is verified by git: one from the listed CA lands, one from another CA is refused', () => {
  const ca = keys.make('ca');
  const otherCa = keys.make('other-ca');
  const certified = (name: string, by: string) => {
    const k = keys.make(name);
    const r = sh('ssh-keygen', ['-q', '-s', by, '-I', name, '-n', 'owner@example.com', `${k.file}.pub`]);
    if (r.code !== 0) throw new Error(r.stderr);
    return `${k.file}-cert.pub`;
  };
  const s = guardedServer(CONFIG, {
    '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n*@example.com cert-authority ${ca.pub}\n`,
  });
  signedSpecs(s, 2, certified('laptop', ca.file));
  const ok = countedPush(s, 'main');
  assert.is(ok.code, 0, ok.stderr);
  assert.ok(ok.keygens > 0, 'git ran ssh-keygen for the certificates');
  const forged = commitAs(s.work, { 'spec/y.yaml': 'version: 1\n' }, 'spec, other CA', {
    sign: certified('elsewhere', otherCa.file),
    email: 'owner@example.com',
  });
  const refused = countedPush(s, 'main');
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, `commit ${forged.slice(0, 12)} "spec, other CA"`);
  assert.match(refused.stderr, '[owners-signature]');
});

test('a security key signature without a touch is accepted, as ssh-keygen accepts it, and the push says so', () => {
  const k = skKey('ed25519');
  const s = guardedServer(CONFIG, {
    '.patchwarden/allowed_signers': `owner@example.com ${k.type} ${k.blob.toString('base64')}\n`,
  });
  const signed = (flags: number, i: number) => {
    s.work.write('spec/sk.yaml', `version: 1\n# ${i}\n`);
    s.work.git(['add', '-A']);
    const text = payload(s.work, Math.floor(Date.now() / 1000), s.work.git(['write-tree']).stdout.trim());
    const id = store(s.work, text, skSign(k, text, flags));
    s.work.git(['reset', '-q', '--hard', id]);
    return id;
  };
  const touched = signed(0x01, 1);
  const untouched = signed(0x00, 2);
  const r = countedPush(s, 'main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), untouched);
  assert.match(r.stderr, `owners: commit ${untouched.slice(0, 12)} is signed by a security key without a touch`);
  assert.not.match(r.stderr, `commit ${touched.slice(0, 12)} is signed by a security key without a touch`);
  assert.ok(r.keygens <= 1, `${r.keygens} ssh-keygen processes for one push`);
});

test.run();
