// How to land a mixed change, fitted to where it goes and who makes it. On
// the default branch: the oracle first, pushed on its own, then the code. On
// any other branch the gate judges the pull request whole, so the oracle goes
// to the default branch in a pull request of its own (or, with owners.signers,
// an owner signs it on this branch). An agent is never told to make or push
// an oracle change: a human owner must. Every command works when run exactly
// as printed, by the person it is addressed to (test/mixing/*advice*).
import { shellQuote } from '../common/text.js';
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { rangeChanges, treeDiff } from '../git/changes.js';
import { mergeBase, type Repo } from '../git/repo.js';
import { addressOf, identityMatcher } from '../owners/identity.js';
import { isOracle, type Classify } from '../zones/classify.js';

export interface Landing {
  /** The branch committed on or pushed to (short name); null when detached. */
  branch: string | null;
  /** The remote it goes to, and that remote's default branch; null without a remote. */
  remote: string | null;
  defaultBranch: string | null;
  /** Whether the branch tracks the branch of its own name on `remote` (else its push needs -u and names it). */
  upstream: boolean;
  signers: boolean;
  /** The committer matches owners.agents. */
  agent: boolean;
  /** What the branch already changed since it left the default branch, when that touches an oracle. */
  earlier?: Earlier | null;
  /** Said of `remote` where it is a guess (the server does not know what a clone calls it). */
  remoteNote?: string;
}

/** A feature branch's own oracle commits: a pull request may not hold them beside production code. */
export interface Earlier {
  /** Where the branch left the default branch. */
  base: string;
  /** The branch's commits that change an oracle path, oldest first. */
  commits: string[];
  /** The paths it changed since `base`: oracle paths, and the rest (production code and free paths). */
  oracle: string[];
  rest: string[];
}

async function text(repo: Repo, args: string[]): Promise<string> {
  const r = await repo.run(args, { okCodes: [1, 128] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() : '';
}

/**
 * Where a change lands, from the repository: `branch`, `remote` and the
 * default branch where the caller knows them, else from HEAD and the
 * remotes. With `classify`, what HEAD's branch already changed (`earlier`).
 */
export async function landingOf(
  repo: Repo,
  config: Config,
  known: { branch?: string; remote?: string; defaultBranch?: string } = {},
  classify?: Classify,
): Promise<Landing> {
  const branch = known.branch ?? ((await text(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'])) || null);
  const remotes = (await text(repo, ['remote'])).split('\n').filter(Boolean);
  const configured = branch ? await text(repo, ['config', '--get', `branch.${branch}.remote`]) : '';
  const remote = known.remote ?? (configured || (remotes.includes('origin') ? 'origin' : (remotes[0] ?? null)));
  let defaultBranch: string | null = known.defaultBranch ?? null;
  if (remote && !defaultBranch) {
    const head = await text(repo, ['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`]);
    defaultBranch = head ? head.slice(remote.length + 1) : null;
    for (const name of ['main', 'master'])
      if (!defaultBranch && (await text(repo, ['rev-parse', '--verify', '--quiet', `refs/remotes/${remote}/${name}`])))
        defaultBranch = name;
  }
  // A branch made from origin/main tracks origin/main, and a bare `git push` of it is refused.
  const upstream =
    Boolean(branch && configured === remote) &&
    (await text(repo, ['config', '--get', `branch.${branch}.merge`])) === `refs/heads/${branch}`;
  const isAgent = identityMatcher(config.owners.agents);
  const who = [await text(repo, ['var', 'GIT_COMMITTER_IDENT']), await text(repo, ['var', 'GIT_AUTHOR_IDENT'])].map(
    (i) => addressOf(i.replace(/ \d+ [+-]\d{4}$/, '')),
  );
  const l: Landing = {
    branch,
    remote,
    defaultBranch,
    upstream,
    signers: config.owners.signers !== null,
    agent: config.owners.agents.length > 0 && who.some(isAgent),
  };
  if (classify && !onDefault(l))
    l.earlier = await earlierChanges(repo, `refs/remotes/${remote}/${defaultBranch}`, classify);
  return l;
}

/** HEAD's own oracle commits since it left `defaultRef`, with every path it changed; null when it has none. */
async function earlierChanges(repo: Repo, defaultRef: string, classify: Classify): Promise<Earlier | null> {
  const head = await text(repo, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  const tip = await text(repo, ['rev-parse', '--verify', '--quiet', defaultRef]);
  const base = head && tip ? await mergeBase(repo, head, tip) : null;
  if (!head || !base || base === head) return null;
  const walked = await rangeChanges(repo, [head, '--not', base]);
  const commits = walked.commits.filter((c) => (walked.changes.get(c) ?? []).some((ch) => isOracle(classify(ch.path))));
  if (!commits.length) return null;
  const paths = (await treeDiff(repo, base, head)).map((c) => c.path);
  return {
    base,
    commits,
    oracle: paths.filter((p) => isOracle(classify(p))),
    rest: paths.filter((p) => !isOracle(classify(p))),
  };
}

/** Whether owners.agents names the author or committer of any of `commits`, or the server's authenticated pusher. */
export async function agentInRange(
  repo: Repo,
  config: Config,
  commits: string[],
  pushers: string[] = [],
): Promise<boolean> {
  if (!config.owners.agents.length) return false;
  const isAgent = identityMatcher(config.owners.agents);
  if (pushers.some(isAgent)) return true;
  if (!commits.length) return false;
  const who = await repo.text(['log', '--no-walk=unsorted', '--stdin', '--format=%ae%n%ce'], {
    input: `${commits.join('\n')}\n`,
  });
  return who.split('\n').some((a) => a && isAgent(a));
}

/** Whether the change goes to the default branch itself (or there is no other to tell it from). */
export function onDefault(l: Landing): boolean {
  return !l.remote || !l.defaultBranch || !l.branch || l.branch === l.defaultBranch;
}

const q = (paths: string[]) => paths.map((p) => shellQuote(p)).join(' ');
const uniq = (...lists: string[][]) => [...new Set(lists.flat())];

/** The push of the current branch, with -u where it does not track its own name yet. */
function push(l: Landing): string {
  return l.upstream || !l.remote || !l.branch
    ? 'git push'
    : `git push -u ${shellQuote(l.remote)} ${shellQuote(l.branch)}`;
}

/** The push of a branch that was rebased or rewritten (its old commits may be on the remote already). */
function forcePush(l: Landing, local = l.branch!): string {
  const to = local === l.branch ? shellQuote(local) : `${shellQuote(local)}:${shellQuote(`refs/heads/${l.branch}`)}`;
  return `git push --force-with-lease -u ${shellQuote(l.remote!)} ${to}`;
}

/** The branch's earlier oracle commits, named for a person. */
const earlierNote = (e: Earlier) =>
  `this branch already changes the oracle in ${e.commits.length === 1 ? 'commit' : 'commits'} ${e.commits.map((c) => c.slice(0, 12)).join(', ')}`;

/** A staged change that mixes: `oracle` paths, and `rest` (production code and free paths). */
export function stagedAdvice(oracle: string[], rest: string[], l: Landing | null): string {
  const e = l?.earlier ?? null;
  if (l?.agent) {
    return [
      `split it: a human owner must make the oracle change (${oracle.join(', ')}); an agent may not commit or push it. Leave it uncommitted for them (they land it on ${l.defaultBranch ?? 'the default branch'} first${l.signers ? ', or sign it on this branch' : ''}) and commit the production code alone${e ? ` (${earlierNote(e)}: a human owner takes those over too, before this branch can land)` : ''}:`,
      `  git commit -m 'production change' -- ${q(rest)}`,
    ].join('\n');
  }
  const oracleCommit = `git commit -m 'oracle change' -- ${q(oracle)}`;
  if (!l || onDefault(l)) {
    return [
      'split it: the oracle change first, committed and pushed on its own (a push may not mix them either), then the production code:',
      `  ${oracleCommit}`,
      `  ${l ? push(l) : 'git push'}`,
      `  git commit -m 'production change' -- ${q(rest)}`,
    ].join('\n');
  }
  // A branch that already changed the oracle is split whole: back to where it left the default branch, everything staged.
  const all = e ? { oracle: uniq(e.oracle, oracle), rest: uniq(e.rest, rest) } : { oracle, rest };
  const reset = e ? [`  git reset --soft ${e.base}`] : [];
  const whole = e
    ? ` (${earlierNote(e)}, so the whole branch is split: its commits since ${l.defaultBranch} become one oracle commit and one production commit)`
    : '';
  // The owner signs the oracle only: a production commit they signed would be vouched for, owing no evidence.
  if (l.signers) {
    return [
      `split it: an owner signs the oracle commit and pushes it to this branch beside the production commit${whole} (owners.signers; run by the owner, with their signing key):`,
      ...reset,
      `  git commit -S -m 'oracle change' -- ${q(all.oracle)}`,
      `  git commit --no-gpg-sign -m 'production change' -- ${q(all.rest)}`,
      `  ${e ? forcePush(l) : push(l)}`,
    ].join('\n');
  }
  const side = `${l.branch}-oracle`;
  return [
    `split it: open a pull request with only the oracle change against ${l.defaultBranch}; rebase this branch once it lands${whole} (a property that fails on ${l.defaultBranch} until this fix lands needs a pending mark on its registry row):`,
    ...reset,
    `  git commit -m 'production change' -- ${q(all.rest)}`,
    `  git commit -m 'oracle change' -- ${q(all.oracle)}`,
    `  git switch -c ${shellQuote(side)} ${shellQuote(`${l.remote}/${l.defaultBranch}`)}`,
    `  git cherry-pick ${shellQuote(l.branch!)}`,
    `  git push -u ${shellQuote(l.remote!)} ${shellQuote(side)}`,
    `  git switch ${shellQuote(l.branch!)}`,
    `once ${side} has landed on ${l.defaultBranch}:`,
    `  git pull --rebase ${shellQuote(l.remote!)} ${shellQuote(l.defaultBranch!)}`,
    `  ${forcePush(l)}`,
  ].join('\n');
}

/**
 * Replaces the whole-range rule's generic advice (mixing/check.ts prints the
 * last oracle commit in `git push <remote> TIP:<branch>`) with `advise(TIP)`,
 * fitted by the enforcement point that knows the remote, branch and pusher.
 */
export async function fitRangeAdvice(
  violations: Violation[],
  advise: (oracleTip: string) => string | Promise<string>,
): Promise<void> {
  for (const v of violations) {
    const tip =
      v.rule === 'mix-range' ? /git push <remote> ([0-9a-f]{40,64}):<branch>/.exec(v.fix ?? '')?.[1] : undefined;
    if (tip) v.fix = await advise(tip);
  }
}

/** A pushed range whose oracle commits come first: up to `oracleTip`, from `base` (where it left the default branch). */
export interface RangeSplit {
  oracleTip: string;
  base: string | null;
  /** What is pushed (a local ref or a commit), and the ref it goes to. */
  local: string;
  remoteRef: string;
}

export function rangeAdvice(s: RangeSplit, l: Landing): string {
  const remote = shellQuote(l.remote ?? 'origin');
  const tip = s.oracleTip.slice(0, 12);
  const note = l.remoteNote ? ` (${l.remoteNote})` : '';
  if (l.agent) {
    return `a human owner must land the oracle commits (up to ${tip}) on ${l.defaultBranch ?? 'the default branch'}${l.signers ? ', or sign them on this branch' : ''}; an agent may not make or push them. Push the production commits once they have landed (rebased onto it).`;
  }
  if (onDefault(l)) {
    return [
      `push the oracle commits on their own first, to be reviewed, then the production commits${note}:`,
      `  git push ${remote} ${s.oracleTip}:${s.remoteRef}`,
      `  git push ${remote} ${s.local}:${s.remoteRef}`,
    ].join('\n');
  }
  const local = /^refs\/heads\//.test(s.local) ? s.local.slice('refs/heads/'.length) : l.branch!;
  // The production commits are replayed unsigned (commit.gpgSign aside): the owner vouches for the oracle only.
  if (l.signers) {
    const why = `an owner signs the oracle commits (up to ${tip}) on this branch with a key in the allowed-signers file (owners.signers); signed, they may share it with the production commits`;
    if (!s.base) return why;
    return [
      `${why} (run by the owner, with their signing key, in a clone that has this branch${note}):`,
      `  git rebase -q -x 'git commit -q --amend --no-edit -S' ${s.base} ${s.oracleTip}`,
      `  git rebase -q --no-gpg-sign --onto HEAD ${s.oracleTip} ${shellQuote(local)}`,
      `  ${forcePush(l, local)}`,
    ].join('\n');
  }
  const side = `${l.branch}-oracle`;
  return [
    `open a pull request with only the oracle commits against ${l.defaultBranch}; rebase this branch once it lands${note}:`,
    `  git push ${remote} ${s.oracleTip}:refs/heads/${shellQuote(side)}`,
    `once ${side} has landed on ${l.defaultBranch}:`,
    `  git pull --rebase ${remote} ${shellQuote(l.defaultBranch!)}`,
    `  ${forcePush(l, local)}`,
  ].join('\n');
}

/**
 * The advice for a range judged in a clone (the gate, check --range): --base
 * names the default branch (origin/main: that remote and branch), HEAD the
 * branch judged; an agent is whoever made a commit of the range, or runs it.
 */
export async function judgedRangeAdvice(
  repo: Repo,
  config: Config,
  baseName: string,
  r: { oracleTip: string; base: string | null; head: string; commits: string[] },
): Promise<string> {
  const full = await text(repo, ['rev-parse', '--symbolic-full-name', '--end-of-options', baseName]);
  const tracking = /^refs\/remotes\/([^/]+)\/(.+)$/.exec(full);
  const known = tracking
    ? { remote: tracking[1], defaultBranch: tracking[2] }
    : full.startsWith('refs/heads/')
      ? { defaultBranch: full.slice('refs/heads/'.length) }
      : {};
  const l = await landingOf(repo, config, known);
  l.agent ||= await agentInRange(repo, config, r.commits);
  const remoteRef = `refs/heads/${l.branch ?? l.defaultBranch ?? 'main'}`;
  return rangeAdvice({ oracleTip: r.oracleTip, base: r.base, local: r.head, remoteRef }, l);
}
