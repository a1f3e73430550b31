// The rules of `patchwarden pre-receive` over a push being read
// (pre-receive.ts): the judging branch's config, then every rule on every
// pushed ref, and the verdict.
import type { Common } from '../common/args.js';
import { emit } from '../common/output.js';
import { counted } from '../common/text.js';
import { violationLines } from '../common/render.js';
import type { Violation } from '../common/verdict.js';
import { explicitJudge, judgeOrLastValid } from '../config/judge.js';
import type { Config } from '../config/schema.js';
import { BASELINE_FILE, CONFIG_FILE } from '../zones/names.js';
import { subjects } from '../git/history.js';
import { isZeroId, type Repo } from '../git/repo.js';
import { agentInRange, fitRangeAdvice, rangeAdvice, reorderAdvice, type Landing } from '../mixing/advice.js';
import { untouchedLines } from '../owners/rule.js';
import { overrideLines, type Override, type Overrides } from '../owners/override.js';
import { authenticatedPusher, TYPED_IDENTITY } from '../owners/pusher.js';
import { Facts } from '../judge/facts.js';
import { runPlan, type Plan } from '../judge/rule.js';
import { fixturesRule } from '../judge/rules/fixtures.js';
import { freezeRule } from '../judge/rules/freeze.js';
import { guardFileRule } from '../judge/rules/guard-file.js';
import { mixingRule } from '../judge/rules/mixing.js';
import { overrideRule } from '../judge/rules/override.js';
import { ownersRule } from '../judge/rules/owners.js';
import { symlinkRule } from '../judge/rules/symlink.js';
import { tamperRule } from '../judge/rules/tamper.js';
import { judgingBranch, unguardedRefusal, type JudgingBranch } from './judging-branch.js';
import type { Pushed, RefUpdate, readPush } from './pre-receive.js';
import { capsFor, costViolations, pushCost, type Caps } from './pre-receive-cost.js';
import { PushFacts } from './pre-receive-facts.js';

interface RefVerdict extends RefUpdate {
  commits: string[];
  violations: Violation[];
  /** Owner override commits honoured: left out of the mixing rule. */
  overrides: Override[];
  /** Owner-signed oracle commits of this ref whose security key saw no touch. */
  untouched?: string[];
}

/** What is wrong with a ref's command itself: a second command for one ref, a deletion the config refuses. */
function commandFaults(v: RefVerdict, once: Set<string>, branch: JudgingBranch, config: Config): Violation[] {
  const out: Violation[] = [];
  // git's own client never sends two commands for one ref; a hand-made push
  // that does would be judged on one and could land the other.
  if (once.has(v.ref))
    out.push({
      rule: 'duplicate-ref',
      paths: [],
      message: `${v.ref} is updated by more than one command of this push; only one of them could land, so none is judged and the push is refused`,
      fix: 'push each ref once (git push does)',
    });
  once.add(v.ref);
  if (isZeroId(v.new) && v.ref !== branch.ref && config.pre_receive.deletions === 'refuse')
    out.push({
      rule: 'delete',
      paths: [],
      message: `deleting ${v.ref} is refused (pre_receive.deletions: refuse in ${config.source})`,
      fix: `keep ${v.ref}; where deleting refs is wanted, pre_receive.deletions: allow in ${CONFIG_FILE} on ${branch.ref} lets deletions through`,
    });
  return out;
}

/** Every pushed ref's verdict, from the push's facts. */
export async function judgePush(facts: PushFacts): Promise<RefVerdict[]> {
  const { config, branch } = facts;
  const branchFaults = await facts.branchFaults();
  // Commits that predate the guard (the adoption baseline on the judging branch) are left out of the commit rules.
  const old = await facts.baselined();
  if (old.size)
    process.stderr.write(
      `patchwarden: ${counted(old.size, 'commit')} of the adoption baseline (${BASELINE_FILE}) not judged\n`,
    );
  const [judged, overrides] = await Promise.all([facts.judged(), facts.overrides()]);
  const once = new Set<string>();
  const verdicts: RefVerdict[] = facts.updates.map((u, i) => ({
    ...u,
    commits: judged.byUpdate[i],
    violations: [],
    // An owner's override commit, admitted for its ref's range, is left out of the mixing rule.
    overrides: overrides[i].granted,
  }));
  for (const [i, v] of verdicts.entries())
    v.violations.push(...branchFaults[i], ...commandFaults(v, once, branch, config));
  const [push, owners] = await Promise.all([facts.walk(), facts.owners()]);
  const blamed = new Set<string>();
  for (const [i, v] of verdicts.entries()) {
    if (isZeroId(v.new)) continue;
    v.untouched = v.commits.filter((c) => owners.untouched.includes(c));
    v.violations.push(...(await judgeRef(facts, push, { v, overrides: overrides[i] }, blamed)));
  }
  return verdicts;
}

/**
 * The engine's rules at a ref's new tip: a guard file that does not parse
 * stops the rules that would read it; the ledger and the fixture lock are
 * read only where the ref's new commits touch them (what no new commit
 * touched is what the server already holds and has judged); the tamper
 * verdict on what the ref adds, and the links its commits bring.
 */
const TIP_PLAN: Plan = [[guardFileRule], [freezeRule, fixturesRule, tamperRule, symlinkRule]];

/** The overrides' refusals, owners and mixing, per commit and over the ref's commits, whatever its tip holds. */
const MIX_PLAN: Plan = [[overrideRule, ownersRule, mixingRule]];

/** The push's owner faults on a ref's commits: each is named once, on the first ref that brings its commit. */
function firstBlame(faults: Map<string, Violation>, v: RefVerdict, blamed: Set<string>): Violation[] {
  const out: Violation[] = [];
  for (const c of faults.size ? v.commits : []) {
    const fault = faults.get(c);
    if (fault && !blamed.has(c)) {
      out.push(fault);
      blamed.add(c);
    }
  }
  return out;
}

/**
 * The rules on one pushed ref, over every commit new to it (a commit that
 * two refs bring is judged for both): mixing per commit and over the ref's
 * commits, links that leave their zone, the oracle files at its tip, and the
 * tamper layer on what the ref adds.
 */
async function judgeRef(
  facts: PushFacts,
  push: Pushed,
  ref: { v: RefVerdict; overrides: Overrides },
  blamed: Set<string>,
): Promise<Violation[]> {
  const { v } = ref;
  const { repo, config } = facts;
  const overridden = new Set(v.overrides.map((o) => o.commit));
  const tip = push.peeled.get(v.new);
  // A ref that brings every new commit (one ref pushed) touches what the whole walk touched.
  const touched = v.commits.length === push.all.length ? push.paths : new Set<string>();
  if (touched !== push.paths)
    for (const c of v.commits) for (const change of push.changes.get(c) ?? []) touched.add(change.path);
  const atTip = new Facts({
    point: 'pre-receive',
    repo,
    config,
    tip: tip ?? v.new,
    where: `${v.ref} at ${(tip ?? v.new).slice(0, 12)}`,
    paths: touched,
    classify: () => facts.classify(),
    // The push's baseline and its overrides, judged once for all refs.
    baselined: () => facts.baselined(),
    overrides: async () => ref.overrides,
    // No new commit touching both sides of the mixing rule, neither a commit nor a range of them mixes.
    commits: async () =>
      push.sides.mayMix
        ? {
            commits: v.commits.filter((c) => !overridden.has(c)),
            changes: push.changes,
            sidesOf: (c: string) => push.sides.of(c),
          }
        : null,
    owners: async () => ({ ...(await facts.owners()), violations: firstBlame(await facts.ownerFaults(), v, blamed) }),
    // The push was scanned once, ref by ref, while git walked it.
    tamper: async () => (v.commits.length ? ((await facts.tamper()).get(v.ref) ?? null) : null),
    // The push's links were read once for every new commit; a ref's are its commits'.
    links: async () => {
      const faults = await facts.links();
      return faults.size ? v.commits.flatMap((c) => faults.get(c) ?? []) : [];
    },
  });
  const out = await runPlan(atTip, MIX_PLAN);
  await fitRangeAdvice(
    out,
    async (oracleTip) => splitAdvice(push, v, oracleTip, await serverLanding(facts, v)),
    async (oracle) => reorderAdvice(oracle, await serverLanding(facts, v)),
  );
  // The rules at the tip, where the ref names a commit.
  if (tip) out.push(...(await runPlan(atTip, TIP_PLAN)));
  for (const w of atTip.takeNotes()) process.stderr.write(`patchwarden: ${v.ref}: ${w}\n`);
  return out;
}

/**
 * Where a ref lands, from this server's side: it knows the ref, the judging
 * branch and who pushed, not what the clone calls it (origin, as git clone
 * names it).
 */
async function serverLanding(facts: PushFacts, v: RefVerdict): Promise<Landing> {
  const { repo, config } = facts;
  return {
    branch: v.ref.startsWith('refs/heads/') ? v.ref.slice('refs/heads/'.length) : null,
    remote: 'origin',
    defaultBranch: facts.branch.ref.replace(/^refs\/heads\//, ''),
    upstream: false,
    signers: config.owners.signers !== null,
    agent: await agentInRange(
      repo,
      config,
      v.commits,
      facts.pushers.map((p) => p.name),
    ),
    remoteNote: 'origin: what your clone calls this server',
  };
}

/** How to land a ref whose oracle commits come first. */
function splitAdvice(push: Pushed, v: RefVerdict, oracleTip: string, landing: Landing): string {
  const from = push.reach.boundary(v.commits);
  return rangeAdvice(
    {
      oracleTip,
      base: from.length === 1 ? from[0] : null,
      local: push.peeled.get(v.new) ?? v.new,
      remoteRef: v.ref,
    },
    landing,
  );
}

function render(verdicts: RefVerdict[], newCommits: number, subject: Map<string, string>, notes: string[]): string[] {
  const text: string[] = notes.map((n) => `patchwarden: ${n}`);
  const first = text.length;
  for (const r of verdicts) {
    if (!r.violations.length) continue;
    text.push(`patchwarden: refusing the push to ${r.ref}`);
    for (const v of r.violations) text.push(...violationLines(v, 'nested', v.commit && subject.get(v.commit)));
  }
  if (text.length === first)
    text.push(`patchwarden: pre-receive ok (${counted(verdicts.length, 'ref')}, ${counted(newCommits, 'new commit')})`);
  return text;
}

/**
 * The refusal of a push whose cost is over a cap, unless an owner's override
 * commit is admitted for one of its refs (then a note says so); null when it
 * may be judged.
 */
async function costRefusal(facts: PushFacts, caps: Caps, notes: string[]): Promise<Parameters<typeof emit>[1] | null> {
  const { repo, config, branch } = facts;
  const push = await facts.walk();
  const cost = await pushCost(repo, config, push, await facts.classify());
  const refs = facts.updates.map((u) => ({ ref: u.ref, commits: push.commits.get(u.ref) ?? [] }));
  const violations = costViolations(cost, caps, refs);
  if (!violations.length) return null;
  // An owner's override admitted for one of its refs lets the push be judged (the same overrides judgePush reads).
  const overrides = await facts.overrides();
  const admitted = overrides.findIndex((o) => o.granted.length);
  if (admitted >= 0) {
    const { ref } = refs[admitted];
    const line = overrideLines(overrides[admitted].granted)[0];
    notes.push(`${ref}: ${violations[0].message}, but an owner's override lets it be judged: ${line}`);
    return null;
  }
  const text = [...notes.map((n) => `patchwarden: ${n}`), 'patchwarden: refusing the push'];
  for (const v of violations) text.push(...violationLines(v, 'nested'));
  return {
    ok: false,
    json: {
      guarded: true,
      judged_by: config.source,
      judging_branch: branch.ref,
      notes,
      cost: { scan_bytes: cost.scan_bytes, commits: cost.commits, signatures: cost.signatures },
      caps: caps.caps,
      refs: refs.map((r) => ({ ref: r.ref, commits: r.commits.length, ok: false })),
      violations,
    },
    text,
  };
}

/**
 * Judges the push `pushing` reads (`reading`: its walk, or the error that
 * stopped it) by the judging branch's rules, and prints the verdict.
 */
export async function judgeReceived(
  repo: Repo,
  common: Common,
  updates: RefUpdate[],
  pushing: ReturnType<typeof readPush>,
  reading: Promise<{ push: Pushed } | { error: unknown }>,
): Promise<number> {
  let branch = await judgingBranch(repo);
  const compiler = () => import('../config/compile.js');
  const notes: string[] = [];
  let judge = common.config ? await explicitJudge(repo, common.config, compiler) : null;
  if (!judge && branch.config) {
    // A judging branch whose config does not parse is judged by its last one that does: its correction can land.
    const { rev, ...found } = await judgeOrLastValid(
      repo,
      { oid: branch.config, shown: `${branch.id}:${CONFIG_FILE}` },
      branch.id,
      compiler,
      (note) => notes.push(`${note}; push the correction to ${branch.ref}`),
    );
    judge = found;
    branch = { ...branch, id: rev };
  }
  const config = judge?.config;
  if (!judge || !config?.present) {
    // Never unguarded by accident: only an administrator's bootstrap lets a push through unjudged.
    return emit(common.format, {
      ok: branch.bootstrap,
      json: { guarded: false, bootstrap: branch.bootstrap, judging_branch: branch.ref, refs: [], violations: [] },
      text: branch.bootstrap
        ? [
            `patchwarden: bootstrap: ${branch.ref} has no .patchwarden.yml yet, so this push is not judged (git config patchwarden.bootstrap is set on the server; unset it once the config is on ${branch.ref})`,
          ]
        : [...notes.map((n) => `patchwarden: ${n}`), ...unguardedRefusal(branch)],
    });
  }
  // Where caps are in force, the push's cost is counted before any rule starts.
  const caps = capsFor(config, process.env);
  const pushers = authenticatedPusher(process.env);
  const facts = new PushFacts({ repo, judge, branch, updates, pushing, reading, pushers });
  const refused = caps ? await costRefusal(facts, caps, notes) : null;
  if (refused) return emit(common.format, refused);
  facts.start();
  const push = await facts.walk();
  if (branch.bootstrap)
    notes.push(
      `note: git config patchwarden.bootstrap is still set on the server; ${branch.ref} has its config now, unset it (git config --unset patchwarden.bootstrap)`,
    );
  if (config.owners.agents.length && config.owners.signers === null && !pushers.length)
    notes.push(`warning: ${TYPED_IDENTITY}`);
  const verdicts = await judgePush(facts);
  for (const r of verdicts)
    notes.push(...[...overrideLines(r.overrides), ...untouchedLines(r.untouched ?? [])].map((l) => `${r.ref}: ${l}`));
  const violations = verdicts.flatMap((r) => r.violations.map((v) => ({ ...v, ref: r.ref })));
  const subject = await subjects(repo, [...new Set(violations.flatMap((v) => (v.commit ? [v.commit] : [])))]);
  return emit(common.format, {
    ok: violations.length === 0,
    json: {
      guarded: true,
      judged_by: config.source,
      judging_branch: branch.ref,
      notes,
      refs: verdicts.map((r) => ({
        ref: r.ref,
        old: r.old,
        new: r.new,
        commits: r.commits.length,
        ...(r.overrides.length ? { overrides: r.overrides } : {}),
        ok: r.violations.length === 0,
      })),
      violations,
    },
    text: render(verdicts, push.all.length, subject, notes),
  });
}
