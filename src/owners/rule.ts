// The owners rule, pure: commits that touch an oracle zone (spec, fixtures,
// freeze, guard) must be signed by a listed owner when `owners.signers` is
// set, and may never come from an agent identity, signed or not.
import type { Config } from '../config/schema.js';
import type { Violation } from '../common/verdict.js';
import type { Change } from '../git/changes.js';
import { zonedPaths } from '../zones/zoned.js';
import type { Classify } from '../zones/classify.js';
import { agentCredits, agentIdentities } from './agents.js';
import { identityMatcher } from './identity.js';
import type { Pusher } from './pusher.js';
import type { Authorship } from './signatures.js';

export interface OwnersVerdict {
  violations: Violation[];
  /** Owner-signed oracle commits: a range may mix them with production commits. */
  exempt: Set<string>;
  /** Of those, the ones a security key signed without a touch (no user-presence flag). */
  untouched: string[];
}

const UNSIGNED: Record<string, string> = {
  N: 'is not signed',
  B: 'has a bad signature',
  U: 'is signed, but not by a key in the allowed-signers file',
  X: 'has an expired signature',
  Y: 'is signed by an expired key',
  R: 'is signed by a revoked key',
  E: 'has a signature that could not be checked',
};

export function ownersApply(owners: Config['owners']): boolean {
  return owners.signers !== null || owners.agents.length > 0 || owners.trailers === 'strict' || owners.required;
}

/** What an owner does when `owners.required` is set and no signers file is: the one step that sets ownership up. */
export const SET_UP_OWNERS =
  'an owner runs patchwarden init --owner-key ~/.ssh/id_ed25519.pub (their public signing key), reviews what it writes and commits it on its own, signed';

/** Said where nothing was refused yet: `owners.required` without a signers file. */
export function ownersUnset(owners: Config['owners']): string | null {
  return owners.required && owners.signers === null
    ? `owners.required is set, but owners.signers names no allowed-signers file, so every oracle commit is refused until ${SET_UP_OWNERS}`
    : null;
}
/** The commits whose changes touch an oracle zone, with those paths. */
export function oracleCommits(
  commits: string[],
  changes: Map<string, Change[]>,
  classify: Classify,
): Map<string, ReturnType<typeof zonedPaths>['oracle']> {
  const result = new Map<string, ReturnType<typeof zonedPaths>['oracle']>();
  for (const c of commits) {
    const { oracle } = zonedPaths(changes.get(c) ?? [], classify);
    if (oracle.length) result.set(c, oracle);
  }
  return result;
}

/**
 * `pushers` are the names the server authenticated (pre-receive only): when
 * one matches owners.agents, no oracle commit of the push passes, whatever
 * its commits claim.
 */
export function judgeOwners(
  oracle: ReturnType<typeof oracleCommits>,
  authorship: Map<string, Authorship>,
  owners: Config['owners'],
  pushers: Pusher[] = [],
): OwnersVerdict {
  const isAgent = identityMatcher(owners.agents);
  const agentPusher = pushers.filter((p) => isAgent(p.name));
  const violations: Violation[] = [];
  const exempt = new Set<string>();
  const untouched: string[] = [];
  for (const [commit, paths] of oracle) {
    const who = authorship.get(commit);
    const zones = [...new Set(paths.map((p) => p.zone))].join(', ');
    const base = {
      commit,
      paths: paths.map((p) => p.path),
      detail: paths.map((p) => ({ path: p.path, zone: p.zone })),
    };
    if (agentPusher.length) {
      violations.push({
        ...base,
        rule: 'owners-agent',
        message: `this commit touches ${zones} and is pushed by the agent account ${agentPusher.map((p) => `${p.name} (${p.source})`).join(', ')}, as the server authenticated it; agents may never change the oracles, whoever the commit names`,
        fix: 'a person pushes the oracle change from their own account',
      });
      continue;
    }
    if (!who) {
      violations.push({
        ...base,
        rule: 'owners',
        message: `this commit touches ${zones}, and git could not say who made it`,
      });
      continue;
    }
    const agents = agentIdentities(who, owners);
    if (agents.length) {
      violations.push({
        ...base,
        rule: 'owners-agent',
        message: `this commit touches ${zones} and names the agent identity ${agents.join(', ')} (author, committer or Co-authored-by); agents may never change the oracles, signed or not`,
        fix: 'have a person make this change in a commit of their own',
      });
      continue;
    }
    const credited = agentCredits(who, owners);
    if (credited.length) {
      violations.push({
        ...base,
        rule: 'owners-agent',
        message: `this commit touches ${zones} and credits the coding agent ${credited.join(', ')} in a trailer (owners.trailers: strict); an oracle change an agent helped write is the agent's, signed or not`,
        fix: 'a person makes this change in a commit of their own, without the agent; an owner whose own assistant this is lists it in owners.assisted_by_ok, in a commit of their own',
      });
      continue;
    }
    if (owners.signers === null) {
      if (owners.required)
        violations.push({
          ...base,
          rule: 'owners-required',
          message: `this commit touches ${zones}, and owners.required is set while owners.signers names no allowed-signers file, so no one can be told to be an owner`,
          fix: SET_UP_OWNERS,
        });
      continue;
    }
    if (who.signature === 'G') {
      exempt.add(commit);
      if (who.presence === false) untouched.push(commit);
      continue;
    }
    violations.push({
      ...base,
      rule: 'owners-signature',
      message: `this commit touches ${zones} and ${UNSIGNED[who.signature] ?? `has signature status ${who.signature}`}${who.why ? ` (${who.why})` : ''} (${owners.signers}); oracle changes must be signed by a listed owner`,
      fix: `an owner signs it with a key listed in ${owners.signers}: git -c gpg.format=ssh -c user.signingkey=KEY commit --amend --no-edit -S`,
    });
  }
  return { violations, exempt, untouched };
}

/** The notes on owner-signed commits whose security key saw no touch: accepted, as ssh-keygen accepts them, and said. */
export function untouchedLines(commits: string[]): string[] {
  return commits.map(
    (c) =>
      `owners: commit ${c.slice(0, 12)} is signed by a security key without a touch (no user-presence flag, a key made with no-touch-required): it shows the key was used, not that a person was at it`,
  );
}
