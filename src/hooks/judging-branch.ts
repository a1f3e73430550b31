// The branch whose config judges a server's pushes, and the rules that keep a
// push from moving it out from under the guard. install-server-hook.sh records
// the branch in the repository's git config (patchwarden.branch); without
// that, the default branch (HEAD) judges. A judging branch with no config
// refuses every push unless an administrator has set patchwarden.bootstrap.
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { CONFIG_FILE } from '../zones/names.js';
import { objectsOf } from '../git/objects.js';
import { headRef } from '../git/refs.js';
import { configMatching, isZeroId, type Repo } from '../git/repo.js';

export interface JudgingBranch {
  /** The full ref name, e.g. refs/heads/main. */
  ref: string;
  /** Its commit, or null while it has none. */
  id: string | null;
  /** The blob id of its .patchwarden.yml, or null while it has none. */
  config: string | null;
  /** Whether it was recorded by the install script (else HEAD's branch). */
  recorded: boolean;
  /** patchwarden.bootstrap: a judging branch with no config lets pushes through. */
  bootstrap: boolean;
  /** core.ignorecase, read with the settings above: how this repository's paths meet the zones. */
  ignoreCase: boolean;
}

/** A git boolean as git reads it: true, yes, on, or a number other than 0 (a key with no value is true). */
const gitTrue = (v: string | undefined) =>
  v !== undefined && (/^(true|yes|on)$/i.test(v.trim()) || (/^-?\d+$/.test(v.trim()) && Number(v) !== 0));

export async function judgingBranch(repo: Repo): Promise<JudgingBranch> {
  const [values, head] = await Promise.all([
    configMatching(repo, '^(patchwarden\\.|core\\.ignorecase$)'),
    headRef(repo),
  ]);
  const recorded = values.get('patchwarden.branch')?.trim();
  const ref = recorded ? (recorded.startsWith('refs/') ? recorded : `refs/heads/${recorded}`) : (head ?? 'HEAD');
  // Its commit and its config's blob in one process.
  const [commit, config] = await objectsOf(repo, [`${ref}^{commit}`, `${ref}^{commit}:${CONFIG_FILE}`]);
  const id = commit?.type === 'commit' ? commit.oid : null;
  return {
    ref,
    id,
    config: id && config?.type === 'blob' ? config.oid : null,
    recorded: Boolean(recorded),
    bootstrap: gitTrue(values.get('patchwarden.bootstrap')),
    ignoreCase: gitTrue(values.get('core.ignorecase')),
  };
}

/** The refusal for a judging branch without a config, naming the ways out. */
export function unguardedRefusal(branch: JudgingBranch): string[] {
  return [
    `patchwarden: refusing the push: ${branch.ref}, the branch whose .patchwarden.yml judges this repository, ${branch.id ? 'has no .patchwarden.yml' : 'does not exist'}${branch.recorded ? ' (recorded as patchwarden.branch)' : ' (the default branch; no patchwarden.branch is recorded)'}`,
    `    fix: if another branch holds the config, record it on the server: git config patchwarden.branch refs/heads/NAME`,
    `    first adoption: an administrator allows unjudged pushes until the config is on ${branch.ref}: git config patchwarden.bootstrap true (then unset it)`,
  ];
}

/**
 * Updates that would move the rules themselves: a rewind or deletion of the
 * judging branch (pre_receive.judging_branch), a replace ref
 * (pre_receive.replace_refs). `isAncestor` answers whether old is in new's history.
 */
export async function branchViolations(
  update: { old: string; new: string; ref: string },
  branch: JudgingBranch,
  config: Config,
  isAncestor: (a: string, b: string) => Promise<boolean>,
): Promise<Violation[]> {
  if (update.ref.startsWith('refs/replace/') && config.pre_receive.replace_refs === 'refuse') {
    return [
      {
        rule: 'replace-ref',
        paths: [],
        message: `${update.ref} is a replace ref: it makes git show other objects in place of real ones, so it is refused (pre_receive.replace_refs: refuse in ${config.source})`,
        fix: 'push the real history instead; an administrator who needs replace refs sets pre_receive.replace_refs: allow',
      },
    ];
  }
  if (update.ref !== branch.ref || config.pre_receive.judging_branch === 'allow' || isZeroId(update.old)) return [];
  const fix = `push on top of ${update.ref} (git pull --rebase, then push) rather than rewriting it; an administrator who must rewrite it sets pre_receive.judging_branch: allow for that push`;
  if (isZeroId(update.new)) {
    return [
      {
        rule: 'judging-branch',
        paths: [],
        message: `deleting ${update.ref} is refused: its .patchwarden.yml judges every push (pre_receive.judging_branch: protect in ${config.source})`,
        fix: `keep ${update.ref}; to retire it, an administrator first records another judging branch on the server (git config patchwarden.branch refs/heads/NAME), then deletes it`,
      },
    ];
  }
  if (await isAncestor(update.old, update.new)) return [];
  return [
    {
      rule: 'judging-branch',
      paths: [],
      message: `a non-fast-forward update of ${update.ref} (${update.old.slice(0, 12)} is not in the new history) is refused: it would drop commits the guard has judged, oracle commits among them (pre_receive.judging_branch: protect in ${config.source})`,
      fix,
    },
  ];
}
