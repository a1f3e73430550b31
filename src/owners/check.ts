// The owners rule on the commits that touch an oracle zone; the commits it
// finds owner-signed are left out of the whole-range mixing rule. The signers
// file is read from the same commit as the config that judges the range.
import type { Config } from '../config/schema.js';
import { CannotJudge } from '../common/errors.js';
import type { Change } from '../git/changes.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import type { Classify } from '../zones/classify.js';
import type { Pusher } from './pusher.js';
import { judgeOwners, oracleCommits, ownersApply, type OwnersVerdict } from './rule.js';
import { readAuthorship } from './signatures.js';

/** The owners rule over `commits`; `judgeRev` is where the config was read (null: no commit); `pushers` as the server authenticated them. */
export async function checkOwners(repo: Repo, config: Config, judgeRev: string | null, commits: string[], changes: Map<string, Change[]>, classify: Classify, pushers: Pusher[] = []): Promise<OwnersVerdict> {
  if (!ownersApply(config.owners)) return { violations: [], exempt: new Set() };
  const oracle = oracleCommits(commits, changes, classify);
  if (!oracle.size) return { violations: [], exempt: new Set() };
  let signers: Buffer | null = null;
  if (config.owners.signers !== null) {
    signers = judgeRev ? await readFileAt(repo, judgeRev, config.owners.signers) : null;
    if (!signers) throw new CannotJudge(`owners.signers names ${config.owners.signers}, which is not in the commit the config comes from`, { file: config.source });
  }
  const authorship = await readAuthorship(repo, [...oracle.keys()], signers);
  return judgeOwners(oracle, authorship, config.owners, pushers);
}
