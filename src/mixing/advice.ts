// How to land a mixed change, fitted to where it goes and who makes it. On
// the default branch: the oracle first, pushed on its own, then the code. On
// any other branch the gate judges the pull request whole, so the oracle goes
// to the default branch in a pull request of its own (or, with owners.signers,
// an owner signs it on this branch). An agent is never told to make or push
// an oracle change: a human owner must. Every command is meant to work when
// run exactly as printed.
import { shellQuote } from '../common/text.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { addressOf, identityMatcher } from '../owners/identity.js';

export interface Landing {
  /** The branch committed on or pushed to (short name); null when detached. */
  branch: string | null;
  /** The remote it goes to, and that remote's default branch; null without a remote. */
  remote: string | null;
  defaultBranch: string | null;
  /** Whether the branch has an upstream (else the push needs -u). */
  upstream: boolean;
  signers: boolean;
  /** The committer matches owners.agents. */
  agent: boolean;
}

async function text(repo: Repo, args: string[]): Promise<string> {
  const r = await repo.run(args, { okCodes: [1, 128] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() : '';
}

/** Where a change lands, from the repository: `branch` and `remote` as pre-push knows them, else from HEAD. */
export async function landingOf(
  repo: Repo,
  config: Config,
  known: { branch?: string; remote?: string } = {},
): Promise<Landing> {
  const branch = known.branch ?? ((await text(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'])) || null);
  const remotes = (await text(repo, ['remote'])).split('\n').filter(Boolean);
  const configured = branch ? await text(repo, ['config', '--get', `branch.${branch}.remote`]) : '';
  const remote = known.remote ?? (configured || (remotes.includes('origin') ? 'origin' : (remotes[0] ?? null)));
  let defaultBranch: string | null = null;
  if (remote) {
    const head = await text(repo, ['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`]);
    defaultBranch = head ? head.slice(remote.length + 1) : null;
    for (const name of ['main', 'master'])
      if (!defaultBranch && (await text(repo, ['rev-parse', '--verify', '--quiet', `refs/remotes/${remote}/${name}`])))
        defaultBranch = name;
  }
  const upstream = branch ? Boolean(await text(repo, ['rev-parse', '--abbrev-ref', `${branch}@{upstream}`])) : false;
  const isAgent = identityMatcher(config.owners.agents);
  const who = [await text(repo, ['var', 'GIT_COMMITTER_IDENT']), await text(repo, ['var', 'GIT_AUTHOR_IDENT'])].map(
    (i) => addressOf(i.replace(/ \d+ [+-]\d{4}$/, '')),
  );
  return {
    branch,
    remote,
    defaultBranch,
    upstream,
    signers: config.owners.signers !== null,
    agent: config.owners.agents.length > 0 && who.some(isAgent),
  };
}

/** Whether the change goes to the default branch itself (or there is no other to tell it from). */
export function onDefault(l: Landing): boolean {
  return !l.remote || !l.defaultBranch || !l.branch || l.branch === l.defaultBranch;
}

const q = (paths: string[]) => paths.map((p) => shellQuote(p)).join(' ');

/** The push of the current branch, with -u where it has no upstream yet. */
function push(l: Landing): string {
  return l.upstream || !l.remote || !l.branch
    ? 'git push'
    : `git push -u ${shellQuote(l.remote)} ${shellQuote(l.branch)}`;
}

/** A staged change that mixes: `oracle` paths, and `rest` (production code and free paths). */
export function stagedAdvice(oracle: string[], rest: string[], l: Landing | null): string {
  const code = `git commit -m 'production change' -- ${q(rest)}`;
  if (l?.agent) {
    return [
      `split it: a human owner must make the oracle change (${oracle.join(', ')}); an agent may not commit or push it. Leave it uncommitted for them (they land it on ${l.defaultBranch ?? 'the default branch'} first${l.signers ? ', or sign it on this branch' : ''}) and commit the production code alone:`,
      `  ${code}`,
    ].join('\n');
  }
  const oracleCommit = `git commit -m 'oracle change' -- ${q(oracle)}`;
  if (!l || onDefault(l)) {
    return [
      'split it: the oracle change first, committed and pushed on its own (a push may not mix them either), then the production code:',
      `  ${oracleCommit}`,
      `  ${l ? push(l) : 'git push'}`,
      `  ${code}`,
    ].join('\n');
  }
  if (l.signers) {
    return [
      `split it: an owner signs the oracle commit and pushes it to this branch beside the production commit (owners.signers; run by the owner, with their signing key):`,
      `  git commit -S -m 'oracle change' -- ${q(oracle)}`,
      `  ${code}`,
      `  ${push(l)}`,
    ].join('\n');
  }
  const side = `${l.branch}-oracle`;
  return [
    `split it: open a pull request with only the oracle change against ${l.defaultBranch}; rebase this branch once it lands (a property that fails on ${l.defaultBranch} until this fix lands needs a pending mark on its registry row):`,
    `  ${code}`,
    `  git switch -c ${shellQuote(side)} ${shellQuote(`${l.remote}/${l.defaultBranch}`)}`,
    `  ${oracleCommit}`,
    `  git push -u ${shellQuote(l.remote!)} ${shellQuote(side)}`,
    `  git switch ${shellQuote(l.branch!)}`,
    `once ${side} has landed on ${l.defaultBranch}:`,
    `  git pull --rebase ${shellQuote(l.remote!)} ${shellQuote(l.defaultBranch!)}`,
  ].join('\n');
}

/** A pushed range whose oracle commits (up to `oracleTip`) come before its production commits. */
export function rangeAdvice(oracleTip: string, localRef: string, remoteRef: string, l: Landing): string {
  const remote = shellQuote(l.remote ?? 'origin');
  if (l.agent) {
    return `a human owner must land the oracle commits (up to ${oracleTip.slice(0, 12)}) on ${l.defaultBranch ?? 'the default branch'}${l.signers ? ', or sign them on this branch' : ''}; an agent may not make or push them. Push the production commits once they have landed (rebased onto it).`;
  }
  if (onDefault(l)) {
    return [
      'push the oracle commits on their own first, to be reviewed, then the production commits:',
      `  git push ${remote} ${oracleTip}:${remoteRef}`,
      `  git push ${remote} ${localRef}:${remoteRef}`,
    ].join('\n');
  }
  if (l.signers)
    return `an owner signs the oracle commits (up to ${oracleTip.slice(0, 12)}) on this branch with a key in the allowed-signers file (owners.signers); signed, they may share it with the production commits`;
  const side = `${l.branch}-oracle`;
  return [
    `open a pull request with only the oracle commits against ${l.defaultBranch}; rebase this branch once it lands:`,
    `  git push ${remote} ${oracleTip}:refs/heads/${shellQuote(side)}`,
    `once ${side} has landed on ${l.defaultBranch}:`,
    `  git pull --rebase ${remote} ${shellQuote(l.defaultBranch!)}`,
  ].join('\n');
}
