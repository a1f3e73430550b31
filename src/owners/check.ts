// The owners rule on the commits that touch an oracle zone; the commits it
// finds owner-signed are left out of the whole-range mixing rule, and where
// the range also holds production commits, only when each is admitted to it
// (admission.ts: recent, and sitting in the range). The signers file is read
// from the same commit as the config that judges the range.
import type { Config } from '../config/schema.js';
import { CannotJudge } from '../common/errors.js';
import type { Change } from '../git/changes.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import type { Classify } from '../zones/classify.js';
import type { Pusher } from './pusher.js';
import { admitOwnerCommits, type AdmissionRange } from './admission.js';
import { judgeOwners, oracleCommits, ownersApply, type OwnersVerdict } from './rule.js';
import { readAuthorship } from './signatures.js';

/** The owners rule over `commits`; `judgeRev` is where the config was read (null: no commit); `pushers` as the server authenticated them. */
export async function checkOwners(
  repo: Repo,
  config: Config,
  judgeRev: string | null,
  commits: string[],
  changes: Map<string, Change[]>,
  classify: Classify,
  pushers: Pusher[] = [],
  range?: AdmissionRange,
): Promise<OwnersVerdict> {
  if (!ownersApply(config.owners)) return { violations: [], exempt: new Set(), untouched: [] };
  const oracle = oracleCommits(commits, changes, classify);
  if (!oracle.size) return { violations: [], exempt: new Set(), untouched: [] };
  let signers: Buffer | null = null;
  if (config.owners.signers !== null) {
    signers = judgeRev ? await readFileAt(repo, judgeRev, config.owners.signers) : null;
    if (!signers)
      throw new CannotJudge(
        `owners.signers names ${config.owners.signers}, which is not in the commit the config comes from`,
        { file: config.source },
      );
  }
  const authorship = await readAuthorship(repo, [...oracle.keys()], signers);
  const verdict = judgeOwners(oracle, authorship, config.owners, pushers);
  const production = commits.some((c) => (changes.get(c) ?? []).some((ch) => classify(ch.path) === 'src'));
  if (!range || !judgeRev || !verdict.exempt.size || !production) return verdict;
  const admitted = await admitOwnerCommits(repo, config, judgeRev, [...verdict.exempt], range);
  for (const [commit, why] of admitted) {
    if (why === null) continue;
    verdict.exempt.delete(commit);
    const paths = oracle.get(commit) ?? [];
    verdict.violations.push({
      rule: 'owners-admission',
      commit,
      paths: paths.map((p) => p.path),
      detail: paths.map((p) => ({ path: p.path, zone: p.zone })),
      message: `this owner-signed oracle commit shares the range with production commits, but ${why}`,
      fix: 'an owner makes the oracle change again on top of this branch (or lands it on the base branch first) and signs it',
    });
  }
  return verdict;
}
