// Each commit's signature checked against the allowed-signers file without a
// process per signature: the raw commit objects come from one `git cat-file
// --batch` (real objects: no replace refs, no grafts), and SSH signatures are
// verified in-process (sshsig.ts). What cannot be verified here (a
// certificate, a key type node:crypto does not check here) goes to one `git
// log` for all such commits, as git verifies them; none is taken on trust.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readBlobs } from '../git/objects.js';
import { commitRecords } from '../git/commits.js';
import type { Repo } from '../git/repo.js';
import { parseAllowedSigners, type SignerLine, signersOf } from './allowed-signers.js';
import { checkSshSig, parseSshSig } from './sshsig.js';

export interface SignatureStatus {
  /** git's %G? letters: G good from an allowed key, B bad, U good but from no allowed key, N none, E cannot check. */
  signature: string;
  /** The principals of the allowed-signers line that accepted it ('' when none). */
  signer: string;
  /** For a security key's good signature: whether it carries the user-presence (touch) flag. */
  presence?: boolean;
  /** Why it is not good, where that says more than the letter. */
  why?: string;
}

const NAMESPACE = 'git';

/** The signature and the signed payload of a raw commit, as git splits them (gpg-interface.c). */
function splitSigned(raw: Buffer, header: string): { payload: Buffer; signature: string | null } {
  const payload: Buffer[] = [];
  const signature: string[] = [];
  let inSig = false;
  let other = false;
  let at = 0;
  while (at < raw.length) {
    const nl = raw.indexOf(0x0a, at);
    let next = nl < 0 ? raw.length : nl + 1;
    const line = raw.subarray(at, next);
    const text = line.toString('latin1');
    let sig: string | null = null;
    if (inSig && text.startsWith(' ')) sig = text.slice(1);
    else if (text.startsWith(`${header} `)) {
      sig = text.slice(header.length + 1);
      other = false;
    } else if (text.startsWith('gpgsig')) other = true;
    else if (other && !text.startsWith(' ')) other = false;
    if (sig !== null) {
      signature.push(sig);
      inSig = true;
    } else {
      if (text.startsWith('\n')) next = raw.length;
      if (!other) payload.push(raw.subarray(at, next));
      inSig = false;
    }
    at = next;
  }
  return {
    payload: Buffer.concat(payload),
    signature: signature.length ? Buffer.from(signature.join(''), 'latin1').toString('utf8') : null,
  };
}

/** The committer timestamp of a commit's headers (what git verifies a signature's key validity at). */
function committedAt(payload: Buffer): number {
  const head = payload.subarray(0, Math.max(0, payload.indexOf('\n\n'))).toString('utf8');
  const m = /^committer .*> (\d+) [+-]\d{4}$/m.exec(head);
  return m ? Number(m[1]) : 0;
}

/** Verdicts already reached in this process, by signers file and commit: a push asks about a commit more than once. */
const known = new Map<string, SignatureStatus>();

/** One commit's status, or null where git must decide (fallback). */
function statusOf(raw: Buffer, header: string, signers: SignerLine[]): SignatureStatus | null {
  const { payload, signature } = splitSigned(raw, header);
  if (signature === null) return { signature: 'N', signer: '' };
  if (!signature.startsWith('-----BEGIN SSH SIGNATURE-----'))
    return { signature: 'E', signer: '', why: 'it carries an OpenPGP or X.509 signature; owners sign with SSH keys' };
  let sig: ReturnType<typeof parseSshSig>;
  try {
    sig = parseSshSig(signature);
  } catch (e) {
    return { signature: 'B', signer: '', why: `its SSH signature cannot be read (${(e as Error).message})` };
  }
  const lines = signersOf(signers, sig.key, NAMESPACE, committedAt(payload));
  const check = checkSshSig(sig, payload, NAMESPACE);
  if (!lines.length) {
    if (sig.keyType.includes('-cert-') && signers.some((l) => l.certAuthority)) return null;
    if (check.result === 'bad') return { signature: 'B', signer: '', why: check.why };
    return { signature: 'U', signer: '' };
  }
  if (check.result === 'unsupported') return null;
  if (check.result === 'bad') return { signature: 'B', signer: '', why: check.why };
  return { signature: 'G', signer: lines[0].principals, presence: check.presence };
}

/** Each commit's signature status against `signers` (the allowed-signers file's bytes). */
export async function verifySignatures(
  repo: Repo,
  commits: string[],
  signers: Buffer,
): Promise<Map<string, SignatureStatus>> {
  const file = createHash('sha256').update(signers).digest('hex');
  const result = new Map<string, SignatureStatus>();
  const todo = commits.filter((c) => {
    const k = known.get(`${file}:${c}`);
    if (k) result.set(c, k);
    return !k;
  });
  const lines = parseAllowedSigners(signers.toString('utf8'));
  const raw = await readBlobs(repo, todo, 'commit');
  const fallback: string[] = [];
  for (const c of todo) {
    const status = statusOf(raw.get(c) ?? Buffer.alloc(0), c.length === 64 ? 'gpgsig-sha256' : 'gpgsig', lines);
    if (status) result.set(c, status);
    else fallback.push(c);
  }
  for (const [c, s] of await gitVerifies(repo, fallback, signers)) result.set(c, s);
  for (const c of todo) known.set(`${file}:${c}`, result.get(c)!);
  return result;
}

/** git's own verdicts (%G?, %GS) for the commits this module cannot verify, from one `git log`. */
async function gitVerifies(repo: Repo, commits: string[], signers: Buffer): Promise<Map<string, SignatureStatus>> {
  const result = new Map<string, SignatureStatus>();
  if (!commits.length) return result;
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-signers-'));
  try {
    const file = path.join(dir, 'allowed_signers');
    writeFileSync(file, signers);
    for (const record of await commitRecords(repo, commits, '%H%x1f%G?%x1f%GS', { allowedSigners: file })) {
      const [id, signature, signer] = record.split('\x1f');
      result.set(id, { signature: signature || 'N', signer });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
