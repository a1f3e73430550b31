// How to land a mixed change, fitted to where it goes and who makes it. On
// the default branch: the oracle first, pushed on its own, then the code. On
// any other branch the gate judges the pull request whole, so the oracle goes
// to the default branch in a pull request of its own (or, with owners.signers,
// an owner signs it on this branch). An agent is never told to make or push
// an oracle change: a human owner must. Every command works when run exactly
// as printed, by the person it is addressed to (test/mixing/*advice*).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { shellQuote } from '../common/text.js';
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { rangeChanges, treeDiff, type RawChange } from '../git/changes.js';
import { commitRecords } from '../git/commits.js';
import { currentBranch, fullRefName, remoteDefaultBranch, remoteNames } from '../git/refs.js';
import { commitOrNull, configValue, identity, mergeBase, type Repo } from '../git/repo.js';
import { treeWith } from '../git/trees.js';
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
  /** Where a feature branch left the default branch (with `classify`), and what it changed since, when that touches an oracle. */
  base?: string | null;
  earlier?: Earlier | null;
  /** The trees the split commits of a staged mix take. */
  trees?: SplitTrees;
  /** Said of `remote` where it is a guess (the server does not know what a clone calls it). */
  remoteNote?: string;
}

/**
 * The split of a staged mix as trees, so each commit holds exactly its part
 * of what was staged: `git commit -- PATHS` would take the working tree's
 * files instead (a partly staged file whole, a `git rm --cached` file not
 * deleted). `oracle` and `rest` are the start (HEAD; `base` for a branch
 * split whole) with only the oracle part or only the rest; `side` the oracle
 * part on `base`, for a pull request of its own.
 */
export interface SplitTrees {
  staged: string;
  oracle: string;
  rest: string;
  side?: string;
  /** Production paths deleted but kept on disk (`git rm --cached`): rebased onto the default branch, which has them, git would refuse to write over them (or overwrite them, ignored). */
  kept?: string[];
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
  const branch = known.branch ?? (await currentBranch(repo));
  const remotes = await remoteNames(repo);
  const configured = branch ? ((await configValue(repo, `branch.${branch}.remote`)) ?? '') : '';
  const remote = known.remote ?? (configured || (remotes.includes('origin') ? 'origin' : (remotes[0] ?? null)));
  let defaultBranch: string | null = known.defaultBranch ?? null;
  if (remote && !defaultBranch) {
    defaultBranch = await remoteDefaultBranch(repo, remote);
    for (const name of ['main', 'master'])
      if (!defaultBranch && (await commitOrNull(repo, `refs/remotes/${remote}/${name}`))) defaultBranch = name;
  }
  // A branch made from origin/main tracks origin/main, and a bare `git push` of it is refused.
  const upstream =
    Boolean(branch && configured === remote) &&
    (await configValue(repo, `branch.${branch}.merge`)) === `refs/heads/${branch}`;
  const isAgent = identityMatcher(config.owners.agents);
  const who = [await identity(repo, 'committer'), await identity(repo, 'author')].map((i) => addressOf(i ?? ''));
  const l: Landing = {
    branch,
    remote,
    defaultBranch,
    upstream,
    signers: config.owners.signers !== null,
    agent: config.owners.agents.length > 0 && who.some(isAgent),
  };
  if (classify && !onDefault(l)) {
    const head = await commitOrNull(repo, 'HEAD');
    const tip = await commitOrNull(repo, `refs/remotes/${remote}/${defaultBranch}`);
    l.base = head && tip ? await mergeBase(repo, head, tip) : null;
    l.earlier = head && l.base ? await earlierChanges(repo, head, l.base, classify) : null;
  }
  return l;
}

/** Where a staged mix lands, with the trees of its split: written from `changes` (HEAD to the index), never from the working tree. */
export async function stagedLanding(
  repo: Repo,
  config: Config,
  changes: RawChange[],
  classify: Classify,
): Promise<Landing> {
  const l = await landingOf(repo, config, {}, classify);
  const head = await commitOrNull(repo, 'HEAD');
  const staged = await treeWith(repo, head, changes);
  // A branch split whole starts where it left the default branch (an agent does not take it apart).
  const e = l.agent ? null : (l.earlier ?? null);
  const all = e ? await treeDiff(repo, e.base, staged) : changes;
  const oracle = all.filter((c) => isOracle(classify(c.path)));
  const rest = all.filter((c) => !isOracle(classify(c.path)));
  const from = e ? e.base : head;
  l.trees = { staged, oracle: await treeWith(repo, from, oracle), rest: await treeWith(repo, from, rest) };
  // The branch changed no oracle since `base` (or is split from there): the oracle part applies to it as it is.
  if (!onDefault(l) && !l.signers && !l.agent && l.base) {
    l.trees.side = e ? l.trees.oracle : await treeWith(repo, l.base, oracle);
    const root = repo.root;
    if (root)
      l.trees.kept = rest.filter((c) => c.status === 'D' && existsSync(path.join(root, c.path))).map((c) => c.path);
  }
  return l;
}

/** HEAD's own oracle commits since `base`, with every path it changed; null when it has none. */
async function earlierChanges(repo: Repo, head: string, base: string, classify: Classify): Promise<Earlier | null> {
  if (base === head) return null;
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
  const who = await commitRecords(repo, commits, '%ae%x1f%ce');
  return who.some((r) => r.split('\x1f').some((a) => a && isAgent(a)));
}

/** Whether the change goes to the default branch itself (or there is no other to tell it from). */
export function onDefault(l: Landing): boolean {
  return !l.remote || !l.defaultBranch || !l.branch || l.branch === l.defaultBranch;
}

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

/**
 * Where the oracle goes first to the default branch: a compiled property for
 * what the fix adds does not build there and takes its whole package down.
 */
const compiledNote = (l: Landing) =>
  `in Go, Rust or TypeScript a property that calls what this fix adds does not build on ${l.defaultBranch} and breaks its whole package there: land it with the fix in one pull request, the oracle commit signed by an owner (owners.signers), or put it in a package of its own or behind a build tag`;

/** Sets the index to a tree of the split, leaving the working tree alone. */
const readTree = (tree: string) => `  git read-tree ${tree}`;

/**
 * A staged change that mixes, its `oracle` paths named. Each printed commit takes one tree of `l.trees`, so it holds
 * exactly its part of what was staged, whatever the working tree holds.
 */
export function stagedAdvice(oracle: string[], l: Landing | null): string {
  const t = l?.trees;
  if (!l || !t) return 'split it: commit the oracle change and the production code separately';
  const e = l.earlier ?? null;
  const exact = '; each commit takes its part of what you staged (git read-tree), your working tree is left alone';
  if (l.agent) {
    return [
      `split it: a human owner must make the oracle change (${oracle.join(', ')}); an agent may not commit or push it. Leave it staged for them (they land it on ${l.defaultBranch ?? 'the default branch'} first${l.signers ? ', or sign it on this branch' : ''}) and commit the production code alone${e ? ` (${earlierNote(e)}: a human owner takes those over too, before this branch can land)` : ''}${exact}:`,
      readTree(t.rest),
      "  git commit -m 'production change'",
      readTree(t.staged),
    ].join('\n');
  }
  if (onDefault(l)) {
    // A clone with no remote yet (a new project) has nothing to push to: the two commits alone keep them apart.
    return [
      `split it: the oracle change first, committed${l.remote ? ' and pushed' : ''} on its own (a push may not mix them either), then the production code${exact}:`,
      readTree(t.oracle),
      "  git commit -m 'oracle change'",
      ...(l.remote ? [`  ${push(l)}`] : []),
      readTree(t.staged),
      "  git commit -m 'production change'",
    ].join('\n');
  }
  // A branch that already changed the oracle is split whole: back to where it left the default branch, everything staged.
  const reset = e ? [`  git reset --soft ${e.base}`] : [];
  const whole = e
    ? ` (${earlierNote(e)}, so the whole branch is split: its commits since ${l.defaultBranch} become one oracle commit and one production commit)`
    : '';
  // The owner signs the oracle only: a production commit they signed would be vouched for, owing no evidence.
  if (l.signers) {
    return [
      `split it: an owner signs the oracle commit and pushes it to this branch beside the production commit${whole} (owners.signers; run by the owner, with their signing key)${exact}:`,
      ...reset,
      readTree(t.oracle),
      "  git commit -S -m 'oracle change'",
      readTree(t.staged),
      "  git commit --no-gpg-sign -m 'production change'",
      `  ${e ? forcePush(l) : push(l)}`,
    ].join('\n');
  }
  if (!t.side || !l.base)
    return `split it: the oracle change goes to ${l.defaultBranch} in a pull request of its own; fetch ${l.remote}/${l.defaultBranch} (this clone shares no history with it) and commit again for the commands`;
  // The oracle pull request is one commit on `base`, made without switching branches (nothing in the working tree is in the way).
  const side = `${l.branch}-oracle`;
  // Files the rebase would write over are put aside for it (--all: an ignored one too).
  const kept = t.kept ?? [];
  return [
    `split it: open a pull request with only the oracle change against ${l.defaultBranch}; rebase this branch once it lands${whole} (a property that fails on ${l.defaultBranch} until this fix lands needs a pending mark on its registry row; ${compiledNote(l)})${exact}:`,
    ...reset,
    readTree(t.rest),
    "  git commit -m 'production change'",
    readTree(t.staged),
    "  git commit -m 'oracle change'",
    `  git push ${shellQuote(l.remote!)} "$(git commit-tree ${t.side} -p ${l.base} -m 'oracle change')":${shellQuote(`refs/heads/${side}`)}`,
    `once ${side} has landed on ${l.defaultBranch}:`,
    ...(kept.length ? [`  git stash push --all -- ${kept.map((p) => shellQuote(p)).join(' ')}`] : []),
    `  git pull --rebase --autostash ${shellQuote(l.remote!)} ${shellQuote(l.defaultBranch!)}`,
    ...(kept.length ? ['  git stash pop'] : []),
    `  ${forcePush(l)}`,
  ].join('\n');
}

/**
 * The whole-range advice where the oracle commits do not all come first, as
 * the whole-range rule (commits.ts) prints it for whoever runs it; `reorderAdvice` fits it to
 * an agent, who may do none of it.
 */
export const REORDER_ADVICE =
  'reorder the commits so the oracle commits come first (git rebase -i), push those on their own to be reviewed, then the production commits (or an owner sets mix.range: allow)';

/**
 * Replaces the whole-range rule's generic advice (commits.ts prints the
 * last oracle commit in `git push <remote> TIP:<branch>`) with `advise(TIP)`,
 * fitted by the enforcement point that knows the remote, branch and pusher;
 * the reorder advice with `reorder(ORACLE PATHS)`, where it gives one.
 */
export async function fitRangeAdvice(
  violations: Violation[],
  advise: (oracleTip: string) => string | Promise<string>,
  reorder?: (oracle: string[]) => string | Promise<string>,
): Promise<void> {
  for (const v of violations) {
    if (v.rule !== 'mix-range') continue;
    const tip = /git push <remote> ([0-9a-f]{40,64}):<branch>/.exec(v.fix ?? '')?.[1];
    if (tip) v.fix = await advise(tip);
    else if (reorder && v.fix === REORDER_ADVICE)
      v.fix = await reorder((v.detail ?? []).filter((d) => d.zone !== 'src').map((d) => d.path));
  }
}

/**
 * The reorder advice for who pushes: an agent may not commit, push or reorder
 * an oracle change, nor relax mix.range (the owners' config), so it is told
 * what it may do (take them out, push the production commits) and what to
 * ask a human owner.
 */
export function reorderAdvice(oracle: string[], l: Landing): string {
  if (!l.agent) return REORDER_ADVICE;
  const paths = oracle.length ? ` (${oracle.join(', ')})` : '';
  return `the oracle changes of this range${paths} are a human owner's to make: an agent may not commit, push or reorder them, nor relax the rule. Take them out of this branch (git rebase -i: drop each commit that changes them, or edit it to leave them out), push the production commits on their own, and ask a human owner to land the oracle change on ${l.defaultBranch ?? 'the default branch'}${l.signers ? ' or to sign it on this branch' : ''}.`;
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
    `open a pull request with only the oracle commits against ${l.defaultBranch}; rebase this branch once it lands${note} (${compiledNote(l)}):`,
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
  const l = await judgedLanding(repo, config, baseName, r.commits);
  const remoteRef = `refs/heads/${l.branch ?? l.defaultBranch ?? 'main'}`;
  return rangeAdvice({ oracleTip: r.oracleTip, base: r.base, local: r.head, remoteRef }, l);
}

/** The reorder advice for a range judged in a clone, fitted as `judgedRangeAdvice` fits its own. */
export async function judgedReorderAdvice(
  repo: Repo,
  config: Config,
  baseName: string,
  r: { oracle: string[]; commits: string[] },
): Promise<string> {
  return reorderAdvice(r.oracle, await judgedLanding(repo, config, baseName, r.commits));
}

async function judgedLanding(repo: Repo, config: Config, baseName: string, commits: string[]): Promise<Landing> {
  const full = (await fullRefName(repo, baseName)) ?? '';
  const tracking = /^refs\/remotes\/([^/]+)\/(.+)$/.exec(full);
  const known = tracking
    ? { remote: tracking[1], defaultBranch: tracking[2] }
    : full.startsWith('refs/heads/')
      ? { defaultBranch: full.slice('refs/heads/'.length) }
      : {};
  const l = await landingOf(repo, config, known);
  l.agent ||= await agentInRange(repo, config, commits);
  return l;
}
