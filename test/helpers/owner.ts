// An owner's SSH signing key, made once per test process by ssh-keygen, for
// `init --owner-key`: a new config requires owners, and a test about
// something else sets one up as a team would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sh } from './repo.js';

let made: string | null = null;

/** The public key's path (its private key beside it, without .pub). */
export function ownerKey(): string {
  if (made) return made;
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-owner-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'owner_ed25519');
  const r = sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'owner', '-f', file]);
  if (r.code !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  made = `${file}.pub`;
  return made;
}
