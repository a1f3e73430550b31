// The in-process SSH signature check (src/owners/commit-signatures.ts)
// against git's own (`git verify-commit`, `%G?`, which start ssh-keygen), on
// commits signed by real keys of every type ssh-keygen makes here, and on
// security-key signatures built by hand from PROTOCOL.u2f (no hardware here
// to make them), which real ssh-keygen checks too.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openRepo } from '../../src/git/repo.js';
import { verifySignatures } from '../../src/owners/commit-signatures.js';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { Keys } from '../prereceive/server.js';

const keys = new Keys();
test.after.each(cleanup);
test.after(() => keys.rm());

const TYPES: [string, string[]][] = [
  ['ed25519', ['-t', 'ed25519']],
  ['ecdsa-256', ['-t', 'ecdsa', '-b', '256']],
  ['ecdsa-384', ['-t', 'ecdsa', '-b', '384']],
  ['ecdsa-521', ['-t', 'ecdsa', '-b', '521']],
  ['rsa', ['-t', 'rsa', '-b', '2048']],
];

function keyOf(name: string, args: string[]): { file: string; pub: string } {
  const file = path.join(keys.dir, name);
  const r = sh('ssh-keygen', ['-q', ...args, '-N', '', '-C', name, '-f', file]);
  if (r.code !== 0) throw new Error(r.stderr);
  return { file, pub: readFileSync(`${file}.pub`, 'utf8').trim() };
}

/** A commit object whose gpgsig header holds `armored` (what `git commit -S` writes), stored; `tamper` changes the message after signing. */
function store(repo: TempRepo, payload: string, armored: string, tamper = false): string {
  const [head, ...body] = payload.split('\n\n');
  const sig = armored.trimEnd().split('\n').join('\n ');
  const object = `${head}\ngpgsig ${sig}\n\n${body.join('\n\n')}`;
  return repo
    .git(['hash-object', '-t', 'commit', '-w', '--stdin'], {
      input: tamper ? object.replace('change', 'chanGe') : object,
    })
    .stdout.trim();
}

/** The payload of a new unsigned commit on HEAD, with a committer date of `when` (seconds). */
function payload(repo: TempRepo, when = 1700000000): string {
  const tree = repo.git(['rev-parse', 'HEAD^{tree}']).stdout.trim();
  const id = repo
    .git(['commit-tree', tree, '-p', 'HEAD', '-m', 'a change'], {
      env: { GIT_COMMITTER_DATE: `${when} +0000`, GIT_AUTHOR_DATE: `${when} +0000` },
    })
    .stdout.trim();
  return repo.git(['cat-file', 'commit', id]).stdout;
}

function sshSign(file: string, text: string, namespace = 'git', hashalg?: string): string {
  const r = sh(
    'ssh-keygen',
    ['-Y', 'sign', '-n', namespace, '-f', file, ...(hashalg ? ['-O', `hashalg=${hashalg}`] : [])],
    {
      input: text,
    },
  );
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** git's verdict on each commit: the %G? letter, and whether `git verify-commit` passes. */
function gitSays(repo: TempRepo, signers: string, commits: string[]): Map<string, { letter: string; ok: boolean }> {
  const file = path.join(repo.dir, '.git', 'signers');
  writeFileSync(file, signers);
  const cfg = ['-c', `gpg.ssh.allowedSignersFile=${file}`];
  return new Map(
    commits.map((c) => [
      c,
      {
        letter: repo.git([...cfg, 'log', '-1', '--format=%G?', c]).stdout.trim(),
        ok: repo.git([...cfg, 'verify-commit', c], { allowFail: true }).code === 0,
      },
    ]),
  );
}

async function weSay(repo: TempRepo, signers: string, commits: string[]) {
  return verifySignatures(await openRepo(repo.dir), commits, Buffer.from(signers));
}

function started(): TempRepo {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  return repo;
}

for (const [name, args] of TYPES) {
  test(`${name}: good, tampered, wrong namespace, unlisted key, expired and other-namespace lines agree with git`, async () => {
    const repo = started();
    const key = keyOf(name, args);
    const other = keyOf(`${name}-other`, args);
    const text = payload(repo);
    const good = store(repo, text, sshSign(key.file, text));
    const sha256 = store(repo, text, sshSign(key.file, text, 'git', 'sha256'));
    const tampered = store(repo, text, sshSign(key.file, text), true);
    const fileNs = store(repo, text, sshSign(key.file, text, 'file'));
    const stranger = store(repo, text, sshSign(other.file, text));
    const commits = [good, sha256, tampered, fileNs, stranger];
    const cases: [string, string, Record<string, string>][] = [
      [
        'listed',
        `owner@example.com ${key.pub}\n`,
        { [good]: 'G', [sha256]: 'G', [tampered]: 'B', [fileNs]: 'B', [stranger]: 'U' },
      ],
      ['namespaces="git"', `owner@example.com namespaces="git" ${key.pub}\n`, { [good]: 'G' }],
      ['namespaces="file"', `owner@example.com namespaces="file" ${key.pub}\n`, { [good]: 'U' }],
      ['expired', `owner@example.com valid-before="20230101Z" ${key.pub}\n`, { [good]: 'U' }],
      ['not yet valid', `owner@example.com valid-after="20240101" ${key.pub}\n`, { [good]: 'U' }],
      [
        'within validity',
        `owner@example.com valid-after="20230101Z",valid-before="20240101Z" ${key.pub}\n`,
        { [good]: 'G' },
      ],
    ];
    for (const [what, signers, expected] of cases) {
      const ours = await weSay(repo, signers, commits);
      const git = gitSays(repo, signers, commits);
      for (const c of Object.keys(expected)) {
        assert.is(git.get(c)!.ok, expected[c] === 'G', `${what} ${c}: git verify-commit`);
        assert.is(
          ours.get(c)!.signature === 'G',
          git.get(c)!.ok,
          `${what} ${c}: ours ${ours.get(c)!.signature}, git ${git.get(c)!.letter}`,
        );
        assert.is(ours.get(c)!.signature, expected[c], `${what} ${c}: ${ours.get(c)!.why ?? ''}`);
      }
    }
  });
}

test('an unsigned commit is N, an OpenPGP-looking signature is E, garbage is B; none is good', async () => {
  const repo = started();
  const text = payload(repo);
  const unsigned = repo.git(['hash-object', '-t', 'commit', '-w', '--stdin'], { input: text }).stdout.trim();
  const pgp = store(repo, text, '-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n');
  const junk = store(repo, text, '-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n');
  const key = keyOf('plain', ['-t', 'ed25519']);
  const ours = await weSay(repo, `owner@example.com ${key.pub}\n`, [unsigned, pgp, junk]);
  assert.equal(
    [unsigned, pgp, junk].map((c) => ours.get(c)!.signature),
    ['N', 'E', 'B'],
  );
});

// Security keys: sign as an authenticator would (PROTOCOL.u2f), checked by real ssh-keygen as well.
const wire = (...parts: (Buffer | string | number)[]) =>
  Buffer.concat(
    parts.map((p) => {
      if (typeof p === 'number') {
        const b = Buffer.alloc(4);
        b.writeUInt32BE(p);
        return b;
      }
      const data = Buffer.from(p);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      return Buffer.concat([len, data]);
    }),
  );
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest();
const mpint = (b: Buffer) => (b[0] & 0x80 ? Buffer.concat([Buffer.alloc(1), b]) : b);

interface SkKey {
  type: string;
  blob: Buffer;
  sign(data: Buffer): Buffer;
}

function skKey(kind: 'ed25519' | 'ecdsa'): SkKey {
  const app = 'ssh:';
  if (kind === 'ed25519') {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const pk = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    const type = 'sk-ssh-ed25519@openssh.com';
    return { type, blob: wire(type, pk, app), sign: (d) => sign(null, d, privateKey) };
  }
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const q = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const type = 'sk-ecdsa-sha2-nistp256@openssh.com';
  const ecdsa = (d: Buffer, k: KeyObject) => {
    const rs = sign('sha256', d, { key: k, dsaEncoding: 'ieee-p1363' });
    return wire(mpint(rs.subarray(0, 32)), mpint(rs.subarray(32)));
  };
  return { type, blob: wire(type, 'nistp256', q, app), sign: (d) => ecdsa(d, privateKey) };
}

/** An armored SSHSIG of `message` by a security key, with the authenticator's flags. */
function skSign(k: SkKey, message: string, flags: number, namespace = 'git'): string {
  const signed = Buffer.concat([
    Buffer.from('SSHSIG'),
    wire(namespace, '', 'sha512', createHash('sha512').update(message).digest()),
  ]);
  const counter = Buffer.alloc(5);
  counter[0] = flags;
  counter.writeUInt32BE(7, 1);
  const raw = k.sign(Buffer.concat([sha('ssh:'), counter, sha(signed)]));
  const sig = Buffer.concat([wire(k.type, raw), counter]);
  const blob = Buffer.concat([
    Buffer.from('SSHSIG'),
    Buffer.from([0, 0, 0, 1]),
    wire(k.blob, namespace, '', 'sha512', sig),
  ]);
  const b64 = blob.toString('base64').replace(/.{1,70}/g, '$&\n');
  return `-----BEGIN SSH SIGNATURE-----\n${b64}-----END SSH SIGNATURE-----\n`;
}

for (const kind of ['ed25519', 'ecdsa'] as const) {
  test(`security key (${kind}, built by hand): touched, untouched, tampered and wrong namespace agree with git`, async () => {
    const repo = started();
    const k = skKey(kind);
    const signers = `owner@example.com ${k.type} ${k.blob.toString('base64')}\n`;
    const text = payload(repo);
    const touched = store(repo, text, skSign(k, text, 0x01));
    const untouched = store(repo, text, skSign(k, text, 0x00));
    const tampered = store(repo, text, skSign(k, text, 0x01), true);
    const fileNs = store(repo, text, skSign(k, text, 0x01, 'file'));
    const commits = [touched, untouched, tampered, fileNs];
    const ours = await weSay(repo, signers, commits);
    const git = gitSays(repo, signers, commits);
    assert.equal(
      commits.map((c) => git.get(c)!.ok),
      [true, true, false, false],
      'git (ssh-keygen) verifies the hand-built signatures',
    );
    assert.equal(
      commits.map((c) => ours.get(c)!.signature),
      ['G', 'G', 'B', 'B'],
    );
    assert.is(ours.get(touched)!.presence, true);
    assert.is(ours.get(untouched)!.presence, false);
  });
}

test.run();
