// Production code the range adds may not game the test process (tamper/):
// each hit an allow row on the base side does not cover is refused, or in
// tamper.mode warn said. What is scanned is the point's (facts.ts): the diff
// from the base side, the staged files within pre-commit's bound, or
// pre-receive's one scan of the push.
import type { Violation } from '../../common/verdict.js';
import type { Facts } from '../facts.js';
import { POINTS, type Rule } from '../rule.js';

export const tamperRule: Rule = {
  id: 'tamper',
  points: POINTS,
  needs: ['tamper'],
  async judge(facts: Facts): Promise<Violation[]> {
    const verdict = await facts.tamper();
    if (!verdict) return [];
    for (const line of verdict.warnings) facts.note(line);
    return verdict.violations;
  },
};
