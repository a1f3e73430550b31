// Whether an owner-signed commit may share a range with production commits
// it did not write. A signature proves who made a commit, not that it was
// made for this range: an owner's old or abandoned signed commit could be
// replayed into any pull request. So it must be recent and sit in the range
// itself, on its merge base or on one of its commits.
import { CannotJudge } from '../common/errors.js';
import type { Config } from '../config/schema.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { agentsNamed } from './agents.js';
import { readAuthorship } from './signatures.js';

export interface AdmissionRange {
  /** The range's merge base, and its commits. */
  base: string;
  commits: ReadonlySet<string>;
  now: Date;
}

/**
 * For each commit, null when it is admitted (a good signature from a key in
 * owners.signers as committed at `judgeRev`, no agent named, every parent
 * the range's merge base or a commit of the range, committed no longer than
 * owners.max_age before `now`), else the reason it is not.
 */
export async function admitOwnerCommits(
  repo: Repo,
  config: Config,
  judgeRev: string,
  commits: string[],
  range: AdmissionRange,
): Promise<Map<string, string | null>> {
  const result = new Map<string, string | null>();
  if (!commits.length) return result;
  const file = config.owners.signers;
  if (file === null) {
    for (const c of commits) result.set(c, "owners.signers is not set, so no commit can be shown to be an owner's");
    return result;
  }
  const signers = await readFileAt(repo, judgeRev, file);
  if (!signers)
    throw new CannotJudge(`owners.signers names ${file}, which is not in the commit the config comes from`, {
      file: config.source,
    });
  const who = await readAuthorship(repo, commits, signers);
  const maxAge = config.owners.max_age;
  for (const c of commits) {
    const a = who.get(c);
    const agents = a ? agentsNamed(a, config.owners.agents) : [];
    const age = a ? range.now.getTime() - a.committedAt * 1000 : 0;
    const stray = a?.parents.filter((p) => p !== range.base && !range.commits.has(p)) ?? [];
    result.set(
      c,
      !a
        ? 'git could not read it'
        : a.signature !== 'G'
          ? `it is not signed by a key in ${file} (signature status ${a.signature}${a.why ? `: ${a.why}` : ''})`
          : agents.length
            ? `it names the agent ${agents.join(', ')}`
            : stray.length || !a.parents.length
              ? `its parent ${stray[0]?.slice(0, 12) ?? '(none)'} is neither the range's merge base ${range.base.slice(0, 12)} nor a commit of the range: an owner's commit from another history cannot be replayed into this one`
              : age > maxAge
                ? `it was committed ${days(age)} ago, more than owners.max_age (${days(maxAge)}): an owner makes the change again on this branch and signs it`
                : null,
    );
  }
  return result;
}

const days = (ms: number) => `${Math.floor(ms / 86_400_000)}d`;
