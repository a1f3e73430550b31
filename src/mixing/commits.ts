// The mixing rule over commits, pure: per commit, and over the range where
// mix.range refuses, with the split advice that fits how the range is ordered.
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import type { Change } from '../git/changes.js';
import { isOracle, type Classify } from '../zones/classify.js';
import { REORDER_ADVICE } from './advice.js';
import { mixViolation, touchedSides, type Sides } from './rule.js';

/**
 * Per-commit and whole-range mixing over the commits given (oldest first).
 * Commits in `rangeExempt` (owner-signed oracle commits) still obey the
 * per-commit rule but are left out of the whole-range one. `sidesOf` says
 * which sides each commit touches, where they were worked out before
 * (commit-sides.ts); the changes are read again only to word a refusal.
 */
export function judgeCommits(
  commits: string[],
  changes: Map<string, Change[]>,
  config: Config,
  classify: Classify,
  rangeExempt: ReadonlySet<string> = new Set(),
  sidesOf: (commit: string) => Sides = (c) => touchedSides(changes.get(c) ?? [], classify),
): Violation[] {
  const violations: Violation[] = [];
  for (const c of commits) {
    const sides = sidesOf(c);
    const v = sides.src && sides.oracle ? mixViolation(changes.get(c) ?? [], classify, 'mix', c) : null;
    if (v) {
      v.fix =
        'split the commit (git rebase -i, then `edit` it) so production code and oracles land in separate commits';
      violations.push(v);
    }
  }
  if (config.mix.range === 'refuse' && commits.length > 1 && !violations.length) {
    let src = false;
    let oracle = false;
    for (const c of commits) {
      if (rangeExempt.has(c)) continue;
      const sides = sidesOf(c);
      src ||= sides.src;
      oracle ||= sides.oracle;
    }
    // Read in place, not gathered: a push can bring fifty thousand commits.
    const ranged = {
      *[Symbol.iterator]() {
        for (const c of commits) if (!rangeExempt.has(c)) yield* changes.get(c) ?? [];
      },
    };
    const v = src && oracle ? mixViolation(ranged, classify, 'mix-range') : null;
    if (v) {
      v.message += ' (split across commits)';
      v.fix = rangeSplitAdvice(
        commits.filter((c) => !rangeExempt.has(c)),
        changes,
        classify,
      );
      violations.push(v);
    }
  }
  return violations;
}

/**
 * How to land a range that mixes across commits: the oracle commits pushed
 * on their own first, then the production ones. When the oracle commits
 * already come first, the two pushes are the advice (`<remote>`, `<local>`
 * and `<branch>` are filled in by pre-push, which knows them); else reorder.
 */
function rangeSplitAdvice(commits: string[], changes: Map<string, Change[]>, classify: Classify): string {
  const touches = (c: string, zone: (z: ReturnType<Classify>) => boolean) =>
    (changes.get(c) ?? []).some((ch) => zone(classify(ch.path)));
  const first = commits.findIndex((c) => touches(c, (z) => z === 'src'));
  const oracleAfter = first > 0 && commits.slice(first).some((c) => touches(c, isOracle));
  if (first <= 0 || oracleAfter) {
    return REORDER_ADVICE;
  }
  return [
    'push the oracle commits on their own first, to be reviewed, then the production commits:',
    `  git push <remote> ${commits[first - 1]}:<branch>`,
    '  git push <remote> <local>:<branch>',
  ].join('\n');
}
