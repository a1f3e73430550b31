// The owners rule at commit time, for a staged change that touches an oracle:
// the author and committer git is about to record (pre-commit) and the credit
// trailers of the message (commit-msg), judged by the owners rule itself. No
// signature exists yet (git signs after the hooks): pre-push, the server and
// the gate check it.
import { shellQuote } from '../common/text.js';
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { messageTrailers } from '../git/commits.js';
import { gitVars, type Repo } from '../git/repo.js';
import type { Zoned } from '../zones/zoned.js';
import { addressOf } from '../owners/identity.js';
import { judgeOwners } from '../owners/rule.js';
import { CREDIT_TRAILERS, type Authorship } from '../owners/signatures.js';

/** What a commit is about to record, before git writes it: no signature, no parents yet. */
function authorship(part: Partial<Authorship>): Authorship {
  return {
    signature: 'N',
    signer: '',
    author: '',
    committer: '',
    coAuthors: [],
    names: [],
    credits: [],
    parents: [],
    committedAt: 0,
    ...part,
  };
}

/**
 * The author and committer of the commit being made, as git will record them
 * (its environment, then its config), from one `git var -l`: it prints the
 * config first, so the last line of each name is the variable. They are
 * whatever the committer set, a hint like a trailer; the signature holds.
 */
export async function stagedIdentity(repo: Repo): Promise<Authorship> {
  const lines = await gitVars(repo);
  const ident = (name: string) => {
    const line = [...lines].reverse().find((l) => l.startsWith(`${name}=`)) ?? '';
    // `Name <address> seconds zone`
    const m = /^[^=]*=(.*?) ?<([^>]*)>/.exec(line);
    return { name: m?.[1] ?? '', address: m?.[2] ?? '' };
  };
  const [author, committer] = [ident('GIT_AUTHOR_IDENT'), ident('GIT_COMMITTER_IDENT')];
  return authorship({
    author: author.address,
    committer: committer.address,
    names: [author.name, committer.name].filter(Boolean),
  });
}

/**
 * The credit trailers of a message file, read by git's own trailer parser as
 * `git log` reads a commit's (no `---` divider; comment lines ignored).
 */
export async function messageCredits(repo: Repo, file: string): Promise<Authorship> {
  const out = await messageTrailers(repo, file);
  const keys = new Map(CREDIT_TRAILERS.map((k) => [k.toLowerCase(), k]));
  const credits: { key: string; value: string }[] = [];
  for (const line of out.split('\n')) {
    // `Key: value`, with whichever separator trailer.separators names.
    const m = /^([A-Za-z0-9-]+)\s*[^A-Za-z0-9\s-]\s*(.*)$/.exec(line);
    const key = m && keys.get(m[1].toLowerCase());
    if (key && m[2].trim()) credits.push({ key, value: m[2].trim() });
  }
  return authorship({
    coAuthors: credits.filter((c) => c.key === 'Co-authored-by').map((c) => addressOf(c.value)),
    credits: credits.map((c) => c.value),
  });
}

/**
 * The owners rule's agent checks on the commit being made (its signature
 * checks wait for the push); each refusal tells the agent how to commit
 * without the oracle part, which a person makes.
 */
export function commitOwners(
  who: Authorship,
  oracle: Zoned[],
  staged: string[],
  owners: Config['owners'],
  kind: 'commit' | 'amend' | 'merge',
): Violation[] {
  const { violations } = judgeOwners(new Map([['', oracle]]), new Map([['', who]]), {
    ...owners,
    signers: null,
    required: false,
  });
  return violations.map(({ commit: _, ...v }) => ({ ...v, fix: `${withoutOracle(v.paths, staged, kind)}; ${v.fix}` }));
}

/** The step that leaves the oracle paths out of what is being committed, kept in the working tree for a person. */
function withoutOracle(paths: string[], staged: string[], kind: 'commit' | 'amend' | 'merge'): string {
  if (kind === 'merge') return 'a person concludes this merge, which touches the oracles';
  if (kind === 'amend')
    return 'do not amend a commit that changes the oracles: commit your change on top of it instead (git commit, without --amend)';
  const unstage = `git restore --staged -- ${paths.map(shellQuote).join(' ')}`;
  const rest = staged.some((p) => !paths.includes(p));
  return rest
    ? `leave the oracle part to a person (it stays in the working tree) and commit the rest without it: ${unstage}, then commit again`
    : `leave this change to a person (it stays in the working tree): ${unstage}`;
}
