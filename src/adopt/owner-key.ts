// An owner's signing key for `init`: read from a file a person names, written
// to the allowed-signers file, never taken on init's own say. An agent may be
// the one running init, so a key is trusted only when given by --owner-key or
// confirmed on a terminal.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { UsageError } from '../common/errors.js';
import { configValue, identity, type Repo } from '../git/repo.js';

/** Where a new config keeps its owners' keys (the guard zone holds .patchwarden/**). */
export const SIGNERS_FILE = '.patchwarden/allowed_signers';

const KEY_TYPES =
  /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\s+([A-Za-z0-9+/]+={0,2})(?:\s|$)/;

export interface OwnerKey {
  /** `type base64`, without the comment. */
  key: string;
  fingerprint: string;
  /** A security key (touch required), which proves a person was there, not only the machine. */
  hardware: boolean;
}

/** The public key in `file` (a private key's path leads to its .pub beside it); a usage error says what is wrong. */
export function readOwnerKey(file: string): OwnerKey {
  const full = file.startsWith('~/') ? path.join(os.homedir(), file.slice(2)) : file;
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
    if (/PRIVATE KEY/.test(text) && existsSync(`${full}.pub`)) text = readFileSync(`${full}.pub`, 'utf8');
  } catch (err) {
    throw new UsageError(`--owner-key ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const m = KEY_TYPES.exec(text.trim());
  if (!m)
    throw new UsageError(
      `--owner-key ${file} is not an SSH public key (ssh-ed25519 AAAA…); give the .pub file of the key you sign commits with`,
    );
  const blob = Buffer.from(m[2], 'base64');
  return {
    key: `${m[1]} ${m[2]}`,
    fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
    hardware: m[1].startsWith('sk-'),
  };
}

/** The committer's SSH signing key, when git is set to sign with one: a candidate to show, never to trust. */
export async function signingKeyCandidate(repo: Repo): Promise<string | null> {
  const key = await configValue(repo, 'user.signingkey');
  return key && (await configValue(repo, 'gpg.format')) === 'ssh' ? key : null;
}

/** The address the owner commits as (git's committer identity, user.email or GIT_COMMITTER_EMAIL). */
export async function ownerEmail(repo: Repo): Promise<string> {
  const committer = await identity(repo, 'committer');
  const email = committer ? /<([^>]*)>/.exec(committer)?.[1] : undefined;
  if (!email)
    throw new UsageError(
      '--owner-key needs the email you commit as: git config user.email you@example.com, then run init again',
    );
  return email;
}

/** Adds `email`'s key to the signers file; says what it did, null when the key is there already. */
export function addSigner(root: string, signers: string, email: string, owner: OwnerKey): string | null {
  const file = path.join(root, signers);
  const line = `${email} namespaces="git" ${owner.key}`;
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (before.split('\n').some((l) => l.includes(owner.key))) return null;
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, `${before && !before.endsWith('\n') ? '\n' : ''}${line}\n`);
  return `${signers}: ${email} added as an owner, key ${owner.fingerprint}${owner.hardware ? ' (a security key: each signature needs a touch)' : ' (a plain key proves the machine, not the person: a security key, sk-ssh-ed25519, or ssh-add -c does; docs/server.md#owners)'}`;
}

/** Sets owners.signers in an existing config that has none, comments kept; null when it already names one. */
export function setSignersKey(text: string, signers: string): string | null {
  const doc = parseDocument(text);
  const owners = doc.get('owners');
  if (isMap(owners) && owners.get('signers')) return null;
  doc.setIn(['owners', 'signers'], signers);
  return doc.toString();
}
