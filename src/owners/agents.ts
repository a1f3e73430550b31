// Whether a commit names a coding agent: an identity that matches
// owners.agents (author, committer, the authenticated pusher) or a trailer
// that credits one (Co-authored-by, Assisted-by, Generated-by) naming a known
// agent or matching owners.agents. A trailer can add an obligation, never
// remove one.
import { addressOf, identityMatcher } from './identity.js';
import type { Pusher } from './pusher.js';
import type { Authorship } from './signatures.js';

/** Agents whose name in a credit trailer marks the commit as an agent's. */
const KNOWN_AGENTS = /\b(claude|codex|copilot|aider|devin|cursor)\b/i;

/** The agent names a commit carries (empty: none), each once. */
export function agentsNamed(who: Authorship, agents: string[], pushers: Pusher[] = []): string[] {
  const isAgent = identityMatcher(agents);
  const found = [who.author, who.committer, ...pushers.map((p) => p.name)].filter((a) => a && isAgent(a));
  for (const credit of who.credits) if (KNOWN_AGENTS.test(credit) || isAgent(addressOf(credit))) found.push(credit);
  return [...new Set(found)];
}
