// Who made a set of commits, from one `git log` process, and whether each
// carries a good signature from the allowed-signers file given for this call
// (commit-signatures.ts: checked in-process, no process per signature).
import { commitRecords } from '../git/commits.js';
import type { Repo } from '../git/repo.js';
import { verifySignatures } from './commit-signatures.js';
import { addressOf } from './identity.js';

export interface Authorship {
  /** git's %G?: G good, B bad, U good but from no allowed key, N none, … */
  signature: string;
  /** The principals of the allowed-signers line that accepted the signature ('' when none). */
  signer: string;
  /** For a security key's good signature: whether the key saw a touch (its user-presence flag). */
  presence?: boolean;
  /** Why the signature is not good, where that says more than the letter. */
  why?: string;
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
  const format = '%H%x1f%ae%x1f%ce%x1f%an%x1f%cn%x1f%P%x1f%ct%x1f';
  const trailer = (key: string) => `%(trailers:key=${key},valueonly,unfold,separator=%x1e)`;
  const [records, verified] = await Promise.all([
    commitRecords(
      repo,
      commits,
      `${format}${trailer('Co-authored-by')}%x1f${CREDIT_TRAILERS.map(trailer).join('%x1e')}`,
    ),
    signers ? verifySignatures(repo, commits, signers) : null,
  ]);
  for (const record of records) {
    const [id, author, committer, authorName, committerName, parents, date, trailers, credits] = record.split('\x1f');
    const status = verified?.get(id);
    result.set(id, {
      signature: status?.signature ?? 'N',
      signer: status?.signer ?? '',
      presence: status?.presence,
      why: status?.why,
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
  return result;
}
