// The freeze ledger at the tip: its rows well-formed, and, where the ledger's
// version or freeze.require_evidence asks, each row bound to its replay
// evidence (freeze/). Pre-push does not read the ledger: its guard-file rule
// parses it when the range touches it, and pre-receive and the gate judge it.
import type { Violation } from '../../common/verdict.js';
import type { Ledger } from '../../freeze/ledger.js';
import { freezePolicy } from '../../freeze/policy.js';
import type { Facts } from '../facts.js';
import type { Rule } from '../rule.js';

/** The rows that lack the replay evidence a version 3 ledger asks for, whether or not the policy requires it. */
export async function missingEvidence(facts: Facts, ledger: Ledger): Promise<Violation[]> {
  return (await facts.load()).evidenceViolations(ledger, facts.config, await facts.voided());
}

export const freezeRule: Rule = {
  id: 'freeze',
  points: ['pre-commit', 'pre-receive', 'gate'],
  needs: ['ledger'],
  async judge(facts: Facts): Promise<Violation[]> {
    const ledger = await facts.ledger();
    if (!ledger) return [];
    if (!freezePolicy(facts.config, ledger).requireEvidence) return ledger.problems;
    return [...ledger.problems, ...(await missingEvidence(facts, ledger))];
  },
};
