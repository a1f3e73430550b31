// An audited break-glass. An owner's signed commit whose message carries a
// `Patchwarden-Override: <reason>` trailer passes the mixing and revert rules
// for its own changes; every other commit of the range is judged as if it
// were not there. The trailer alone proves nothing (anyone can type it), so
// the commit must be admitted as an owner's for this very range (a good
// signature from owners.signers, no agent named, its parent the range's
// merge base or a commit of the range, no older than owners.max_age): an
// override cannot be forged, and an old one cannot be replayed into a new
// range. Every enforcement point lists the overrides it honoured.
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import type { RangeChanges } from '../git/changes.js';
import { admitOwnerCommits } from './admission.js';

export const OVERRIDE_TRAILER = 'Patchwarden-Override';

export interface Override {
  commit: string;
  reason: string;
}

export interface Overrides {
  /** The overrides honoured, oldest first. */
  granted: Override[];
  /** One refusal per override commit that is not an owner's for this range. */
  violations: Violation[];
}

/** The commits among `commits` that carry the trailer, with its reason, oldest first; `walk` read it (rangeChanges with `trailer: OVERRIDE_TRAILER`). */
export function overrideClaims(walk: Pick<RangeChanges, 'trailers'>, commits: string[]): Override[] {
  return commits.flatMap((commit) => {
    const reason = walk.trailers.get(commit)?.join('; ');
    return reason ? [{ commit, reason }] : [];
  });
}

/**
 * The claimed overrides (overrideClaims) of a range, `commits` whose merge
 * base is `base` (null where there is none), judged by the signers at
 * `judgeRev`.
 */
export async function judgeOverrides(
  repo: Repo,
  config: Config,
  judgeRev: string | null,
  claimed: Override[],
  commits: string[],
  base: string | null,
  now: Date,
): Promise<Overrides> {
  if (!claimed.length) return { granted: [], violations: [] };
  const verdicts = judgeRev
    ? await admitOwnerCommits(
        repo,
        config,
        judgeRev,
        claimed.map((o) => o.commit),
        { base: base ?? '', commits: new Set(commits), now },
      )
    : new Map(claimed.map((o) => [o.commit, 'there is no base side to read owners.signers from']));
  const granted = claimed.filter((o) => verdicts.get(o.commit) === null);
  const violations: Violation[] = claimed
    .filter((o) => verdicts.get(o.commit) !== null)
    .map((o) => ({
      rule: 'override',
      commit: o.commit,
      paths: [],
      message: `this commit carries ${OVERRIDE_TRAILER} (${JSON.stringify(o.reason)}), but ${verdicts.get(o.commit)}; the override is refused and the commit is judged like any other`,
      fix: `a human owner (a key in ${config.owners.signers ?? 'owners.signers'}) makes the override commit on top of this range and signs it: git -c gpg.format=ssh -c user.signingkey=KEY commit -S --trailer "${OVERRIDE_TRAILER}: REASON" -m MESSAGE; or drop the trailer and split the change`,
    }));
  return { granted, violations };
}

/** The lines that list honoured overrides, for every enforcement point's output. */
export function overrideLines(granted: Override[]): string[] {
  return granted.map(
    (o) =>
      `override: commit ${o.commit.slice(0, 12)} passes the mixing and revert rules for its own changes (${OVERRIDE_TRAILER}: ${o.reason})`,
  );
}
