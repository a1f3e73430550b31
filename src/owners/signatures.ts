// Who made a set of commits and whether each carries a good signature, from
// one `git log` process. Signatures are checked by git itself, against an
// allowed-signers file given for this call only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Repo } from '../git/repo.js';
import { splitNul } from '../git/run.js';
import { addressOf } from './identity.js';

export interface Authorship {
  /** git's %G?: G good, B bad, U good but from no allowed key, N none, … */
  signature: string;
  /** The principal git matched in the allowed-signers file ('' when none). */
  signer: string;
  author: string;
  committer: string;
  /** Addresses of Co-authored-by trailers. */
  coAuthors: string[];
  /** Author and committer names, as typed. */
  names: string[];
  /** Values of the trailers that credit a helper: Co-authored-by, Assisted-by, Generated-by. */
  credits: string[];
  /** The commit's parents, and its committer date (seconds; the signature covers it). */
  parents: string[];
  committedAt: number;
}

/** Trailers through which a commit credits who (or what) helped write it. */
export const CREDIT_TRAILERS = ['Co-authored-by', 'Assisted-by', 'Generated-by'] as const;

/** Authorship of each commit; `signers` is the allowed-signers text, or null for no signature check. */
export async function readAuthorship(
  repo: Repo,
  commits: string[],
  signers: Buffer | null,
): Promise<Map<string, Authorship>> {
  const result = new Map<string, Authorship>();
  if (!commits.length) return result;
  const format = `%H%x1f${signers ? '%G?%x1f%GS' : '%x1f'}%x1f%ae%x1f%ce%x1f%an%x1f%cn%x1f%P%x1f%ct%x1f`;
  const trailer = (key: string) => `%(trailers:key=${key},valueonly,unfold,separator=%x1e)`;
  const dir = signers ? mkdtempSync(path.join(tmpdir(), 'patchwarden-signers-')) : null;
  try {
    const config: string[] = [];
    if (dir) {
      const file = path.join(dir, 'allowed_signers');
      writeFileSync(file, signers!);
      config.push('-c', `gpg.ssh.allowedSignersFile=${file}`);
    }
    const out = await repo.run(
      [
        ...config,
        'log',
        '--no-walk=unsorted',
        '--stdin',
        '-z',
        `--format=${format}${trailer('Co-authored-by')}%x1f${CREDIT_TRAILERS.map(trailer).join('%x1e')}`,
      ],
      { input: commits.join('\n') + '\n' },
    );
    for (const record of splitNul(out.stdout)) {
      const [id, signature, signer, author, committer, authorName, committerName, parents, date, trailers, credits] =
        record.split('\x1f');
      result.set(id, {
        signature: signature || 'N',
        signer,
        author,
        committer,
        coAuthors: trailers ? trailers.split('\x1e').map(addressOf).filter(Boolean) : [],
        names: [authorName, committerName].filter(Boolean),
        credits: credits
          ? credits
              .split('\x1e')
              .map((c) => c.trim())
              .filter(Boolean)
          : [],
        parents: parents ? parents.split(' ') : [],
        committedAt: Number(date),
      });
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
