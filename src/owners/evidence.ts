// Who owes evidence for a production diff (revert.require). Under `all`,
// every production diff owes a fixed case (or an owner's refactor row).
// Under `agents`, a diff owes it when any of its production commits is not
// signed by an owner or names an agent anywhere; a diff whose every
// production commit is owner-signed is vouched for by its signers. Its head
// run still happens, so a regression is refused for everyone.
import { CannotJudge } from '../common/errors.js';
import { evidenceRequired, type Config } from '../config/schema.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { agentsNamed } from './agents.js';
import type { Pusher } from './pusher.js';
import { readAuthorship } from './signatures.js';

export interface Obligation {
  /** Whether the diff must be described by a fixed case (or an owner's row). */
  owed: boolean;
  /** Why, in a few words, for messages and JSON. */
  why: string;
  /** Production commits that name an agent, with the names. */
  agents: { commit: string; names: string[] }[];
}

/** The obligation of the production commits `commits`, judged by the signers at `judgeRev`. */
export async function evidenceOwed(
  repo: Repo,
  config: Config,
  judgeRev: string,
  commits: string[],
  pushers: Pusher[] = [],
): Promise<Obligation> {
  if (evidenceRequired(config) === 'all') {
    const why =
      config.revert.require === 'all'
        ? 'revert.require: all'
        : 'revert.require is all by default without owners.signers (a typed name proves nothing)';
    return { owed: true, why, agents: [] };
  }
  if (!commits.length) return { owed: true, why: 'no commit of the range carries the production diff', agents: [] };
  const file = config.owners.signers;
  const signers = file === null ? null : await readFileAt(repo, judgeRev, file);
  if (file !== null && !signers)
    throw new CannotJudge(`owners.signers names ${file}, which is not in the commit the config comes from`, {
      file: config.source,
    });
  const who = await readAuthorship(repo, commits, signers);
  const agents = commits.flatMap((c) => {
    const names = who.get(c) ? agentsNamed(who.get(c)!, config.owners.agents, pushers) : [];
    return names.length ? [{ commit: c, names }] : [];
  });
  if (agents.length)
    return {
      owed: true,
      why: `commit ${agents[0].commit.slice(0, 12)} names the agent ${agents[0].names.join(', ')}`,
      agents,
    };
  const unsigned = commits.find((c) => who.get(c)?.signature !== 'G');
  if (unsigned)
    return {
      owed: true,
      why: `commit ${unsigned.slice(0, 12)} is not signed by an owner${file ? ` (${file})` : ' (owners.signers is not set)'}`,
      agents,
    };
  const by = [...new Set(commits.map((c) => who.get(c)!.signer))].join(', ');
  return { owed: false, why: `every production commit is signed by an owner (${by})`, agents };
}
