// Whether a commit names a coding agent: an identity that matches
// owners.agents (author, committer, the authenticated pusher) or a trailer
// that credits one (Co-authored-by, Assisted-by, Generated-by) naming a known
// agent or matching owners.agents. A trailer can add an obligation, never
// remove one.
import type { Config } from '../config/schema.js';
import { addressOf, identityMatcher } from './identity.js';
import type { Pusher } from './pusher.js';
import type { Authorship } from './signatures.js';

/**
 * Coding agents whose name in a credit trailer marks the commit as an
 * agent's: the one list, shown in docs/server.md#owners.
 */
export const KNOWN_AGENTS = [
  'claude',
  'codex',
  'copilot',
  'aider',
  'devin',
  'cursor',
  'gemini',
  'jules',
  'openhands',
  'cline',
  'windsurf',
];
/** The identities coding agents commit or co-author as, for owners.agents in a new config. */
export const KNOWN_AGENT_IDENTITIES = ['*[bot]@*', 'noreply@anthropic.com', 'cursoragent@cursor.com'];
const KNOWN = new RegExp(`\\b(${KNOWN_AGENTS.join('|')})\\b`, 'i');

/** The agent names a commit carries (empty: none), each once. */
export function agentsNamed(who: Authorship, agents: string[], pushers: Pusher[] = []): string[] {
  const isAgent = identityMatcher(agents);
  const found = [who.author, who.committer, ...pushers.map((p) => p.name)].filter((a) => a && isAgent(a));
  for (const credit of who.credits) if (KNOWN.test(credit) || isAgent(addressOf(credit))) found.push(credit);
  return [...new Set(found)];
}

/**
 * The identities of owners.agents a commit names as author, committer or
 * co-author; a co-author `owners.assisted_by_ok` lists is an owner's own
 * assistant, never the author or committer.
 */
export function agentIdentities(who: Authorship, owners: Config['owners']): string[] {
  const isAgent = identityMatcher(owners.agents);
  const isOk = identityMatcher(owners.assisted_by_ok);
  const named = [who.author, who.committer, ...who.coAuthors.filter((a) => !isOk(a))];
  return [...new Set(named.filter((a) => a && isAgent(a)))];
}

/**
 * The credit trailers that make an oracle commit an agent's under
 * `owners.trailers: strict`: each naming a known agent or an identity of
 * `owners.agents`, but for those `owners.assisted_by_ok` lets through (an
 * owner's own assistant, matched by its address or its whole text).
 */
export function agentCredits(who: Authorship, owners: Config['owners']): string[] {
  if (owners.trailers !== 'strict') return [];
  const isAgent = identityMatcher(owners.agents);
  const isOk = identityMatcher(owners.assisted_by_ok);
  return who.credits.filter((c) => (KNOWN.test(c) || isAgent(addressOf(c))) && !isOk(addressOf(c)) && !isOk(c));
}
