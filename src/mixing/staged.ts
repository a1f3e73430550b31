// The mixing rule on the staged set, and advice that fits how it was staged.
// Kept apart from the range checks so the pre-commit hook loads only this.
import type { Violation } from '../common/verdict.js';
import type { Change } from '../git/changes.js';
import { shellQuote } from '../common/text.js';
import type { Classify } from '../zones/classify.js';
import { mixViolation, zonedPaths } from './rule.js';

/**
 * The refusal says what to unstage. `amend` says the changes are the index
 * against the parents of the commit being amended, so part of the mix may
 * already be in HEAD and unstaging alone will not help.
 */
export function checkStaged(changes: Change[], classify: Classify, amend = false): Violation[] {
  const v = mixViolation(changes, classify, 'mix');
  if (!v) return [];
  if (amend) {
    v.message = v.message.replace('the staged change', 'this amend (the staged change with the commit it amends, HEAD)');
    v.fix = [
      'HEAD already holds part of this mix, so amending it cannot keep them apart:',
      '  commit the staged change as a commit of its own instead: git commit   (without --amend)',
      '  or take HEAD apart first: git reset --soft HEAD~1, then commit production code and oracles separately',
    ].join('\n');
    return [v];
  }
  const { oracle, src } = zonedPaths(changes, classify);
  const list = (zs: { path: string }[]) => zs.map((z) => shellQuote(z.path)).join(' ');
  v.fix = [
    'split it: commit the production change first, then the oracle change on its own:',
    `  git restore --staged -- ${list(oracle)}`,
    '  git commit            # production code (and free paths such as tests)',
    `  git add -- ${list(oracle)} && git commit`,
    `or keep the oracles and unstage the production code: git restore --staged -- ${list(src)}`,
  ].join('\n');
  return [v];
}
