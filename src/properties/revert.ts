// The revert check: the properties run on head (the base plus the production
// diff, the src-zone part of base..head) and with that diff put back to base,
// and each case of a registered invariant is judged against its own outcome
// in the other run (states.ts): a case that fails without the patch and
// passes with it proves the patch; one that passes without it and fails with
// it is a regression, refused always; one failing in both is allowed only
// under an owner's pending mark. The judged tree is the base plus the
// production diff, nothing else: every path outside the src zone (spec,
// tests, conftest.py, runner configuration, build files) is as on the base
// side in both runs, except what admitted owner-signed commits of the range
// change, so nothing the patch changes besides production code can sway the
// verdict. Whether the diff owes a fixed case at all (revert.require), and an
// owner's acknowledgment of it, are settled before any run. By default each
// run gets a fresh worktree of its own tree (the base plus the production
// diff, then the base) in a temporary root of its own, guarded at run time
// (guard/), the base first, then head, or, with `revert.jobs: 2` where the
// kernel fences each side (fence.ts), at once; `revert.mode: in-place` runs
// both in the working tree under a snapshot (inplace.ts), with work in
// progress set aside, always the base first, then head.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDuration } from '../common/duration.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import type { Config } from '../config/schema.js';
import { rangeChanges, stagedPaths, treeDiff, type RawChange } from '../git/changes.js';
import { resolveCommit, worktreeRoot, type Repo } from '../git/repo.js';
import { classifierFor } from '../config/classifier.js';
import { admitOwnerCommits } from '../owners/admission.js';
import { evidenceOwed } from '../owners/evidence.js';
import type { Pusher } from '../owners/pusher.js';
import { isOracle, type Classify } from '../zones/classify.js';
import { buildCache, type BuildCache } from './buildcache.js';
import { openRevertCache, watchRevertCache, type CachedRun, type RevertCache } from './cache.js';
import { cacheKey, headKey } from './cache-key.js';
import { moduleCache } from './modcache.js';
import { startEarly } from './early.js';
import { fenceCheck, probeFence } from './fence.js';
import { headProblems, type CaseOutcome, type InvariantResult, type Mapping } from './mapping.js';
import { dependencyProblems } from './deps.js';
import { findSnapshot, restoreSnapshot, takeSnapshot, type Snapshot } from './inplace.js';
import { guardSignals, type Guard } from './interrupt.js';
import { loadRegistryAt, type Registry } from './registry.js';
import { warmPythonDirs } from './sealed/confine.js';
import { type SealedMode, sealedMode, weakestMode } from './sealed/env.js';
import { propertyCommand, runProperties, type PropertyRun } from './run.js';
import { dropScratch, makeScratch } from './scratch.js';
import { changesBehaviour, describeBehaviour, isPython } from './behaviour.js';
import { fixedByBuild, withBuildFailures } from './by-build.js';
import { judgeStates, markAdvice, unmarkedFailures, type Evidence, type InvariantVerdict } from './states.js';
import { onlyEnv, shardEnv, sideEnv } from './runenv.js';
import { FailureStream, unmarkedStreamed } from './streamed.js';
import { treeWith } from '../git/trees.js';
import { listTree } from '../git/objects.js';
import { codeFiles, revertable, revertPaths, type Reverted } from './tree.js';
import { ABSENT, GITLINK } from '../git/raw-diff.js';
import { addTempWorktree, linkEntries, type TempTree } from './worktree.js';
import { counted, shortList, showPath } from '../common/text.js';
import { traced } from '../common/trace.js';
import { isFresh, seedEnv, type PropSeed } from '../runner/seed.js';
import { containment } from '../runner/contain.js';
import { runEnv } from '../runner/env.js';
import { python } from '../runner/python.js';
import { judgeIdentity, sealJudge } from '../runner/install.js';

export type RevertStatus =
  | 'describes_patch'
  | 'does_not_describe'
  | 'regressed'
  | 'pending_unmarked'
  | 'fails_on_head'
  | 'revert_broken'
  | 'acknowledged'
  | 'vouched'
  | 'no_behaviour_change'
  | 'not_applicable';

export interface RunSummary {
  elapsed_ms: number;
  /** Exit code of the property command (null when killed). */
  code: number | null;
  invariants: InvariantResult[];
  /** Why the run refuses, in plain words (empty on a clean head run). */
  problems: string[];
  /** The key of the cache entry the run came from (cache.ts), or null when it ran now. */
  cached?: string | null;
  /** Where production code ran (sealed/env.ts). */
  sealed: SealedMode;
}

export interface RevertResult {
  status: RevertStatus;
  /** Registered invariants with a fixed case: failing on the reverted tree, passing on head. */
  failing_on_revert: string[];
  reason: string;
  /** What the person allowed to act does next (the row edit, the acknowledgment), or null. */
  fix: string | null;
  base: string;
  head: string;
  mode: Config['revert']['mode'];
  /** Whether the diff owes a fixed case (revert.require), and why. */
  evidence: { owed: boolean; why: string } | null;
  /** sha256 of the production diff base..head, the key of an owner's refactor row (where the caller looks rows up). */
  digest: string | null;
  /** The owner's row that let the diff through without a run. */
  acknowledged: Acknowledged | null;
  /** no_behaviour_change: the production paths, each with the same syntax tree on both sides (behaviour.ts). */
  unchanged: string[];
  /** Each registered invariant and its cases, with their states. */
  states: InvariantVerdict[];
  /** Invariants let through by an owner's pending mark; marked ones that now pass (drop the mark); cases skipped in both runs. */
  pending: string[];
  green: string[];
  neutral: string[];
  /** Admitted owner-signed commits of the range whose changes both runs see. */
  owner_commits: string[];
  /** The production paths, and what the revert did to each. */
  reverted: Reverted[];
  /** Paths outside the src zone that base..head changes: both runs take them from the base side. */
  outside_src: string[];
  head_run: RunSummary | null;
  revert_run: RunSummary | null;
  /** The property command's own output from the run that decided a refusal. */
  output: string | null;
  /** Which run `output` is from: head's, or the one with the production diff reverted. */
  output_of: 'head' | 'reverted' | null;
  /** The seed both runs got in PROP_SEED when the caller chose one (the gate); null: the config's pinned one. */
  seed: PropSeed | null;
  /** Invariants failing in both runs under a fresh seed that pass on head under the pinned one: a finding about the base, not a refusal. */
  found: BaseFinding | null;
  /** Where production code ran in the runs that judged the invariants (the weaker of the two); null before any run. */
  sealed: SealedMode | null;
  /** The one side's run of a matrix part (RevertOptions.part); null when the check settled before any run. */
  part?: PropertyRun | null;
}

/** A counterexample a fresh seed found on the base side: reported with the row edit, never held against the change. */
export interface BaseFinding {
  seed: string;
  pinned: string | null;
  invariants: string[];
  /** The cases that failed in both runs under `seed`. */
  cases: string[];
  /** The registry row edit that marks them pending, for an owner. */
  fix: string;
}

/** An owner's refactor row: it lets exactly the diff with this digest through. */
export interface Acknowledged {
  diff: string;
  owner: string;
  reason: string;
}

/**
 * What settles a production diff before any run (refactors/ looks it up):
 * its digest, the owner's row for it if any, and what a refusal of it tells
 * an owner to add.
 */
export interface Exemption {
  digest: string;
  row: Acknowledged | null;
  advice: string;
}

export interface RevertOptions {
  /** Progress lines (phase and time spent), for stderr. */
  progress?: (line: string) => void;
  /**
   * The commit the judged tree is built on and the rules, registry, signers
   * and refactor rows are read from (the gate: the target branch, while
   * `base` is where the patch forked from it); `base` when absent.
   */
  onto?: string;
  /** Now, for pending marks and the age of owner commits. */
  now?: Date;
  /** The pusher as a server authenticated it, where one did. */
  pushers?: Pusher[];
  /** Looked up before any run with the patch's src-zone changes and the paths admitted owner commits keep: an owner's row lets the diff through with none. */
  exemption?: (patch: RawChange[], kept: ReadonlySet<string>) => Promise<Exemption>;
  /** The seed both runs get instead of the pinned one (the gate's), chosen once the patch's src-zone changes are known. */
  seed?: (patch: RawChange[]) => Promise<PropSeed>;
  /** One part of a CI matrix (shard.ts): only this side runs, under `shard` (K/N), into `result.part`; nothing is judged. */
  part?: { side: Side; shard: string };
  /** The runs of both sides, merged from a matrix's parts (merge.ts): judged as if they had run here. */
  merged?: Record<Side, PropertyRun>;
  /**
   * Whether the head side is cached under kernel sealing (default true). The
   * gate passes false: a pull request's steps before it run the change's
   * code outside any sealed worker, with the cache folder restored.
   */
  headCache?: boolean;
}

/** Whether a status lets the patch through. */
export function revertPasses(status: RevertStatus): boolean {
  return (
    status === 'describes_patch' ||
    status === 'not_applicable' ||
    status === 'acknowledged' ||
    status === 'vouched' ||
    status === 'no_behaviour_change'
  );
}

/** Whether a status is the properties failing on head (the gate's properties layer) rather than missing evidence. */
export function headRefused(status: RevertStatus): boolean {
  return status === 'fails_on_head' || status === 'regressed' || status === 'pending_unmarked';
}

/**
 * What the two runs are built from: `onto` plus `kept` (what admitted owner
 * commits of the range change) plus `production` on head, `onto` plus `kept`
 * reverted. In place, starting at head, `harness` puts every other path that
 * is not the patch's production code back to `onto`.
 */
export interface JudgedTree {
  production: RawChange[];
  harness: RawChange[];
  kept: RawChange[];
  /** The patch's own src-zone changes (base..head), submodule pointers included: what owes evidence and what a refactor row names. */
  patch: RawChange[];
  /** The patch's own paths outside the src zone, for the refusal that names them. */
  outsideSrc: string[];
}

/** Every kind of change counts: files, links, modes, types and submodule pointers. */
export async function judgedTree(
  repo: Repo,
  classify: Classify,
  base: string,
  head: string,
  onto = base,
  kept: ReadonlySet<string> = new Set(),
): Promise<JudgedTree> {
  const diff = await treeDiff(repo, base, head);
  const patch = diff.filter((c) => classify(c.path) === 'src');
  const src = new Set(patch.map((c) => c.path));
  const outsideSrc = diff.filter((c) => !src.has(c.path)).map((c) => c.path);
  const all = onto === base ? diff : await treeDiff(repo, onto, head);
  return {
    production: all.filter((c) => src.has(c.path)),
    harness: all.filter((c) => !src.has(c.path) && !kept.has(c.path)),
    kept: all.filter((c) => !src.has(c.path) && kept.has(c.path)),
    patch,
    outsideSrc,
  };
}

/**
 * The range's production commits, and the paths its admitted owner-signed
 * oracle commits change that no other commit of the range touches: both runs
 * see those as head has them. Only with owners.signers: without signatures
 * the oracle lands on the base branch first. (trusted-tree.ts builds replay's
 * tree from them too.)
 */
export async function rangeFacts(
  repo: Repo,
  config: Config,
  classify: Classify,
  base: string,
  head: string,
  judgeRev: string,
  now: Date,
): Promise<{ production: string[]; owners: string[]; kept: Set<string> }> {
  const { commits, changes } = await rangeChanges(repo, [head, '--not', base]);
  const touches = (c: string, zone: (z: ReturnType<Classify>) => boolean) =>
    (changes.get(c) ?? []).some((ch) => zone(classify(ch.path)));
  const production = commits.filter((c) => touches(c, (z) => z === 'src'));
  const kept = new Set<string>();
  if (config.owners.signers === null || !production.length) return { production, owners: [], kept };
  const candidates = commits.filter((c) => !production.includes(c) && touches(c, isOracle));
  const verdicts = await admitOwnerCommits(repo, config, judgeRev, candidates, {
    base,
    commits: new Set(commits),
    now,
  });
  const owners = candidates.filter((c) => verdicts.get(c) === null);
  const others = new Set(
    commits.filter((c) => !owners.includes(c)).flatMap((c) => (changes.get(c) ?? []).map((ch) => ch.path)),
  );
  for (const c of owners) for (const ch of changes.get(c) ?? []) if (!others.has(ch.path)) kept.add(ch.path);
  return { production, owners, kept };
}

export async function revertCheck(
  repo: Repo,
  config: Config,
  base: string,
  head: string,
  opts: RevertOptions = {},
): Promise<RevertResult> {
  const started = Date.now();
  const say = (line: string) => opts.progress?.(`revert-check: ${line} [${formatDuration(Date.now() - started)}]`);
  const mode = config.revert.mode;
  const onto = opts.onto ?? base;
  const now = opts.now ?? new Date();
  const result = notApplicable(base, head, mode);
  const { classify, facts, tree } = await traced('range and judged tree', async () => {
    const classify = await classifierFor(repo, config);
    const facts = await rangeFacts(repo, config, classify, base, head, onto, now);
    return { classify, facts, tree: await judgedTree(repo, classify, base, head, onto, facts.kept) };
  });
  result.outside_src = tree.outsideSrc.filter((p) => !facts.kept.has(p));
  result.owner_commits = facts.owners;
  if (!tree.patch.length) {
    result.reason = 'the range changes no production code (src zone): nothing to revert';
    return result;
  }
  propertyCommand(config);
  // The sides' fence and a sealed worker ask the kernel, and a sealed worker its Python's folders, through
  // python3, often a version manager's slow shim: asked now where the check needs them, awaited where needed.
  // The Python syntax compare needs only the interpreter behind it.
  if (config.revert.jobs > 1 || config.properties.sealed === 'kernel') probeFence().catch(() => undefined);
  else if (tree.production.some((c) => isPython(c.path))) python().catch(() => undefined);
  if (config.properties.sealed === 'kernel') warmPythonDirs(runEnv(config).PATH ?? process.env.PATH ?? '');
  const seed = opts.seed ? await opts.seed(tree.patch) : null;
  result.seed = seed;
  // Settled before any run: who owes evidence, and an owner's row for exactly this diff.
  const owed = await traced('evidence owed', () => evidenceOwed(repo, config, onto, facts.production, opts.pushers));
  result.evidence = { owed: owed.owed, why: owed.why };
  const exemption = opts.exemption ? await opts.exemption(tree.patch, facts.kept) : null;
  result.digest = exemption?.digest ?? null;
  const settled = await traced('settled without runs (refactor row, syntax trees)', () =>
    settledWithoutRuns(result, exemption?.row ?? null, () => changesBehaviour(repo, config, tree.production, say), say),
  );
  if (settled) return result;
  // The first command waits for the judge's modules (runner/install.ts), the
  // longest step before it: loaded beside the registry, the dependency check
  // and the worktrees. A failure is met where a command awaits it.
  if (!opts.merged) traced("the judge's modules loaded", sealJudge).catch(() => undefined);
  // Pending marks and new invariants come from the base plus the admitted owner changes.
  const registry = await traced('registry', () =>
    loadRegistryAt(repo, config, facts.kept.has(config.properties.invariants) ? head : onto),
  );
  say(
    `${counted(tree.production.length, 'production path')} to revert, ${counted(registry.invariants.length, 'registered invariant')}, mode ${mode}; ${owed.owed ? 'owes a fixed case' : 'vouched for'}: ${owed.why}`,
  );
  const guard = guardSignals((line) => say(line));
  const cache = buildCache(repo, say);
  // What both modes judge their two runs by.
  const judging = {
    seed,
    registry,
    guard,
    say,
    owed: owed.owed,
    now,
    ttl: config.properties.pending_ttl,
    classify,
    headFailures: new FailureStream(),
    advice: exemption?.advice ?? null,
    byBuild: (output: string, onHead: InvariantResult[]) => fixedByBuild(repo, head, tree.production, output, onHead),
  };
  const check: Check = {
    repo,
    config,
    opts,
    onto,
    head,
    classify,
    tree,
    facts,
    registry,
    seed,
    guard,
    cache,
    say,
    jobs: 1,
    judging,
  };
  try {
    if (mode === 'in-place' && (opts.part || opts.merged))
      throw new UsageError('--side and --merge need revert.mode: worktree (each side runs in a tree of its own)');
    if (opts.merged) await twoRuns(result, mergedSteps(opts.merged, tree.production, judging));
    else if (mode === 'in-place') await inPlaceCheck(result, check);
    else await worktreeCheck(result, check);
  } finally {
    cache.settle();
    guard.release();
  }
  say(`done: ${result.status}`);
  return result;
}

export type Side = 'head' | 'revert';

/** What a fresh reverted tree does to each production path. */
function revertedPaths(production: RawChange[]): Reverted[] {
  return production.map((c) => ({ path: c.path, action: c.oldMode === ABSENT ? 'removed' : 'restored' }));
}

/**
 * Settled before any run: an owner's row for exactly this diff, or a diff
 * that keeps every syntax tree, which owes no property.
 */
async function settledWithoutRuns(
  result: RevertResult,
  row: Exemption['row'],
  behaviourOf: () => ReturnType<typeof changesBehaviour>,
  say: (line: string) => void,
): Promise<boolean> {
  if (row && result.digest) {
    Object.assign(result, {
      status: 'acknowledged',
      acknowledged: row,
      reason: `an owner acknowledged this diff (${result.digest.slice(0, 12)}) as a refactor: ${row.owner}: ${row.reason}`,
    });
    say(`acknowledged refactor ${result.digest.slice(0, 12)} by ${row.owner}: no property run`);
    return true;
  }
  const behaviour = await behaviourOf();
  if (behaviour) say(describeBehaviour(behaviour));
  if (!behaviour?.same) return false;
  Object.assign(result, {
    status: 'no_behaviour_change',
    reason: describeBehaviour(behaviour),
    unchanged: behaviour.paths,
  });
  return true;
}

/** The result of a check that has not run: every field at its empty value. */
function notApplicable(base: string, head: string, mode: RevertResult['mode']): RevertResult {
  return {
    status: 'not_applicable',
    failing_on_revert: [],
    reason: '',
    fix: null,
    base,
    head,
    mode,
    evidence: null,
    digest: null,
    acknowledged: null,
    unchanged: [],
    states: [],
    pending: [],
    green: [],
    neutral: [],
    owner_commits: [],
    reverted: [],
    outside_src: [],
    head_run: null,
    revert_run: null,
    output: null,
    output_of: null,
    seed: null,
    found: null,
    sealed: null,
  };
}

/** What a check's runs are built from, once the range is judged and before either side runs. */
interface Check {
  repo: Repo;
  config: Config;
  opts: RevertOptions;
  onto: string;
  head: string;
  classify: Classify;
  tree: Awaited<ReturnType<typeof judgedTree>>;
  facts: Awaited<ReturnType<typeof rangeFacts>>;
  registry: Registry;
  seed: PropSeed | null;
  guard: Guard;
  cache: BuildCache;
  say: (line: string) => void;
  /** 2 where the sides run at once (worktree mode, fenced: sidesAtOnce), else 1. */
  jobs: number;
  judging: Omit<Steps, 'run' | 'revert' | 'unrevert' | 'jobs' | 'cached' | 'cachedHead'>;
}

/** `in-place`: both runs in the working tree, the base first, the production diff reverted for it and put back for head. */
async function inPlaceCheck(result: RevertResult, c: Check): Promise<void> {
  const { repo, config, onto, head, classify, tree, registry, seed, guard, cache, say, judging } = c;
  const judged = [...tree.harness, ...tree.production];
  const links = judged.filter((c) => c.oldMode === GITLINK || c.newMode === GITLINK).map((c) => c.path);
  if (links.length)
    throw new CannotJudge(
      `revert.mode: in-place cannot put submodule pointers back in the working tree (${links.map(showPath).join(', ')}); use revert.mode: worktree`,
    );
  // Prepared only for a check that runs the properties; checked once both runs have ended.
  const mods = await moduleCache(repo, onto, say);
  if (config.revert.jobs > 1)
    say('revert.jobs: 2 does not apply in place: one working tree, the base first, then head');
  await inPlace(repo, head, judged, guard, say, {
    toBase: async (root, env, scratch) => {
      if (!tree.harness.length) return;
      say(`taking ${tree.harness.length} path(s) outside the production diff from the base side`);
      await revertPaths(root, tree.harness, env, scratch);
      guard.check();
    },
    runs: async (root, env, scratch) => {
      const trees = {
        head: await treeWith(repo, onto, [...tree.kept, ...tree.production], scratch),
        revert: await treeWith(repo, onto, tree.kept, scratch),
      };
      let n = 0;
      await twoRuns(result, {
        run: async (side, _stop, pinned) => {
          const tmp = path.join(scratch!, `run-${++n}`);
          mkdirSync(tmp);
          const trusted = await codeFiles(repo, trees[side], (f) => classify(f) !== 'src');
          const gocache = cache.open(side, tmp);
          const run = await runProperties(root, config, registry, {
            classify,
            signal: guard.signal,
            guard: { tmp, trusted, main: repo.root, gocache },
            env: { ...seedEnv(seed, pinned), ...mods.env, ...sideEnv(side) },
          });
          if (side === 'revert' && !run.problem) cache.keep(gocache);
          return run;
        },
        revert: () => revertPaths(root, tree.production, env, scratch),
        // The new side of each change is the old side of its flip.
        unrevert: async () => {
          await revertPaths(root, tree.production.map(flipped), env, scratch);
        },
        // One working tree: each run needs the tree as its side has it.
        jobs: 1,
        cached: null,
        cachedHead: null,
        ...judging,
      });
    },
  });
  mods.check();
}

/** `worktree`: each run in a fresh tree of its own, both sides at once under revert.jobs: 2 where fenced, or one part of a matrix. */
async function worktreeCheck(result: RevertResult, check: Check): Promise<void> {
  const { repo, config, opts, onto, classify, tree, registry, seed, guard, cache, say } = check;
  const deps = repo.root
    ? await traced('dependency check', () => dependencyProblems(repo, repo.root!, onto, config.revert.link))
    : null;
  if (deps?.problems.length) {
    const install = deps.installs.length ? ` (${deps.installs.join('; ')})` : '';
    Object.assign(result, {
      status: 'fails_on_head',
      reason: `dependencies differ from the base: ${deps.problems.join('; ')}. The runs link them in from the main tree, and what a dependency installs runs before any property: install them from the base's lock files${install} before the check, or land the dependency change first, reviewed, in a change of its own`,
    });
  } else {
    // Prepared only for a check that runs the properties, beside the
    // worktrees: containment and the Go modules (the runs wait for those);
    // checked once the runs have ended.
    traced('containment probed', containment).catch(() => undefined); // met where a command or the key awaits it
    const preparing = traced('Go module cache', () => moduleCache(repo, onto, say));
    preparing.catch(() => undefined);
    const c = { ...check, jobs: await sidesAtOnce(config, say) };
    const sideRun: Steps['run'] = async (side, stop, pinned, only) =>
      freshRun(
        repo,
        config,
        registry,
        classify,
        onto,
        side,
        side === 'head' ? [...tree.kept, ...tree.production] : tree.kept,
        {
          guard,
          stop,
          cache,
          beside: c.jobs > 1,
          env: {
            ...seedEnv(seed, pinned),
            ...onlyEnv(only),
            ...shardEnv(opts.part?.shard ?? null),
            ...(await preparing).env,
          },
          // The whole head run's failures, as they come (streamed.ts).
          onFailing: side === 'head' && !pinned && !only ? (n) => c.judging.headFailures.push(n) : undefined,
        },
        say,
      );
    if (opts.part) {
      // A part of a matrix is keyed by no shard: it neither reads nor writes the cache.
      say(`running one part: side ${opts.part.side === 'head' ? 'head' : 'base'}, shard ${opts.part.shard}`);
      result.part = await sideRun(opts.part.side, guard.signal);
      guard.check();
    } else if (config.revert.cache) await cachedRuns(result, c, sideRun);
    else await twoRuns(result, worktreeSteps(c, sideRun, null));
    (await preparing).check();
  }
}

/**
 * How many sides run at once: two under revert.jobs: 2 only where the kernel
 * fences each (fence.ts). Elsewhere head's code, as the same user, could
 * write what the base run reads outside its tracked tree (a linked
 * dependency, a virtualenv, a cache under the home folder), so the sides run
 * in turn, the base first, and the output says why (fence: none).
 */
async function sidesAtOnce(config: Config, say: (line: string) => void): Promise<number> {
  if (config.revert.jobs < 2) return 1;
  if ((await fenceCheck()) === 'landlock') return 2;
  say('revert.jobs: 2 runs the sides in turn, the base first: no Landlock ABI 2 here to fence each side');
  return 1;
}

/** The steps of a worktree check: each run in a fresh tree of its own. */
function worktreeSteps(c: Check, run: Steps['run'], cached: CachedRun | null): Steps {
  return {
    run,
    cached,
    cachedHead: null,
    revert: async () => revertedPaths(c.tree.production),
    unrevert: async () => undefined,
    jobs: c.jobs,
    ...c.judging,
  };
}

/**
 * Both sides, the reverted one from the revert cache where a trusted entry
 * answers for it, and a fresh reverted run kept for the next check. A first
 * check (a miss) needs the whole reverted run: it starts at once, while the
 * key is computed, the cache folder having been taken first (cache.ts), and
 * a hit stops it; where the sides run at once (fenced) so does the head run,
 * which needs no key. Run in turn, head waits: none of its code runs before
 * the base has. Under kernel sealing (outside the gate) the head side is
 * cached too, so its key comes first: production code ran in a worker that
 * cannot write the git directory.
 */
async function cachedRuns(result: RevertResult, c: Check, sideRun: Steps['run']): Promise<void> {
  const { repo, config, opts, onto, tree, facts, seed, guard, registry, say } = c;
  const fresh: { base: PropertyRun | null; head: PropertyRun | null } = { base: null, head: null };
  const run: Steps['run'] = async (side, stop, pinned, only) => {
    const r = await sideRun(side, stop, pinned, only);
    // A run of some cases only, or under another seed, is no run to keep.
    if (side === 'revert' && !only) fresh.base = r;
    if (side === 'head' && !only && !pinned) fresh.head = r;
    return r;
  };
  const headCached = opts.headCache !== false && sealedMode(config) === 'kernel';
  const before = watchRevertCache(repo);
  const early = headCached || c.jobs < 2 ? null : startEarly(guard.signal, (stop) => run('head', stop));
  // Kept only once the steps take it.
  const earlyBase = headCached ? null : startEarly(guard.signal, (stop) => sideRun('revert', stop));
  try {
    const headTree = headCached ? [...tree.kept, ...tree.production] : null;
    // With runs started, the key's work waits for the judge's modules, which
    // the commands wait for: it would only slow them (a hit still stops the
    // base before the verdict).
    if (earlyBase) await sealJudge();
    const store = await traced('revert cache key and lookup', () =>
      revertCache(repo, config, onto, tree.kept, headTree, seed, facts.owners, before, say),
    );
    if (store.hit && earlyBase) {
      say('base: stopping the run started beside the key (the cache answers for it)');
      await earlyBase.drop();
    }
    const first: Steps['run'] = (side, stop, pinned, only) => {
      const started = pinned || only ? null : (side === 'head' ? early : earlyBase)?.take(stop);
      if (!started) return run(side, stop, pinned, only);
      return side === 'head'
        ? started
        : started.then((r) => {
            fresh.base = r;
            return r;
          });
    };
    await twoRuns(result, { ...worktreeSteps(c, first, store.hit), cachedHead: store.head?.hit ?? null });
    // A head run that cannot be judged answers for no later check.
    const head = fresh.head && !fresh.head.problem && !headProblems(fresh.head.mapping!, registry).length;
    // Only once both runs have ended, and only after a verdict.
    await traced('revert cache settle', () => store.settle({ base: fresh.base, head: head ? fresh.head : null }));
  } finally {
    // A run the steps never took (the key could not be made): stopped, its tree removed.
    await early?.drop();
    await earlyBase?.drop();
  }
}

/** The steps of a check judged from a matrix's merged runs: nothing runs here. */
function mergedSteps(
  runs: Record<Side, PropertyRun>,
  production: RawChange[],
  judging: Omit<Steps, 'run' | 'revert' | 'unrevert' | 'jobs' | 'cached' | 'cachedHead'>,
): Steps {
  return {
    cached: null,
    cachedHead: null,
    run: async (side, _stop, pinned) => {
      if (pinned) throw new CannotJudge('a merged check cannot run the properties again under the pinned seed');
      return runs[side];
    },
    revert: async () => revertedPaths(production),
    unrevert: async () => undefined,
    jobs: 1,
    ...judging,
  };
}

interface Steps {
  /**
   * One run of the properties: on the base plus the production diff, or with
   * it reverted; aborting `stop` ends it; `pinned` runs it under the config's
   * pinned seed rather than `seed`; `only` names the cases to run where the
   * runner can be told (runenv.ts), else every case runs.
   */
  run: (side: Side, stop: AbortSignal, pinned?: boolean, only?: string[]) => Promise<PropertyRun>;
  revert: () => Promise<Reverted[]>;
  /** Puts the production diff back after the reverted run, for the head run (in place). */
  unrevert: () => Promise<void>;
  /** The seed of both runs, when the caller chose one. */
  seed: PropSeed | null;
  /** revert.jobs: 2 runs the two sides at once (never in place). */
  jobs: number;
  /** The reverted run as a trusted cache entry holds it (worktree mode), or null. */
  cached: CachedRun | null;
  /** The head run as a trusted cache entry holds it (kernel sealing, with `cached`), or null. */
  cachedHead: CachedRun | null;
  registry: Registry;
  guard: Guard;
  say: (line: string) => void;
  /** Whether the diff owes a fixed case; the pending marks' clock and lifetime; what a refusal for lack of evidence tells an owner. */
  owed: boolean;
  advice: string | null;
  now: Date;
  ttl: number;
  /** The judging config's zones (a streamed failure counts from a spec file only). */
  classify: Classify;
  /** The cases the whole head run fails, as the runner streams them (streamed.ts). */
  headFailures: FailureStream;
  /** The invariants a reverted run that failed to build counts as failing (by-build.ts), each with the added symbols it misses. */
  byBuild: (output: string, onHead: InvariantResult[]) => Promise<Map<string, string[]> | null>;
}

interface Runs {
  onHead: PropertyRun;
  onRevert: PropertyRun;
  /** The key of the cache entry onRevert came from. */
  cached?: string;
  /** The key of the cache entry onHead came from. */
  headCached?: string;
  /** Every failure of onRevert is from a base run with no code of head's running beside it: it needs no second run alone. */
  alone?: true;
}

function summary(run: PropertyRun, problems: string[]): RunSummary {
  return {
    elapsed_ms: run.elapsedMs,
    code: run.code,
    invariants: run.mapping?.invariants ?? [],
    problems,
    sealed: run.sealed,
  };
}

/** A head run that fails while head also changes the harness: say the harness must land first. */
function harnessNote(outsideSrc: string[]): string {
  if (!outsideSrc.length) return '';
  const shown =
    outsideSrc.slice(0, 8).map(showPath).join(', ') +
    (outsideSrc.length > 8 ? `, … (${outsideSrc.length} in all)` : '');
  return `; head also differs from the base outside the src zone (${shown}), and the check runs every such path as on the base side: if the properties need head's side of them, they must land first, reviewed, in a change of their own (or, where the base moved on, rebase onto it)`;
}

/** Whether every case of every invariant passed: nothing on head needs the reverted run to be judged. */
function allPass(m: Mapping): boolean {
  return m.invariants.every((i) => i.outcomes.length > 0 && i.outcomes.every((o) => o.outcome === 'passed'));
}

/** The two runs, the base first or, fenced, at once; then each case judged against the other run. */
async function twoRuns(result: RevertResult, s: Steps): Promise<void> {
  const runs =
    s.cached && s.cachedHead
      ? await withBothCached(result, s, s.cached, s.cachedHead)
      : s.cached
        ? await withCached(result, s, s.cached)
        : s.jobs > 1
          ? await atOnce(result, s)
          : await inTurn(result, s);
  if (runs) await judgeRuns(result, s, s.jobs > 1 ? await confirmedAlone(s, runs) : runs);
}

/**
 * Under revert.jobs: 2 a base run may have gone beside head, whose code runs
 * as the same user and can reach it where the fence does not: a port, a
 * database, an abstract socket, a lock (fence.ts). A base failure is what
 * makes a case fixed or pending, so the cases the base failed run again on
 * the base alone, once every process of head's run has ended (containment),
 * and their outcomes take the first ones' place. Where that part cannot be
 * judged, or leaves one of them out, the whole base runs again, alone.
 */
async function confirmedAlone(s: Steps, runs: Runs): Promise<Runs> {
  if (runs.onRevert.problem || runs.alone) return runs;
  const failing = failedNames(runs.onRevert);
  if (!failing.length) return runs;
  s.say(`base: ${names(failing)} failed with head's code running beside it: those cases run again on the base alone`);
  const part = await s.run('revert', s.guard.signal, false, failing);
  s.guard.check();
  const asked = answered(part, failing);
  if (asked) {
    s.say(`base: ran alone ${freshOutcomes(asked)}`);
    return { ...runs, onRevert: merged(runs.onRevert, asked) };
  }
  s.say(
    `base: those cases could not be run alone${part.problem ? ` (${part.problem})` : ''}: the whole base runs again, alone`,
  );
  const onRevert = await s.run('revert', s.guard.signal);
  s.guard.check();
  return { ...runs, onRevert };
}

/**
 * Revert, reverted run, head run; null when the head run settles the verdict.
 * The base first: head's code runs as the same user and, unfenced, could
 * write what the base run reads outside its tracked tree (a linked
 * dependency, a virtualenv, a cache under the home folder, an ignored file),
 * so no code of the patch runs before the base is judged. The price: a head
 * run that settles the verdict no longer spares the base run, so a refused
 * change costs both runs.
 */
async function inTurn(result: RevertResult, s: Steps): Promise<Runs | null> {
  s.say('reverting the production paths to base');
  result.reverted = await s.revert();
  s.guard.check();
  s.say('running the properties with the production diff reverted (the base first, before any code of the patch)');
  const onRevert = await s.run('revert', s.guard.signal);
  s.guard.check();
  await s.unrevert();
  s.guard.check();
  s.say('running the properties on head');
  const onHead = await s.run('head', s.guard.signal);
  s.guard.check();
  if (headSettles(result, s, onHead)) return null;
  return { onHead, onRevert };
}

/**
 * Both runs at once (revert.jobs: 2), each in its own tree. A reverted run
 * still going is stopped when head already settles the verdict: it cannot be
 * judged, or it fails a case no pending mark covers (refused whatever the
 * reverted run says). Such a case is known as the runner streams it
 * (streamed.ts), else once head's report is read; the report decides, and
 * where it does not show what the stream said, the reverted run runs again.
 */
async function atOnce(result: RevertResult, s: Steps): Promise<Runs | null> {
  const reverted = await s.revert();
  s.say('running the properties on head and with the production diff reverted, at once (revert.jobs: 2)');
  const stop = new AbortController();
  const relay = () => stop.abort();
  s.guard.signal.addEventListener('abort', relay, { once: true });
  let ended = false;
  const reverting = s.run('revert', stop.signal).finally(() => {
    ended = true;
  });
  reverting.catch(() => undefined); // awaited below; a stopped run's error is not news
  // Under a fresh seed a case failing on head may fail on the base too (a finding, not a refusal): the base runs on.
  let stoppedOn: string | null = null;
  const unlisten = isFresh(s.seed)
    ? () => undefined
    : s.headFailures.listen((name) => {
        const ids = stoppedOn === null && !ended ? unmarkedStreamed(name, s.registry, s.classify, s.now, s.ttl) : [];
        if (!ids.length) return;
        stoppedOn = name;
        s.say(
          `head fails ${JSON.stringify(name)} as it runs (${ids.join(', ')}: no pending mark covers it): stopping the run with the production diff reverted`,
        );
        stop.abort();
      });
  try {
    const onHead = await s.run('head', s.guard.signal);
    s.guard.check();
    if (headSettles(result, s, onHead)) return null;
    if ((!ended || stoppedOn !== null) && refusedOnHead(result, s, onHead)) return null;
    result.reverted = reverted;
    if (stoppedOn === null) {
      const onRevert = await reverting;
      s.guard.check();
      return { onHead, onRevert };
    }
    s.say(
      `head's report does not show ${JSON.stringify(stoppedOn)} failing where no pending mark covers it: the run with the production diff reverted runs again, whole`,
    );
    await reverting.catch(() => undefined);
    const onRevert = await s.run('revert', s.guard.signal);
    s.guard.check();
    return { onHead, onRevert, alone: true };
  } finally {
    unlisten();
    if (!ended) s.say('stopping the run with the production diff reverted');
    stop.abort();
    // The stopped run removes its own tree before the check goes on.
    await reverting.catch(() => undefined);
    s.guard.signal.removeEventListener('abort', relay);
  }
}

/**
 * Whether head fails a case no pending mark covers, which refuses the change
 * whatever the base says: then the base need not run, and the result says
 * so (fails_on_head). Never under a fresh seed, where a case failing on both
 * sides is a finding, not a refusal.
 */
function refusedOnHead(result: RevertResult, s: Steps, onHead: PropertyRun): boolean {
  const failing = isFresh(s.seed) ? [] : unmarkedFailures(onHead.mapping!.invariants, s.registry, s.now, s.ttl);
  if (!failing.length) return false;
  Object.assign(result, {
    status: 'fails_on_head',
    reason: `head fails ${failing.map((n) => JSON.stringify(n)).join(', ')}; the base was not run (stopped: no pending mark covers these cases, so its outcome cannot change the verdict)${harnessNote(result.outside_src)}`,
    output: onHead.output,
    output_of: 'head',
  });
  return true;
}

/**
 * The reverted side from a trusted cache entry, which may only confirm
 * holds. The cases the cached run fails would be fixed or pending on its
 * word, so they run fresh on the base, once: in turn before head; where the
 * sides run at once, after head's run has ended, alone, as confirmedAlone
 * would run them again (only those cases where the runner can be told,
 * runenv.ts). When any other case is not holds against the cached outcomes
 * (a regression, a skip, a case the entry lacks), or the fresh part cannot be
 * judged or leaves a case out, the whole base runs fresh before the verdict
 * (after head where the sides run at once, alone). Run in turn, a fresh
 * part that cannot answer for every case it was asked sends the whole base
 * to run before head; a whole run after head's follows code of the patch,
 * which could have written what it reads, so it answers only for the cases
 * head does not pass: a base failure there cannot make a case fixed, only a
 * regression a case failing on both sides, refused unless an owner marked it
 * pending.
 */
async function withCached(result: RevertResult, s: Steps, hit: CachedRun): Promise<Runs | null> {
  const short = hit.key.slice(0, 12);
  const failing = failedNames(hit.run);
  const inTurn = s.jobs < 2;
  result.reverted = await s.revert();
  s.say(
    failing.length
      ? `base: cached (key ${short}) fails ${names(failing)}: a cached outcome only confirms holds, so those cases run fresh on the base, ${inTurn ? 'before head' : "alone once head's run has ended"}`
      : `base: cached (key ${short}, written ${hit.written}); running the properties on head`,
  );
  const freshPart = async () => {
    if (!failing.length) return null;
    const part = await s.run('revert', s.guard.signal, false, failing);
    s.guard.check();
    return part;
  };
  const before = inTurn ? await freshPart() : null;
  const wholeFirst = before ? await wholeUnlessAnswered(s, before, failing) : null;
  const onHead = await s.run('head', s.guard.signal);
  s.guard.check();
  if (headSettles(result, s, onHead)) return null;
  if (wholeFirst) return { onHead, onRevert: wholeFirst, alone: true };
  // In turn the base has run already; after head it need not run for a refusal.
  if (!inTurn && refusedOnHead(result, s, onHead)) return null;
  const ranPart = inTurn ? before : await freshPart();
  const part = ranPart && !ranPart.problem ? askedFor(ranPart, failing) : null;
  const base = part ? merged(hit.run, part) : hit.run;
  if (ranPart?.problem) s.say(`base: the fresh run of those cases cannot be judged (${ranPart.problem})`);
  else {
    if (part) s.say(`base: ran fresh ${freshOutcomes(part)}`);
    const ran = new Set(part ? ranNames(part) : []);
    const ev = judgeStates(onHead.mapping!.invariants, base.mapping!.invariants, s.registry, s.now, s.ttl);
    const unsure = ev.invariants.flatMap((i) =>
      i.cases.filter((c) => c.state !== 'holds' && !ran.has(c.name)).map((c) => `${JSON.stringify(c.name)} ${c.state}`),
    );
    // Every failure of `base` is a fresh one that ran with no code of head's beside it.
    if (!unsure.length) return { onHead, onRevert: base, cached: hit.key, alone: true };
    s.say(`base: against the cached run ${unsure.join(', ')}`);
  }
  s.say('a cached outcome only confirms holds: the whole base runs fresh');
  const onRevert = await s.run('revert', s.guard.signal);
  s.guard.check();
  if (!inTurn || onRevert.problem) return { onHead, onRevert, alone: true };
  const notPassing = onHead.mapping!.invariants.flatMap((i) =>
    i.outcomes.filter((o) => o.outcome !== 'passed').map((o) => o.name),
  );
  s.say("base: that run followed head's, so it answers only for the cases head does not pass");
  return { onHead, onRevert: merged(base, askedFor(onRevert, notPassing)), cached: hit.key };
}

/**
 * In turn, the fresh part of a cached base ran before head: where it cannot
 * be judged or leaves one of the cases it was asked out, the whole base runs
 * then, still before any code of the patch; null where the part answers.
 */
async function wholeUnlessAnswered(s: Steps, part: PropertyRun, failing: string[]): Promise<PropertyRun | null> {
  s.guard.check();
  if (answered(part, failing)) return null;
  s.say(
    `base: those cases could not be run fresh by themselves${part.problem ? ` (${part.problem})` : ''}: the whole base runs fresh, before head`,
  );
  const whole = await s.run('revert', s.guard.signal);
  s.guard.check();
  return whole;
}

/**
 * Both sides from trusted cache entries (kernel sealing): each may only
 * confirm holds. Every case that is not holds against the cached outcomes
 * (fixed, regressed, pending, skipped, absent) hinges on one, so it runs
 * fresh on both sides, and only those cases where the runner can be told
 * (runenv.ts), one side after the other (withBothCached's order below); its
 * fresh outcomes take the cached ones' place. A case still
 * not holds that did not run fresh on both sides, or a fresh part that cannot
 * be judged, sends both sides to run whole.
 */
async function withBothCached(result: RevertResult, s: Steps, base: CachedRun, head: CachedRun): Promise<Runs | null> {
  result.reverted = await s.revert();
  const hinge = hingeCases(head.run, base.run, s);
  const keys = `head key ${head.key.slice(0, 12)}, base key ${base.key.slice(0, 12)}`;
  s.say(
    hinge.length
      ? `cached on both sides (${keys}); ${names(hinge)} hinge on a cached outcome, so those cases run fresh on both sides`
      : `cached on both sides (${keys}): every case holds`,
  );
  if (!hinge.length) {
    if (headSettles(result, s, head.run)) return null;
    return { onHead: head.run, onRevert: base.run, cached: base.key, headCached: head.key };
  }
  // One part after the other, never beside each other: in turn the base's
  // first; where the sides run at once, head's first, then the base's alone
  // once every process of head's has ended, as confirmedAlone would run it.
  const ran = {} as Record<Side, PropertyRun>;
  for (const side of s.jobs > 1 ? (['head', 'revert'] as const) : (['revert', 'head'] as const)) {
    ran[side] = await s.run(side, s.guard.signal, false, hinge);
    s.guard.check();
  }
  const { head: headPart, revert: basePart } = ran;
  const problem = headPart.problem ?? basePart.problem;
  if (problem) s.say(`the fresh run of those cases cannot be judged (${problem})`);
  else {
    const [h, b] = [askedFor(headPart, hinge), askedFor(basePart, hinge)];
    s.say(`head: ran fresh ${freshOutcomes(h)}; base: ran fresh ${freshOutcomes(b)}`);
    const ranBoth = new Set(ranNames(h).filter((n) => ranNames(b).includes(n)));
    const [onHead, onRevert] = [merged(head.run, h), merged(base.run, b)];
    const unsure = hingeCases(onHead, onRevert, s).filter((n) => !ranBoth.has(n));
    if (!unsure.length) {
      if (headSettles(result, s, onHead)) return null;
      return { onHead, onRevert, cached: base.key, headCached: head.key, alone: true };
    }
    s.say(`${names(unsure)} still rest on a cached outcome`);
  }
  s.say('a cached outcome only confirms holds: both sides run whole, fresh');
  return s.jobs > 1 ? atOnce(result, s) : inTurn(result, s);
}

/** The names of the cases whose state is not holds, judged on these two runs. */
function hingeCases(onHead: PropertyRun, onRevert: PropertyRun, s: Steps): string[] {
  const ev = judgeStates(onHead.mapping!.invariants, onRevert.mapping!.invariants, s.registry, s.now, s.ttl);
  return [...new Set(ev.invariants.flatMap((i) => i.cases.filter((c) => c.state !== 'holds').map((c) => c.name)))];
}

/** The names of the cases a run reported. */
function ranNames(run: PropertyRun): string[] {
  return run.mapping!.invariants.flatMap((i) => i.outcomes.map((o) => o.name));
}

/** The names of the cases a run failed, each once. */
function failedNames(run: PropertyRun): string[] {
  return [
    ...new Set(
      run.mapping?.invariants.flatMap((i) => i.outcomes.filter((o) => o.outcome === 'failed').map((o) => o.name)) ?? [],
    ),
  ];
}

/**
 * The outcomes of a run of some cases for the cases it was asked to run
 * alone: a runner that reports the others (node:test writes them skipped)
 * answers for them no more than pytest, which leaves them out.
 */
function askedFor(part: PropertyRun, names: string[]): PropertyRun {
  const asked = new Set(names);
  const invariants = part.mapping!.invariants.map((i) => ({
    ...i,
    outcomes: i.outcomes.filter((o) => asked.has(o.name)),
  }));
  return { ...part, mapping: { ...part.mapping!, invariants } };
}

/** The part's outcomes of `names` where it can be judged and ran every one of them; else null. */
function answered(part: PropertyRun, names: string[]): PropertyRun | null {
  if (part.problem) return null;
  const asked = askedFor(part, names);
  const ran = new Set(ranNames(asked));
  return names.every((n) => ran.has(n)) ? asked : null;
}

/** Each case a run of some cases ran, with its outcome, for the output: `"X" failed, "Y" passed`. */
function freshOutcomes(part: PropertyRun): string {
  const ran = part.mapping!.invariants.flatMap((i) => i.outcomes.map((o) => `${JSON.stringify(o.name)} ${o.outcome}`));
  return ran.length ? shortList([...new Set(ran)], 3) : 'no case of those';
}

/** Case names for a progress line: the first three, and how many more (the verdict lists each). */
function names(cases: string[]): string {
  return shortList(
    cases.map((n) => JSON.stringify(n)),
    3,
  );
}

/** The cached run with the outcomes a fresh run of some of its cases gave in their place, and that run's errors added. */
function merged(cached: PropertyRun, part: PropertyRun): PropertyRun {
  const fresh = new Map(part.mapping!.invariants.map((i) => [i.id, new Map(i.outcomes.map((o) => [o.key, o]))]));
  const invariants = cached.mapping!.invariants.map((inv): InvariantResult => {
    const now = fresh.get(inv.id) ?? new Map<string, CaseOutcome>();
    const outcomes = [
      ...inv.outcomes.map((o) => now.get(o.key) ?? o),
      ...[...now.values()].filter((o) => !inv.outcomes.some((c) => c.key === o.key)),
    ];
    const status = !outcomes.length
      ? 'missing'
      : outcomes.some((o) => o.outcome === 'failed')
        ? 'failed'
        : outcomes.every((o) => o.outcome === 'skipped')
          ? 'skipped'
          : 'passed';
    return {
      ...inv,
      outcomes,
      status,
      cases: outcomes.map((o) => o.name),
      case_count: new Set(outcomes.filter((o) => o.outcome !== 'skipped').map((o) => o.key)).size,
    };
  });
  const mapping = { ...cached.mapping!, invariants, strays: [...cached.mapping!.strays, ...part.mapping!.strays] };
  return { ...cached, mapping, output: part.output, elapsedMs: part.elapsedMs };
}

/** The key of the reverted run (cache-key.ts), the head run's where `head` (its changes) is given, and the cache opened at them. */
async function revertCache(
  repo: Repo,
  config: Config,
  onto: string,
  kept: RawChange[],
  head: RawChange[] | null,
  seed: PropSeed | null,
  owners: string[],
  before: string,
  say: (l: string) => void,
): Promise<RevertCache> {
  // The tree, the judge's digest, the programs' versions and containment are
  // taken together; the sealed mode (a blocking probe under kernel) meanwhile.
  let sealed = 'off';
  const known = Promise.all([treeWith(repo, onto, kept), judgeIdentity(), containment()]);
  const headTree = head ? treeWith(repo, onto, head) : null;
  const keyed = cacheKey(
    config,
    repo.root,
    { ...runEnv(config), ...seedEnv(seed) },
    known.then(([tree, judge, contained]) => ({ tree, judge, owners, contained, sealed })),
  );
  sealed = sealedMode(config);
  const { key, parts } = await keyed;
  const contained = await containment();
  const keys = { base: key, head: headTree ? headKey(parts, await headTree) : null };
  return openRevertCache(repo, keys, contained === 'pidns' || contained === 'subreaper', before, say);
}

/** A head run that cannot be judged settles the check: fails_on_head. */
function headSettles(result: RevertResult, s: Steps, onHead: PropertyRun): boolean {
  const headIssues = onHead.problem ? [onHead.problem] : headProblems(onHead.mapping!, s.registry);
  result.head_run = summary(onHead, headIssues);
  result.sealed = onHead.sealed;
  s.say(
    `properties on head ${headIssues.length ? 'cannot be judged' : 'ran'} (${formatDuration(onHead.elapsedMs)}, sealed: ${onHead.sealed})`,
  );
  if (!headIssues.length) return false;
  Object.assign(result, {
    status: 'fails_on_head',
    reason: `on head: ${headIssues.join('; ')}${harnessNote(result.outside_src)}`,
    output: onHead.output,
    output_of: 'head',
  });
  return true;
}

/** Each case judged against the other run. */
async function judgeRuns(
  result: RevertResult,
  s: Steps,
  { onHead, onRevert, cached, headCached }: Runs,
): Promise<void> {
  const { revertIssue, reverted, byBuild } = await revertedSide(s, onHead, onRevert);
  if (result.head_run) result.head_run.cached = headCached ?? null;
  result.revert_run = { ...summary(onRevert, revertIssue ? [revertIssue] : []), cached: cached ?? null };
  result.sealed = weakestMode([onHead.sealed, onRevert.sealed]);
  if (revertIssue) {
    // A vouched diff whose every case passes on head has nothing the reverted run must judge.
    if (!s.owed && allPass(onHead.mapping!)) {
      Object.assign(result, {
        status: 'vouched',
        reason: `every case passes on head; the reverted run said nothing (${revertIssue})`,
      });
    } else {
      Object.assign(result, {
        status: 'revert_broken',
        reason: `with the production diff reverted, ${revertIssue}`,
        output: onRevert.output,
        output_of: 'reverted',
      });
    }
    return;
  }
  const ev = judgeStates(onHead.mapping!.invariants, reverted, s.registry, s.now, s.ttl);
  for (const inv of ev.invariants)
    if (inv.state === 'fixed' && byBuild?.has(inv.id)) inv.by_build = byBuild.get(inv.id);
  await baseFindings(result, s, { onHead, onRevert }, ev);
  Object.assign(result, {
    states: ev.invariants,
    pending: ev.pending,
    green: ev.green,
    neutral: ev.neutral,
    failing_on_revert: ev.fixed,
  });
  s.say(
    `case states: ${ev.invariants.map((i) => `${i.id} ${i.state}${i.by_build ? ' (by build)' : ''}`).join(', ')} (${formatDuration(onRevert.elapsedMs)})`,
  );
  if (ev.refusals.length) {
    const why = new Set(ev.refusals.map((r) => r.why));
    const status: RevertStatus = why.has('regressed')
      ? 'regressed'
      : why.has('unmarked') || why.has('expired')
        ? 'pending_unmarked'
        : 'fails_on_head';
    const unmarked = ev.refusals.filter((r) => r.why === 'unmarked').map((r) => r.id);
    Object.assign(result, {
      status,
      reason: ev.refusals.map((r) => r.message).join('; ') + harnessNote(result.outside_src),
      fix: unmarked.length ? markAdvice(s.registry, unmarked, s.now) : null,
      output: onHead.output,
      output_of: 'head',
    });
    return;
  }
  if (!s.owed) {
    Object.assign(result, {
      status: 'vouched',
      reason: `no case regressed${ev.fixed.length ? `; fixed: ${ev.fixed.join(', ')}` : ''}`,
    });
    return;
  }
  if (ev.fixed.length) {
    Object.assign(result, {
      status: 'describes_patch',
      reason: `with the production diff reverted these invariants fail and pass with it: ${ev.fixed.join(', ')}`,
    });
    return;
  }
  const unrun = ev.invariants.flatMap((i) => i.cases.filter((c) => c.reverted === 'missing').map((c) => c.name));
  const strays = (onRevert.mapping?.strays ?? []).map((x) => x.name);
  if (unrun.length || strays.length) {
    const what = [
      unrun.length ? `cases that did not run: ${unrun.join(', ')}` : '',
      strays.length ? `errors outside any invariant: ${strays.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    Object.assign(result, {
      status: 'revert_broken',
      reason: `with the production diff reverted no case failed, but the run is inconclusive (${what})`,
      output: onRevert.output,
      output_of: 'reverted',
    });
    return;
  }
  Object.assign(result, {
    status: 'does_not_describe',
    reason:
      'with the production diff reverted no case of a registered invariant fails that passes with it: the properties do not describe this patch',
    fix: `a human owner adds a registered property that fails without this patch, in a commit of its own${s.advice ? `;\n${s.advice}` : ''}`,
    output: onRevert.output,
    output_of: 'reverted',
  });
}

/**
 * The reverted run's invariants, or why it cannot be judged. A run that failed
 * to build only for want of symbols the patch adds counts each invariant
 * whose property file misses them as failing in every case (by build).
 */
async function revertedSide(s: Steps, onHead: PropertyRun, onRevert: PropertyRun) {
  // Only a run whose report was read: a timeout or a guard's refusal is never read as a build failure.
  const read = onRevert.problem === null || onRevert.problem.startsWith('properties.command: ');
  const byBuild = read ? await s.byBuild(onRevert.output, onHead.mapping!.invariants) : null;
  if (byBuild) {
    const build = [...new Set([...byBuild.values()].flat())].join(', ');
    s.say(
      `without the production diff the properties do not build, for want of what it adds (${build}): ${[...byBuild.keys()].join(', ')} fail by build`,
    );
    const reverted = withBuildFailures(onRevert.mapping?.invariants ?? [], onHead.mapping!.invariants, byBuild);
    return { revertIssue: null, reverted, byBuild };
  }
  const revertIssue =
    onRevert.problem ??
    (onRevert.mapping!.mapped
      ? null
      : `the properties could not be collected: ${headProblems(onRevert.mapping!, s.registry)[0]}`);
  return { revertIssue, reverted: onRevert.mapping?.invariants ?? [], byBuild: null };
}

/** The outcomes of one invariant's cases in a run, by key. */
function outcomesOf(run: PropertyRun, id: string): Map<string, CaseOutcome> {
  return new Map(run.mapping?.invariants.find((i) => i.id === id)?.outcomes.map((o) => [o.key, o]) ?? []);
}

/**
 * Under a fresh seed, an invariant refused only for failing in both runs
 * (no unexpired pending mark) is run again on head under the pinned seed;
 * where its cases that failed in both pass there and none fails, the fresh
 * seed found a counterexample on the base side: reported with the row edit
 * (`result.found`), not held against the change. Only head-only failures
 * (regressed) and reverted-only ones (fixed) judge the patch. The head run
 * under the pinned seed is made only when the verdict depends on it: with any
 * other refusal the change is refused whatever it says.
 */
async function baseFindings(result: RevertResult, s: Steps, { onHead, onRevert }: Runs, ev: Evidence): Promise<void> {
  const both = ev.refusals.filter((r) => r.why === 'unmarked' || r.why === 'expired');
  if (!isFresh(s.seed) || !both.length || both.length < ev.refusals.length) return;
  const { value, pinned } = s.seed;
  const failingBoth = (id: string) => {
    const reverted = outcomesOf(onRevert, id);
    return [...outcomesOf(onHead, id).values()].filter(
      (o) => o.outcome === 'failed' && reverted.get(o.key)?.outcome === 'failed',
    );
  };
  s.say(
    `${both.map((r) => r.id).join(', ')} fail with and without the production diff under PROP_SEED=${value}: running the properties on head under the pinned seed (${pinned === null ? 'unpinned' : `PROP_SEED=${pinned}`})`,
  );
  const again = await s.run('head', s.guard.signal, true);
  s.guard.check();
  const issue = again.problem ?? headProblems(again.mapping!, s.registry)[0];
  if (issue) {
    s.say(`the run under the pinned seed cannot be judged (${issue}): the refusal stands`);
    return;
  }
  const found = both.filter((r) => {
    const outcomes = outcomesOf(again, r.id);
    return (
      failingBoth(r.id).every((o) => outcomes.get(o.key)?.outcome === 'passed') &&
      [...outcomes.values()].every((o) => o.outcome !== 'failed')
    );
  });
  if (!found.length) return;
  const ids = found.map((r) => r.id);
  ev.refusals = ev.refusals.filter((r) => !ids.includes(r.id));
  result.found = {
    seed: value,
    pinned,
    invariants: ids,
    cases: ids.flatMap((id) => failingBoth(id).map((o) => o.name)),
    fix: markAdvice(s.registry, ids, s.now),
  };
  s.say(`${ids.join(', ')} pass on head under the pinned seed: a finding about the base, not a refusal of this change`);
}

/** The change with its sides swapped: reverting it writes the new side. */
function flipped(c: RawChange): RawChange {
  return { ...c, oldMode: c.newMode, oldOid: c.newOid, newMode: c.oldMode, newOid: c.oldOid };
}

type Step = (root: string, env: NodeJS.ProcessEnv, scratch?: string) => Promise<void>;

/** In-place mode: building the judged tree in the working tree, then the two runs in it. */
interface Judge {
  toBase: Step;
  runs: Step;
}

/**
 * One run in a root of its own: a fresh worktree of `onto` with `changes`
 * (what admitted owner commits change, and the production diff on head), its temporary
 * folder and caches beside it, the `revert.link` entries linked in, the
 * runtime guards on. Nothing of one run is there for the next.
 */
async function freshRun(
  repo: Repo,
  config: Config,
  registry: Registry,
  classify: Classify,
  onto: string,
  side: Side,
  changes: RawChange[],
  {
    guard,
    stop,
    cache,
    beside,
    env,
    onFailing,
  }: {
    guard: Guard;
    stop: AbortSignal;
    cache: BuildCache;
    /** The other side runs at the same time, fenced (sidesAtOnce). */
    beside: boolean;
    env: Record<string, string>;
    onFailing?: (name: string) => void;
  },
  say: (l: string) => void,
): Promise<PropertyRun> {
  const name = side === 'head' ? 'head' : 'base';
  const files = await treeWith(repo, onto, changes);
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-run-')));
  let tree: TempTree | null = null;
  try {
    const tmp = path.join(root, 'tmp');
    mkdirSync(tmp);
    tree = await traced(`${name}: worktree`, () =>
      addTempWorktree(repo, onto, { files, into: path.join(root, 'tree') }),
    );
    say(`temporary worktree at ${name}: ${tree.dir}`);
    guard.check();
    // Linked once the tree is final, so no write of the check goes through a link into the main tree.
    if (repo.root) {
      const linked = linkEntries(tree, repo.root, config.revert.link);
      if (linked.length) say(`linked from the main tree: ${linked.join(', ')}`);
    }
    const trusted = await traced(`${name}: trusted code files`, () =>
      codeFiles(repo, files, (f) => classify(f) !== 'src'),
    );
    // Stopped while its tree was being made: the command is never started.
    stop.throwIfAborted();
    // The other side runs at the same time: every tracked file is stamped and its mode checked (tree-stamps.ts).
    const tracked = beside ? await listTree(repo, files) : undefined;
    const gocache = cache.open(side, tmp);
    const run = await runProperties(tree.dir, config, registry, {
      classify,
      signal: stop,
      guard: { tmp, trusted, main: repo.root, gocache, tracked },
      env: { ...env, ...sideEnv(side) },
      onFailing,
    });
    if (side === 'revert' && !run.problem) cache.keep(gocache);
    return run;
  } finally {
    if (tree) {
      say('removing the temporary worktree');
      await traced(`${name}: worktree removal`, () => tree!.remove());
    }
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The working tree itself, like `git stash push --include-untracked`: the
 * snapshot records every tracked, staged and untracked byte first; uncommitted
 * changes are then set aside so both runs see the tree as committed at HEAD;
 * the snapshot brings everything back at the end, or `recover` does after a
 * kill. The throwaway index files live in the git directory (scratch.ts).
 */
async function inPlace(
  repo: Repo,
  head: string,
  judged: RawChange[],
  guard: Guard,
  say: (l: string) => void,
  judge: Judge,
): Promise<void> {
  const root = worktreeRoot(repo);
  if ((await resolveCommit(repo, 'HEAD')) !== head)
    throw new UsageError(
      'revert.mode: in-place checks the working tree, so --head must be the commit checked out (HEAD)',
    );
  let snap: Snapshot | null = null;
  const scratch = makeScratch(repo);
  try {
    say('snapshot of the working tree');
    // Staged paths, deletions among them: a path of HEAD the index lacks is written when set aside.
    const staged = await stagedPaths(repo, head);
    snap = await takeSnapshot(repo, root, head, [...new Set([...judged.map((c) => c.path), ...staged])], scratch);
    guard.check();
    const aside = revertable(await treeDiff(repo, head, `${snap.commit}:worktree`)).filter(
      (c) => !snap!.meta.skipped.includes(c.path),
    );
    if (aside.length) {
      say(`setting aside ${aside.length} uncommitted change(s) (tracked, staged and untracked files)`);
      await revertPaths(root, aside, {}, scratch);
      guard.check();
    }
    await judge.toBase(root, {}, scratch);
    await judge.runs(root, {}, scratch);
  } finally {
    // Restore from the ref as stored, not from memory: the same path `recover` takes.
    const stored = snap ? await findSnapshot(repo) : null;
    if (stored && stored.commit === snap!.commit) {
      say('restoring the working tree from the snapshot');
      const r = await restoreSnapshot(repo, stored);
      say(
        `working tree restored (${r.restored.length} file(s) written back, ${r.removed.length} removed, index ${r.index})`,
      );
    }
    dropScratch(repo, scratch);
  }
}
