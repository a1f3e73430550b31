// Production code and the oracles that judge it change in separate commits
// (mixing/): the staged set at pre-commit, worded for a commit, an amend or a
// merge; elsewhere each commit of the range, and the range as a whole where
// mix.range refuses, less the owner-signed oracle commits. Fitting the
// whole-range advice to a remote and a branch is the point's, at render.
import type { Violation } from '../../common/verdict.js';
import { judgeCommits } from '../../mixing/commits.js';
import { checkStaged } from '../../mixing/staged.js';
import type { Facts } from '../facts.js';
import { POINTS, type Rule } from '../rule.js';

export const mixingRule: Rule = {
  id: 'mixing',
  points: POINTS,
  needs: ['commitRange', 'owners'],
  async judge(facts: Facts): Promise<Violation[]> {
    const { staged } = facts;
    if (staged) {
      const classify = await facts.classify();
      const mixed = checkStaged(staged.changes, classify, staged.kind);
      if (!mixed.length || staged.kind !== 'commit') return mixed;
      return checkStaged(staged.changes, classify, staged.kind, await staged.landing());
    }
    const range = await facts.commitRange();
    if (!range?.commits.length) return [];
    const [classify, owners] = await Promise.all([facts.classify(), facts.owners()]);
    return judgeCommits(range.commits, range.changes, facts.config, classify, owners.exempt, range.sidesOf);
  },
};
