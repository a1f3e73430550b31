// Signed commits built by hand: an object with a gpgsig header written with
// `git hash-object`, and security-key (FIDO) SSH signatures made as an
// authenticator makes them (PROTOCOL.u2f, PROTOCOL.sshsig) with node's
// crypto, since no hardware key is there to make them. Real ssh-keygen and
// git verify them (test/owners/sshsig.test.ts).
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { TempRepo } from './repo.js';

/** A commit object whose gpgsig header holds `armored` (what `git commit -S` writes), stored; `tamper` changes the message after signing. */
export function store(repo: TempRepo, payload: string, armored: string, tamper = false): string {
  const [head, ...body] = payload.split('\n\n');
  const sig = armored.trimEnd().split('\n').join('\n ');
  const object = `${head}\ngpgsig ${sig}\n\n${body.join('\n\n')}`;
  return repo
    .git(['hash-object', '-t', 'commit', '-w', '--stdin'], {
      input: tamper ? object.replace('change', 'chanGe') : object,
    })
    .stdout.trim();
}

/** The payload of a new unsigned commit on HEAD of `tree` (HEAD's own by default), with a committer date of `when` (seconds). */
export function payload(
  repo: TempRepo,
  when = 1700000000,
  tree = repo.git(['rev-parse', 'HEAD^{tree}']).stdout.trim(),
): string {
  const id = repo
    .git(['commit-tree', tree, '-p', 'HEAD', '-m', 'a change'], {
      env: { GIT_COMMITTER_DATE: `${when} +0000`, GIT_AUTHOR_DATE: `${when} +0000` },
    })
    .stdout.trim();
  return repo.git(['cat-file', 'commit', id]).stdout;
}

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

export interface SkKey {
  type: string;
  blob: Buffer;
  sign(data: Buffer): Buffer;
}

export function skKey(kind: 'ed25519' | 'ecdsa'): SkKey {
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
export function skSign(k: SkKey, message: string, flags: number, namespace = 'git'): string {
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
