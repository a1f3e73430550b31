// SSH signatures (OpenSSH's PROTOCOL.sshsig) checked in-process with
// node:crypto, so a push of a thousand owner-signed commits starts no
// `ssh-keygen` at all. What it cannot check (certificates, DSA, webauthn
// signatures) it says so, and the caller hands that signature to git.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** A parsed signature: who signed (the key blob), for what, and the signature itself. */
export interface SshSig {
  /** The signer's public key, as an SSH wire blob. */
  key: Buffer;
  keyType: string;
  namespace: string;
  hashAlg: string;
  /** The signature blob (algorithm name, signature, and for security keys flags and counter). */
  signature: Buffer;
}

/** What a check found: `good`, or why not; `presence` for security keys (the user-presence flag). */
export type SigCheck =
  | { result: 'good'; presence?: boolean }
  | { result: 'bad'; why: string }
  | { result: 'unsupported'; why: string };

const ARMOR = /^-----BEGIN SSH SIGNATURE-----\n([A-Za-z0-9+/=\n]*)-----END SSH SIGNATURE-----\n?$/;

/** A reader of SSH wire encoding (RFC 4251 strings and integers); throws on short data. */
class Wire {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  u8(): number {
    this.need(1);
    return this.buf[this.at++];
  }
  u32(): number {
    this.need(4);
    const n = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return n;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
  string(): Buffer {
    return this.bytes(this.u32());
  }
  text(): string {
    return this.string().toString('latin1');
  }
  /** An mpint's magnitude, without its sign byte; negative ones are refused. */
  mpint(): Buffer {
    const b = this.string();
    if (b.length && b[0] & 0x80) throw new Error('negative integer');
    let i = 0;
    while (i < b.length && b[i] === 0) i++;
    return b.subarray(i);
  }
  end(): void {
    if (this.at !== this.buf.length) throw new Error('trailing data');
  }
  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new Error('truncated');
  }
}

const sshString = (b: Buffer | string) => {
  const data = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
};

/** The armored signature git stores in a commit's gpgsig header, parsed; throws with the reason. */
export function parseSshSig(armored: string): SshSig {
  const m = ARMOR.exec(armored.replace(/\r\n/g, '\n'));
  if (!m) throw new Error('not an armored SSH signature');
  const w = new Wire(Buffer.from(m[1].replace(/\n/g, ''), 'base64'));
  if (w.bytes(6).toString('latin1') !== 'SSHSIG') throw new Error('no SSHSIG preamble');
  if (w.u32() !== 1) throw new Error('unknown SSHSIG version');
  const key = w.string();
  const namespace = w.text();
  w.string(); // reserved
  const hashAlg = w.text();
  const signature = w.string();
  w.end();
  return { key, keyType: new Wire(key).text(), namespace, hashAlg, signature };
}

const b64url = (b: Buffer) => b.toString('base64url');
const CURVES: Record<string, { crv: string; size: number; hash: string }> = {
  nistp256: { crv: 'P-256', size: 32, hash: 'sha256' },
  nistp384: { crv: 'P-384', size: 48, hash: 'sha384' },
  nistp521: { crv: 'P-521', size: 66, hash: 'sha512' },
};

interface PublicKey {
  key: KeyObject;
  /** For ECDSA keys, the curve; for security keys, the application string. */
  curve?: (typeof CURVES)[string];
  application?: Buffer;
}

function ecKey(w: Wire, type: string): PublicKey {
  const name = w.text();
  const curve = CURVES[name];
  if (!curve || !type.includes(name)) throw new Error(`curve ${name} does not match ${type}`);
  const q = w.string();
  if (q.length !== 1 + 2 * curve.size || q[0] !== 4) throw new Error('not an uncompressed EC point');
  const jwk = {
    kty: 'EC',
    crv: curve.crv,
    x: b64url(q.subarray(1, 1 + curve.size)),
    y: b64url(q.subarray(1 + curve.size)),
  };
  return { key: createPublicKey({ key: jwk, format: 'jwk' }), curve };
}

const edKey = (pk: Buffer) => {
  if (pk.length !== 32) throw new Error('not an Ed25519 key');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(pk) }, format: 'jwk' });
};

/** The node key of an SSH public key blob; null for a type this module does not verify. */
function publicKey(blob: Buffer): PublicKey | null {
  const w = new Wire(blob);
  const type = w.text();
  let k: PublicKey;
  if (type === 'ssh-ed25519') k = { key: edKey(w.string()) };
  else if (type === 'sk-ssh-ed25519@openssh.com') k = { key: edKey(w.string()), application: w.string() };
  else if (type.startsWith('ecdsa-sha2-')) k = ecKey(w, type);
  else if (type === 'sk-ecdsa-sha2-nistp256@openssh.com') k = { ...ecKey(w, type), application: w.string() };
  else if (type === 'ssh-rsa') {
    const e = w.mpint();
    const n = w.mpint();
    k = { key: createPublicKey({ key: { kty: 'RSA', n: b64url(n), e: b64url(e) }, format: 'jwk' }) };
  } else return null;
  w.end();
  return k;
}

/** ECDSA's (mpint r, mpint s) as the fixed-width r || s node reads. */
function p1363(rs: Buffer, size: number): Buffer {
  const w = new Wire(rs);
  const r = w.mpint();
  const s = w.mpint();
  w.end();
  if (r.length > size || s.length > size) throw new Error('ECDSA integer too long');
  return Buffer.concat([Buffer.alloc(size - r.length), r, Buffer.alloc(size - s.length), s]);
}

/** The bytes the key signed over `data`: security keys sign H(application) || flags || counter || H(data). */
function skSigned(application: Buffer, flags: number, counter: number, data: Buffer): Buffer {
  const fc = Buffer.alloc(5);
  fc[0] = flags;
  fc.writeUInt32BE(counter, 1);
  return Buffer.concat([sha256(application), fc, sha256(data)]);
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

/** Whether `sig` (the signature blob) is `key`'s signature of `data`, as OpenSSH's sshkey_verify decides. */
function verifyBlob(k: PublicKey, keyType: string, sig: Buffer, data: Buffer): SigCheck {
  const w = new Wire(sig);
  const alg = w.text();
  const body = w.string();
  const bad = (why: string): SigCheck => ({ result: 'bad', why });
  if (keyType === 'ssh-rsa') {
    const hash = { 'rsa-sha2-256': 'sha256', 'rsa-sha2-512': 'sha512' }[alg];
    if (!hash) return bad(`RSA signature algorithm ${alg} is not allowed (only rsa-sha2-256 and rsa-sha2-512)`);
    w.end();
    const modulus = (k.key.asymmetricKeyDetails?.modulusLength ?? 0) / 8;
    if (body.length > modulus) return bad('RSA signature longer than its key');
    const padded = Buffer.concat([Buffer.alloc(modulus - body.length), body]);
    return verify(hash, data, k.key, padded) ? { result: 'good' } : bad('the signature does not match');
  }
  if (alg.startsWith('webauthn-')) return { result: 'unsupported', why: `signature type ${alg}` };
  if (alg !== keyType) return bad(`signature algorithm ${alg} does not match the key type ${keyType}`);
  if (k.application) {
    const flags = w.u8();
    const counter = w.u32();
    w.end();
    const signed = skSigned(k.application, flags, counter, data);
    const ok =
      keyType === 'sk-ssh-ed25519@openssh.com'
        ? body.length === 64 && verify(null, signed, k.key, body)
        : verify('sha256', signed, { key: k.key, dsaEncoding: 'ieee-p1363' }, p1363(body, 32));
    return ok ? { result: 'good', presence: (flags & 0x01) !== 0 } : bad('the signature does not match');
  }
  w.end();
  const ok =
    keyType === 'ssh-ed25519'
      ? body.length === 64 && verify(null, data, k.key, body)
      : verify(k.curve!.hash, data, { key: k.key, dsaEncoding: 'ieee-p1363' }, p1363(body, k.curve!.size));
  return ok ? { result: 'good' } : bad('the signature does not match');
}

/**
 * Whether `sig` is a good signature of `message` in `namespace`: the
 * SSHSIG wrapper (preamble, namespace, hash of the message) and the key's
 * own signature over it. Whether the key may sign is the allowed-signers
 * file's question, not this one's.
 */
export function checkSshSig(sig: SshSig, message: Buffer, namespace: string): SigCheck {
  if (sig.namespace !== namespace)
    return { result: 'bad', why: `signed for namespace "${sig.namespace}", not "${namespace}"` };
  if (sig.hashAlg !== 'sha256' && sig.hashAlg !== 'sha512')
    return { result: 'bad', why: `unknown message hash ${sig.hashAlg}` };
  try {
    const k = publicKey(sig.key);
    if (!k) return { result: 'unsupported', why: `key type ${sig.keyType}` };
    const signed = Buffer.concat([
      Buffer.from('SSHSIG'),
      sshString(namespace),
      sshString(''),
      sshString(sig.hashAlg),
      sshString(createHash(sig.hashAlg).update(message).digest()),
    ]);
    return verifyBlob(k, sig.keyType, sig.signature, signed);
  } catch (e) {
    return { result: 'bad', why: `malformed signature or key (${(e as Error).message})` };
  }
}
