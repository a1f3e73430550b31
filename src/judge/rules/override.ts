// An owner's override (a commit carrying the Patchwarden-Override trailer)
// passes the mixing rule for the range only where an owner signed it and it
// is admitted to the range (owners/override.ts); a claim that is not is
// refused, and its commit judged like any other. The facts judge the claims
// (facts.ts: pre-receive's once for the push, per ref).
import type { Violation } from '../../common/verdict.js';
import type { Facts } from '../facts.js';
import type { Rule } from '../rule.js';

export const overrideRule: Rule = {
  id: 'override',
  points: ['pre-push', 'pre-receive', 'gate', 'check'],
  needs: ['overrides'],
  judge: async (facts: Facts): Promise<Violation[]> => (await facts.overrides()).violations,
};
