// A symbolic link may not carry a zone across its boundary: a link in one
// zone that points into another, out of the repository, or where its target
// cannot be read from the path (mixing/symlinks.ts). Which links are read is
// the point's (facts.ts): each new commit's, or the staged set's.
import type { Violation } from '../../common/verdict.js';
import type { Facts } from '../facts.js';
import { POINTS, type Rule } from '../rule.js';

export const symlinkRule: Rule = {
  id: 'symlink',
  points: POINTS,
  needs: ['links'],
  judge: (facts: Facts): Promise<Violation[]> => facts.links(),
};
