// The fixture lock at the tip: every locked input there with its locked
// bytes, nothing unlocked or forbidden beside them (fixtures/). Where the
// lock is verified is the facts' (facts.ts: at pre-commit and pre-receive
// only when the range touches the fixtures).
import type { Violation } from '../../common/verdict.js';
import type { Facts } from '../facts.js';
import { POINTS, type Rule } from '../rule.js';

export const fixturesRule: Rule = {
  id: 'fixtures',
  points: POINTS,
  needs: ['fixtureReport'],
  async judge(facts: Facts): Promise<Violation[]> {
    const report = await facts.fixtureReport();
    if (!report) return [];
    return (await facts.load()).fixtureViolations(report, facts.config, facts.where);
  },
};
