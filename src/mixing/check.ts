// The mixing rule applied to the index, one commit, or a range, read from git.
import type { Config } from '../config/schema.js';
import type { Violation } from '../common/verdict.js';
import { rangeChanges, type RawChange } from '../git/changes.js';
import { checkOwners } from '../owners/check.js';
import { judgeOverrides, OVERRIDE_TRAILER, overrideClaims, type Override } from '../owners/override.js';
import type { OwnersVerdict } from '../owners/rule.js';
import type { Repo } from '../git/repo.js';
import { classifierFor } from '../config/classifier.js';
import { baselined } from './baseline.js';

export interface RangeVerdict {
  commits: string[];
  /** Each judged commit's changes, and every path they change. */
  changes: Map<string, RawChange[]>;
  paths: Set<string>;
  /** The overrides' own refusals (the owners' and mixing rules' are the engine's, over `owners` and `mixed`). */
  violations: Violation[];
  owners: OwnersVerdict;
  /** The commits the mixing rule judges: the granted overrides left out. */
  mixed: string[];
  /** Commits of the adoption baseline, left out. */
  baselined: string[];
  /** Owner override commits honoured, and their own changes (oldest first). */
  overrides: Override[];
  overrideChanges: RawChange[];
}

/**
 * What the commit rules read of `from..to` (`from` may list several
 * revisions to exclude), less the commits of the adoption baseline at
 * `judgeRev`: the commits and their changes, the owners verdict (when
 * configured, with the signers file read at `judgeRev`, where the config came
 * from) and the owner overrides granted, whose commits the mixing rule leaves
 * out. The mixing and symlink rules run over them through the engine.
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
    violations: override.violations,
    owners,
    mixed: commits.filter((c) => !granted.has(c)),
  };
}
