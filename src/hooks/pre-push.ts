// `patchwarden pre-push REMOTE URL`: git's pre-push hook. For each pushed ref
// it judges the range the remote does not have yet, by the config on that
// range's base side: the mixing rule per commit and over the range, the
// fixture lock at the pushed tip, and the revert check (pre_push.revert).
import { parse } from '../common/args.js';
import { emit, violationsOutcome } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { judgingConfig } from '../config/judging.js';
import type { Config } from '../config/schema.js';
import { counted } from '../common/text.js';
import type { Violation } from '../common/verdict.js';
import { rangeChanges, type RawChange } from '../git/changes.js';
import { readFileAt } from '../git/objects.js';
import { notOnRemote, remoteHoldsRefs, tracksRemote } from '../git/history.js';
import { commitOrNull, commitsOrNull, isZeroId, mergeBase, openRepo, type Repo } from '../git/repo.js';
import { fitRangeAdvice, type Landing, landingOf, rangeAdvice, reorderAdvice } from '../mixing/advice.js';
import { BASELINE_FILE, CONFIG_FILE } from '../zones/names.js';
import { clockNow } from '../freeze/clock.js';
import { commitWith } from '../properties/tree.js';
import { OVERRIDE_TRAILER, overrideLines, type Override } from '../owners/override.js';
import { revertCheck, type RevertResult, type RevertStatus } from '../properties/revert.js';
import { outputBlock, revertViolation } from '../properties/verdict.js';
import { stateLines } from '../properties/report.js';
import type { InvariantVerdict } from '../properties/states.js';
import { containedSoFar } from '../runner/contain.js';
import { sealedCalls, sealedSoFar } from '../properties/sealed/env.js';
import { fenceLines, fenceSoFar } from '../properties/fence.js';
import { judgeTamper } from '../tamper/judge.js';
import { Facts } from '../judge/facts.js';
import { runPlan, type Plan } from '../judge/rule.js';
import { fixturesRule } from '../judge/rules/fixtures.js';
import { guardFileRule } from '../judge/rules/guard-file.js';
import { mixingRule } from '../judge/rules/mixing.js';
import { overrideRule } from '../judge/rules/override.js';
import { ownersRule } from '../judge/rules/owners.js';
import { symlinkRule } from '../judge/rules/symlink.js';
import { tamperRule } from '../judge/rules/tamper.js';
import { classifierFor } from '../config/classifier.js';
import { ACK_FILE, refactorExemption } from '../refactors/ack.js';
import { frameworkPush, pushesOneRef } from './framework-push.js';
import { parseRefLines, readHookInput } from './ref-lines.js';
import { type RemoteTips, type RevertBase, revertStart } from './push-target.js';

export const help = `usage: patchwarden pre-push REMOTE URL [--format text|json|github] [--config PATH] [-C DIR]

The pre-push hook. git gives it one line per pushed ref on stdin:
"<local ref> <local sha> <remote ref> <remote sha>". For each ref it judges
the commits the remote lacks (on that ref and on every branch of it this
clone has fetched), by the config on the remote's default branch, as the
server hook judges by its judging branch (else by the range's base side):
  - the mixing rule on each commit and on the range as a whole (mix.range)
  - the fixture lock at the pushed tip
  - the tamper layer on the lines the range adds to production code
  - the revert check (pre_push.revert, default true; needs properties.command),
    last, and not run once another layer refused any ref of the push. Its diff
    starts at the merge base with the branch the pushed one merges into, read
    from the remote at push time, as the gate's --base: the upstream on the
    same remote where that is another branch, else pre_push.base, else the
    remote's default branch; where the remote already holds the branch past
    that point (a branch pushed again without a rebase, develop), where the
    range starts. Without the remote it says so and starts where the range does.
A new branch is judged from its merge-base with the remote's default branch
(REMOTE/HEAD, else REMOTE/main or REMOTE/master; else every commit no
remote-tracking ref of REMOTE has). The first push of a history into a remote
with no branch of it passes: there is no base side to judge it by yet.
Deleting a ref passes. Under the pre-commit framework, which reads git's lines
itself, the ref it names in PRE_COMMIT_* variables is judged (the first one).

  --config PATH   judge by this config file instead of the base side's

exit 0 lets the push through; anything else stops it.`;

export interface PushedRef {
  localRef: string;
  localSha: string;
  remoteRef: string;
  remoteSha: string;
}

/** git's pre-push input: one `<local ref> <local sha> <remote ref> <remote sha>` line per ref. */
export function parsePushLines(text: string): PushedRef[] {
  return parseRefLines(text, ['localRef', 'localSha', 'remoteRef', 'remoteSha'], ['localSha', 'remoteSha']);
}

interface Range {
  /** The base side: what the remote has (or the merge-base with it); null for a push of a whole new history. */
  base: string | null;
  /** What rev-list excludes: the base and what the remote's other branches hold, or every ref of the remote. */
  exclude: string[] | null;
  /** The first push of a history into a remote that has no branch of it. */
  first: boolean;
  /** Where the rules come from when there is no base: the remote's default branch, when this clone has it. */
  judge?: string;
}

/** Where this clone keeps the remote's default branch, in the order asked: REMOTE/HEAD, else main, else master. */
const defaultRefs = (remote: string) => ['HEAD', 'main', 'master'].map((b) => `refs/remotes/${remote}/${b}`);

/**
 * The tip of the remote's default branch as this clone last fetched it, and
 * the commit each pushed id names (null: none), from one git process: what is
 * pushed is here already, so no fetch of a later ref's target changes it.
 */
async function knownCommits(repo: Repo, remote: string, pushed: PushedRef[]) {
  const ids = await commitsOrNull(repo, [...defaultRefs(remote), ...pushed.map((r) => r.localSha)]);
  const main = ids.slice(0, 3).find((id) => id) ?? null;
  return { main, tips: new Map(pushed.map((r, i) => [r.localSha, ids[3 + i]])) };
}

/** Where the range of a pushed tip starts. */
async function rangeOf(repo: Repo, remote: string, ref: PushedRef, tip: string): Promise<Range> {
  // Resolved here, not once per push: a target fetched for an earlier ref may bring the remote's commit.
  // (A new ref's all-zero id names no commit.)
  const [known, ...defaults] = await commitsOrNull(repo, [ref.remoteSha, ...defaultRefs(remote)]);
  if (known) {
    const base = await mergeBase(repo, known, tip);
    if (base) return { base, exclude: [base, `--remotes=${remote}`], first: false };
  }
  let judge = known ?? undefined;
  for (const id of defaults) {
    judge ??= id ?? undefined;
    const base = id ? await mergeBase(repo, id, tip) : null;
    if (base) return { base, exclude: [base, `--remotes=${remote}`], first: false };
  }
  // No default branch to measure from: every commit no ref of this remote has.
  const fresh = await notOnRemote(repo, tip, remote);
  if (!fresh.length) return { base: tip, exclude: [tip], first: false }; // the remote has it all already
  const parent = await commitOrNull(repo, `${fresh[0]}^`);
  if (parent) return { base: parent, exclude: [`--remotes=${remote}`], first: false };
  // A whole history with no base side. Into a remote that holds nothing (the
  // first push of a repository), there are no rules yet to judge it by; next
  // to branches of that remote, it is judged whole, by the remote's default
  // branch where this clone has it (else by its own tip's rules).
  if (await tracksRemote(repo, remote)) return { base: null, exclude: null, first: false, judge };
  // Nothing of this remote is known here (a URL, a remote never fetched): only
  // the remote can say whether it is empty; a push beside refs this clone has
  // not seen cannot be judged (it could replace a branch with anything).
  if (await remoteHoldsRefs(repo, remote)) {
    throw new CannotJudge(
      `${remote} holds refs this clone has never fetched, so this push cannot be judged against them; fetch them first through a named remote (git remote add NAME ${remote}; git fetch NAME), then push to NAME`,
    );
  }
  return { base: null, exclude: null, first: true };
}

interface RefVerdict {
  local_ref: string;
  remote_ref: string;
  tip: string | null;
  base: string | null;
  commits: string[];
  revert: RevertStatus | null;
  /** Owner override commits honoured (Patchwarden-Override). */
  overrides?: Override[];
  /** The owner's row that let a refactor through without a property run. */
  acknowledged?: { diff: string; owner: string; reason: string };
  /** Whether the diff owed a fixed case, each invariant's state and cases, the invariants pending under a mark. */
  evidence?: { owed: boolean; why: string } | null;
  states?: InvariantVerdict[];
  pending?: string[];
  /** Why the properties did not run, where a cheaper layer refused first. */
  properties?: string;
  /** Where the revert check's diff starts: the merge base with the branch's target, or the range's base and why. */
  revert_base?: RevertBase;
  violations: Violation[];
}

/** A ref's revert check, run once every ref's cheaper layers are judged. */
interface RevertJob {
  v: RefVerdict;
  config: Config;
  /**
   * The base side the check reverts to (with owners' overrides), the tree the runs are built on
   * (the target's tip, as the gate's --base; else `from`), and the commit whose refactor rows count.
   */
  from: string;
  onto: string;
  base: string;
}

/** The gate's layer names for rule ids: what a "not run" line names. */
function layerOf(rule: string): string {
  if (rule.startsWith('mix') || rule === 'symlink') return 'mixing';
  return rule.startsWith('owners') ? 'owners' : rule;
}

/** One ref's revert check (the same range judged once per push), its verdict put on the ref. */
async function revertRef(
  repo: Repo,
  { v, config, from, onto, base }: RevertJob,
  reverted: Map<string, RevertResult>,
  say: (line: string) => void,
): Promise<void> {
  const key = `${from} ${onto} ${v.tip}`;
  if (!reverted.has(key)) {
    const r = await revertCheck(repo, config, from, v.tip!, {
      progress: say,
      onto,
      now: clockNow(),
      exemption: (patch, kept) => refactorExemption(repo, config, { from, base, head: v.tip! }, patch, kept),
    });
    reverted.set(key, r);
    if (r.acknowledged)
      say(
        `revert check: ${r.digest!.slice(0, 12)} is acknowledged as a refactor by ${r.acknowledged.owner} (${ACK_FILE}): ${r.acknowledged.reason}`,
      );
    else if (r.states.length) say(`revert check ${r.status}: ${r.reason}\n${stateLines(r).join('\n')}`);
    const refusal = revertViolation(r);
    if (refusal) {
      const output = outputBlock(r);
      if (output) say(output);
      v.violations.push(refusal);
    }
  }
  const r = reverted.get(key)!;
  Object.assign(v, { revert: r.status, evidence: r.evidence, states: r.states, pending: r.pending });
  if (r.acknowledged) v.acknowledged = r.acknowledged;
}

/**
 * The engine's rules at a pushed tip: a guard file that does not parse stops
 * the rules that would read it; the owners, mixing and symlink rules read
 * none and are judged beside it (a link that carries a zone across is named
 * with the mixing it makes, as the gate's mixing row names it).
 */
const PUSH_PLAN: Plan = [
  [ownersRule, mixingRule, symlinkRule, guardFileRule],
  [fixturesRule, tamperRule],
];

/**
 * The facts of a pushed ref's range, `tip` less what `exclude` reaches: its
 * commits less the adoption baseline at `judgeRev`, the overrides they claim
 * judged against `base`, and what the rules read of them (the owners verdict,
 * with no admission to the range, and the links, are the facts' own).
 */
function refFacts(
  repo: Repo,
  config: Config,
  v: RefVerdict,
  range: { tip: string; base: string | null; exclude: string[]; judgeRev: string | null },
): Facts {
  const { tip, base, exclude, judgeRev } = range;
  const facts: Facts = new Facts({
    point: 'pre-push',
    repo,
    config,
    tip,
    where: `${v.local_ref} at ${tip.slice(0, 12)}`,
    classify: () => classifierFor(repo, config),
    now: clockNow(),
    walk: {
      read: () =>
        rangeChanges(repo, [tip, ...(exclude.length ? ['--not', ...exclude] : [])], { trailer: OVERRIDE_TRAILER }),
      exclude,
      // An override is judged against the range's merge base, where it has one.
      start: exclude[0] === base ? base : null,
      judgeRev,
    },
    tamper: () => judgeTamper(repo, config, { from: base, to: tip, judgeRev }, facts.classify()),
  });
  return facts;
}

/** The engine's rules at the pushed tip, over the ref's commits and what they change and add. */
async function cheapLayers(
  facts: Facts,
  v: RefVerdict,
  base: string | null,
  landing: () => Promise<Landing>,
  say: (line: string) => void,
): Promise<void> {
  const found = await runPlan(facts, PUSH_PLAN);
  // The whole-range advice's commands, for this remote and ref, fitted to the branch and the pusher.
  await fitRangeAdvice(
    found,
    async (oracleTip) => rangeAdvice({ oracleTip, base, local: v.local_ref, remoteRef: v.remote_ref }, await landing()),
    async (oracle) => reorderAdvice(oracle, await landing()),
  );
  v.violations.push(...found);
  facts.takeNotes().forEach(say);
}

/** The revert check a ref owes, from where its branch leaves its target; null where none runs (and why, said). */
async function revertJob(
  repo: Repo,
  config: Config,
  v: RefVerdict,
  push: {
    remote: string;
    ref: PushedRef;
    tip: string;
    base: string | null;
    /** Where the rules come from. */
    judgeRev: string | null;
    overrides: Override[];
    overrideChanges: RawChange[];
  },
  say: (line: string) => void,
  targets: Map<string, Promise<RemoteTips>>,
): Promise<RevertJob | null> {
  const { remote, ref, tip, base, judgeRev, overrides, overrideChanges } = push;
  if (!config.pre_push.revert) return null;
  if (!config.properties.command) {
    say(`revert check skipped for ${ref.remoteRef}: properties.command is not set in ${config.source}`);
    return null;
  }
  if (!base) {
    say(`revert check skipped for ${ref.remoteRef}: a history with no base commit to revert to`);
    return null;
  }
  // The diff starts where the branch leaves its target, as the gate's does: a rebase brings none of the target's changes.
  const start = await revertStart(
    repo,
    config,
    { remote, localRef: ref.localRef, remoteRef: ref.remoteRef, tip, rangeBase: base },
    targets,
    say,
  );
  v.revert_base = start;
  // An owner's override counts as the base's: the other commits are judged as if it were not there.
  const withOwn = (rev: string) =>
    overrides.length ? commitWith(repo, rev, overrideChanges, "the base plus the owners' overrides") : rev;
  const from = await withOwn(start.from);
  if (start.tip) return { v, config, from, onto: await withOwn(start.tip), base: start.tip };
  // A branch the remote held before adoption has no config where the push starts: the runs build on the
  // commit the rules come from, whose registry, signers and refactor rows judge it (as the gate's --base).
  if (judgeRev && judgeRev !== start.from && !(await readFileAt(repo, start.from, CONFIG_FILE))) {
    say(
      `${ref.remoteRef}: ${start.from.slice(0, 12)} has no ${CONFIG_FILE} (it predates adoption): the revert check builds on ${judgeRev.slice(0, 12)}, where the rules come from`,
    );
    return { v, config, from, onto: await withOwn(judgeRev), base: judgeRev };
  }
  return { v, config, from, onto: from, base };
}

/**
 * The property runs come last, and only while nothing refused yet: a refused push stays refused whatever
 * they say. A range already checked for another ref costs no run.
 */
async function runChecks(repo: Repo, checks: RevertJob[], verdicts: RefVerdict[], say: (line: string) => void) {
  const reverted = new Map<string, RevertResult>();
  for (const c of checks) {
    const refused = [...new Set(verdicts.flatMap((v) => v.violations.map((x) => layerOf(x.rule))))];
    if (refused.length && !reverted.has(`${c.from} ${c.onto} ${c.v.tip}`)) {
      c.v.properties = `not run: ${refused.join(', ')} refused`;
      say(`${c.v.remote_ref}: properties: ${c.v.properties}`);
      continue;
    }
    await revertRef(repo, c, reverted, say);
  }
}

export async function run(args: string[]): Promise<number> {
  const { common, positionals } = parse(args, {}, true);
  const repo = await openRepo(common.dir);
  const say = (line: string) => process.stderr.write(`patchwarden: ${line}\n`);
  const input = await readHookInput();
  const framework = input.trim() ? null : await frameworkPush(repo);
  // A push of one ref loses nothing; of several, the others are not judged here.
  if (framework && pushesOneRef() !== true)
    say(
      `judging ${framework.lines.split(' ')[0]} only: the pre-commit framework hands its hooks the first pushed ref, not git's ref lines`,
    );
  const remote = positionals[0] ?? framework?.remote;
  if (!remote) throw new UsageError('pre-push wants the remote name and URL, as git gives them to the hook');
  const pushed = parsePushLines(framework?.lines ?? input);
  const verdicts: RefVerdict[] = [];
  const { main: judgingTip, tips } = await knownCommits(repo, remote, pushed);
  const checks: RevertJob[] = [];
  const targets = new Map<string, Promise<RemoteTips>>();
  for (const ref of pushed) {
    const v: RefVerdict = {
      local_ref: ref.localRef,
      remote_ref: ref.remoteRef,
      tip: null,
      base: null,
      commits: [],
      revert: null,
      violations: [],
    };
    verdicts.push(v);
    if (isZeroId(ref.localSha)) continue; // a deletion passes
    v.tip = tips.get(ref.localSha) ?? null;
    if (!v.tip) continue; // a tag of a tree or a blob: no commits to judge
    const range = await rangeOf(repo, remote, ref, v.tip);
    v.base = range.base;
    if (range.first) {
      say(
        `${ref.remoteRef}: the first push of this history to ${remote}; nothing on the remote to judge it by yet, so it passes and becomes the base later pushes are judged from`,
      );
      continue;
    }
    // The remote's default branch's rules judge every branch, as the server's judging branch does;
    // without one, the base side's (a whole new history: its own tip's). A config there that does
    // not parse is replaced by its last one that does, so a correction can land.
    const rules = await judgingConfig(repo, common.config, judgingTip ?? range.base ?? range.judge ?? v.tip, say);
    const { config } = rules;
    const judgeRev = rules.rev;
    const facts = refFacts(repo, config, v, { tip: v.tip, base: range.base, exclude: range.exclude ?? [], judgeRev });
    const [judged, baselined, granted] = await Promise.all([facts.judged(), facts.baselined(), facts.overrides()]);
    const commits = judged!.commits;
    const overrides = granted.granted;
    const overrideChanges = overrides.flatMap((o) => judged!.changes.get(o.commit) ?? []);
    v.commits = commits;
    if (overrides.length) v.overrides = overrides;
    for (const l of overrideLines(overrides)) say(`${ref.remoteRef}: ${l}`);
    if (baselined.size)
      say(
        `${ref.remoteRef}: ${counted(baselined.size, 'commit')} of the adoption baseline (${BASELINE_FILE}) not judged`,
      );
    v.violations.push(...(await runPlan(facts, [[overrideRule]])));
    if (!commits.length) continue;
    const landing = () => landingOf(repo, config, { branch: ref.remoteRef.replace(/^refs\/heads\//, ''), remote });
    await cheapLayers(facts, v, range.base, landing, say);
    const job = await revertJob(
      repo,
      config,
      v,
      { remote, ref, tip: v.tip, base: range.base, judgeRev, overrides, overrideChanges },
      say,
      targets,
    );
    if (job) checks.push(job);
  }
  await runChecks(repo, checks, verdicts, say);
  // How the sides of a check under revert.jobs: 2 were kept apart, as revert-check and the gate say it.
  for (const l of fenceLines()) say(l);
  const many = verdicts.filter((v) => v.tip).length > 1;
  const violations = verdicts.flatMap((v) =>
    v.violations.map((x) => (many ? { ...x, message: `${v.remote_ref}: ${x.message}` } : x)),
  );
  return emit(
    common.format,
    violationsOutcome(
      violations,
      {
        refs: verdicts.map(({ violations: _, ...rest }) => rest),
        contained: containedSoFar(),
        sealed: sealedSoFar(),
        sealed_calls: sealedCalls(),
        fence: fenceSoFar(),
      },
      'patchwarden: pre-push ok',
    ),
  );
}
