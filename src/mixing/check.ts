// The mixing rule applied to the index, one commit, or a range, read from git.
import type { Config } from '../config/schema.js';
import type { Violation } from '../common/verdict.js';
import { rangeChanges, type Change, type RawChange } from '../git/changes.js';
import { checkOwners } from '../owners/check.js';
import { judgeOverrides, OVERRIDE_TRAILER, overrideClaims, type Override } from '../owners/override.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../config/classifier.js';
import { isOracle, type Classify } from '../zones/classify.js';
import { REORDER_ADVICE } from './advice.js';
import { baselined } from './baseline.js';
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

export interface RangeVerdict {
  commits: string[];
  /** Each judged commit's changes, and every path they change. */
  changes: Map<string, RawChange[]>;
  paths: Set<string>;
  violations: Violation[];
  /** Commits of the adoption baseline, left out. */
  baselined: string[];
  /** Owner override commits honoured, and their own changes (oldest first). */
  overrides: Override[];
  overrideChanges: RawChange[];
}

/**
 * The range rules over `from..to` (`from` may list several revisions to
 * exclude), less the commits of the adoption baseline at `judgeRev`: owners
 * (when configured, with the signers file read at `judgeRev`, where the
 * config came from), then mixing per commit and over the range, owner-signed
 * oracle commits left out of the latter. An admitted owner override commit
 * is left out of mixing. Symbolic links are the symlink rule's
 * (symlinks.ts), which the callers run over `changes`.
 */
export async function checkRange(
  repo: Repo,
  config: Config,
  from: string | string[] | null,
  to: string,
  judgeRev: string | null,
  now = new Date(),
): Promise<RangeVerdict> {
  const classify = await classifierFor(repo, config);
  const exclude = from ? [from].flat() : [];
  const walked = await rangeChanges(repo, [to, ...(exclude.length ? ['--not', ...exclude] : [])], {
    trailer: OVERRIDE_TRAILER,
  });
  // Commits that predate the guard (the adoption baseline at judgeRev) are not judged.
  const old = await baselined(repo, judgeRev, exclude, walked.commits);
  const commits = walked.commits.filter((c) => !old.has(c));
  const changes = new Map([...walked.changes].filter(([c]) => !old.has(c)));
  // Where the range starts at one commit, owner-signed oracle commits must be admitted to it.
  const base = typeof from === 'string' && /^[0-9a-f]{40,64}$/.test(from) ? from : null;
  const owners = await checkOwners(
    repo,
    config,
    judgeRev,
    commits,
    changes,
    classify,
    [],
    base ? { base, commits: new Set(commits), now } : undefined,
  );
  // An override is judged against the range's merge base: the first revision excluded, where that is a commit (pre-push adds the remote's other branches).
  const start = exclude[0] && /^[0-9a-f]{40,64}$/.test(exclude[0]) ? exclude[0] : null;
  const override = start
    ? await judgeOverrides(repo, config, judgeRev, overrideClaims(walked, commits), commits, start, now)
    : { granted: [], violations: [] };
  const granted = new Set(override.granted.map((o) => o.commit));
  const paths = new Set([...changes.values()].flatMap((list) => list.map((c) => c.path)));
  return {
    commits,
    changes,
    paths,
    baselined: [...old],
    overrides: override.granted,
    overrideChanges: override.granted.flatMap((o) => changes.get(o.commit) ?? []),
    violations: [
      ...owners.violations,
      ...override.violations,
      ...judgeCommits(
        commits.filter((c) => !granted.has(c)),
        changes,
        config,
        classify,
        owners.exempt,
      ),
    ],
  };
}
