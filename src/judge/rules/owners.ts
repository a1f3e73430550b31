// Oracle commits are made by their owners (owners/): a commit that changes an
// oracle zone is signed by a key in owners.signers and not made by an agent
// identity (owners.agents), and an owner-signed one that shares the range with
// production commits is admitted to it. The verdict is read by the point, once
// for its commits (facts.ts): the staged commit's identity at pre-commit, the
// signatures of a range's oracle commits elsewhere; pre-receive names each
// fault on the first ref that brings its commit.
import type { Violation } from '../../common/verdict.js';
import type { Facts } from '../facts.js';
import { POINTS, type Rule } from '../rule.js';

export const ownersRule: Rule = {
  id: 'owners',
  points: POINTS,
  needs: ['owners'],
  judge: async (facts: Facts): Promise<Violation[]> => (await facts.owners()).violations,
};
