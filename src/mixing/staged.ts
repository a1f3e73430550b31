// The mixing rule on the staged set, and advice that fits how it was staged.
// Kept apart from the range checks so the pre-commit hook loads only this.
import type { Violation } from '../common/verdict.js';
import type { Change } from '../git/changes.js';
import type { Classify } from '../zones/classify.js';
import { mixViolation } from './rule.js';
import { zonedPaths } from '../zones/zoned.js';
import { stagedAdvice, type Landing } from './advice.js';

/**
 * The refusal says how to split the commit. 'amend' says the changes are the index
 * against the parents of the commit being amended, so part of the mix may
 * already be in HEAD and unstaging alone will not help; 'merge' that they are
 * what concluding a merge authors, and git refuses a partial commit then.
 * `landing` (where the commit goes, who makes it) fits the advice to the
 * branch and the author.
 */
export function checkStaged(
  changes: Change[],
  classify: Classify,
  kind: 'commit' | 'amend' | 'merge' = 'commit',
  landing: Landing | null = null,
): Violation[] {
  const v = mixViolation(changes, classify, 'mix');
  if (!v) return [];
  if (kind === 'merge') {
    v.message = v.message.replace(
      'the staged change',
      "this merge's own changes (its conflict resolutions and edits beyond git's merge of the two sides)",
    );
    v.fix = [
      "git refuses a partial commit during a merge, and a resolution that touches both is the merge's own mix:",
      '  keep the merge to what git merged, and make your own edits in commits of their own after it,',
      '  or abort it and bring the two sides over one at a time: git merge --abort',
    ].join('\n');
    return [v];
  }
  if (kind === 'amend') {
    v.message = v.message.replace(
      'the staged change',
      'this amend (the staged change with the commit it amends, HEAD)',
    );
    v.fix = [
      'HEAD already holds part of this mix, so amending it cannot keep them apart:',
      '  commit the staged change as a commit of its own instead: git commit   (without --amend)',
      '  or take HEAD apart first: git reset --soft HEAD~1, then commit production code and oracles separately',
    ].join('\n');
    return [v];
  }
  // Trees written from the changes judged (landing.trees): the advice works after `git commit -a`
  // (which stages nothing) and on a first commit, and takes exactly what was staged.
  v.fix = stagedAdvice(
    zonedPaths(changes, classify).oracle.map((z) => z.path),
    landing,
  );
  return [v];
}
