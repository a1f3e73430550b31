// The revert check: the properties pass on head, and with the production diff
// (the src-zone part of base..head) put back to base they fail. A property
// that stays green without the patch does not describe it. By default both
// runs happen in a temporary worktree; `revert.mode: in-place` runs them in
// the working tree under a snapshot (inplace.ts).
import { CannotJudge, UsageError } from '../common/errors.js';
import { formatDuration } from '../common/duration.js';
import type { Config } from '../config/schema.js';
import { treeDiff, type RawChange } from '../git/changes.js';
import { resolveCommit, worktreeRoot, type Repo } from '../git/repo.js';
import { classifierFor } from '../mixing/check.js';
import { headProblems, revertOutcome, type InvariantResult } from './mapping.js';
import { findSnapshot, restoreSnapshot, takeSnapshot, type Snapshot } from './inplace.js';
import { guardSignals, type Guard } from './interrupt.js';
import { loadRegistryAt, type Registry } from './registry.js';
import { propertyCommand, runProperties, type PropertyRun } from './run.js';
import { revertable, revertPaths, type Reverted } from './tree.js';
import { addTempWorktree, linkEntries, type TempTree } from './worktree.js';
import { counted } from '../common/text.js';

export type RevertStatus = 'describes_patch' | 'does_not_describe' | 'fails_on_head' | 'revert_broken' | 'not_applicable';

export interface RunSummary {
  elapsed_ms: number;
  /** Exit code of the property command (null when killed). */
  code: number | null;
  invariants: InvariantResult[];
  /** Why the run refuses, in plain words (empty on a clean head run). */
  problems: string[];
}

export interface RevertResult {
  status: RevertStatus;
  /** Registered invariants whose cases ran and failed on the reverted tree. */
  failing_on_revert: string[];
  reason: string;
  base: string;
  head: string;
  mode: Config['revert']['mode'];
  /** The production paths, and what the revert did to each. */
  reverted: Reverted[];
  head_run: RunSummary | null;
  revert_run: RunSummary | null;
  /** The property command's own output from the run that decided a refusal. */
  output: string | null;
}

export interface RevertOptions {
  /** Progress lines (phase and time spent), for stderr. */
  progress?: (line: string) => void;
  /** The registry to judge by; read from the base side when absent. */
  registry?: Registry;
}

/** Whether a status lets the patch through. */
export function revertPasses(status: RevertStatus): boolean {
  return status === 'describes_patch' || status === 'not_applicable';
}

/** The src-zone part of base..head that a revert can put back. */
export async function productionDiff(repo: Repo, config: Config, base: string, head: string): Promise<RawChange[]> {
  const classify = await classifierFor(repo, config);
  return revertable((await treeDiff(repo, base, head)).filter((c) => classify(c.path) === 'src'));
}

export async function revertCheck(repo: Repo, config: Config, base: string, head: string, opts: RevertOptions = {}): Promise<RevertResult> {
  const started = Date.now();
  const say = (line: string) => opts.progress?.(`revert-check: ${line} [${formatDuration(Date.now() - started)}]`);
  const mode = config.revert.mode;
  const result: RevertResult = { status: 'not_applicable', failing_on_revert: [], reason: '', base, head, mode, reverted: [], head_run: null, revert_run: null, output: null };
  const production = await productionDiff(repo, config, base, head);
  if (!production.length) {
    result.reason = 'the range changes no production code (src zone): nothing to revert';
    return result;
  }
  propertyCommand(config);
  const registry = opts.registry ?? (await loadRegistryAt(repo, config, base));
  say(`${counted(production.length, 'production path')} to revert, ${counted(registry.invariants.length, 'registered invariant')}, mode ${mode}`);
  const guard = guardSignals((line) => say(line));
  try {
    const judge = (root: string, env: NodeJS.ProcessEnv) => twoRuns(result, {
      run: () => runProperties(root, config, registry, { signal: guard.signal }),
      revert: () => revertPaths(root, production, env),
      registry, guard, say,
    });
    if (mode === 'in-place') await inPlace(repo, head, production, guard, say, judge);
    else await inWorktree(repo, config, head, guard, say, judge);
  } finally {
    guard.release();
  }
  say(`done: ${result.status}`);
  return result;
}

interface Steps {
  run: () => Promise<PropertyRun>;
  revert: () => Promise<Reverted[]>;
  registry: Registry;
  guard: Guard;
  say: (line: string) => void;
}

function summary(run: PropertyRun, problems: string[]): RunSummary {
  return { elapsed_ms: run.elapsedMs, code: run.code, invariants: run.mapping?.invariants ?? [], problems };
}

/** Head run, revert, reverted run; fills in the verdict. */
async function twoRuns(result: RevertResult, s: Steps): Promise<void> {
  s.say('running the properties on head');
  const onHead = await s.run();
  s.guard.check();
  const headIssues = onHead.problem ? [onHead.problem] : headProblems(onHead.mapping!, s.registry);
  result.head_run = summary(onHead, headIssues);
  s.say(`properties on head ${headIssues.length ? 'do not pass' : 'pass'} (${formatDuration(onHead.elapsedMs)})`);
  if (headIssues.length) {
    Object.assign(result, { status: 'fails_on_head', reason: `on head: ${headIssues.join('; ')}`, output: onHead.output });
    return;
  }
  s.say('reverting the production paths to base');
  result.reverted = await s.revert();
  s.guard.check();
  s.say('running the properties with the production diff reverted');
  const onRevert = await s.run();
  s.guard.check();
  if (onRevert.problem) {
    result.revert_run = summary(onRevert, [onRevert.problem]);
    Object.assign(result, { status: 'revert_broken', reason: `with the production diff reverted, ${onRevert.problem}`, output: onRevert.output });
    return;
  }
  const outcome = revertOutcome(onRevert.mapping!);
  result.revert_run = summary(onRevert, outcome.status === 'describes_patch' ? [] : [outcome.reason]);
  s.say(`properties with the revert: ${outcome.status} (${formatDuration(onRevert.elapsedMs)})`);
  Object.assign(result, { status: outcome.status, failing_on_revert: outcome.failing, reason: outcome.reason, output: outcome.status === 'describes_patch' ? null : onRevert.output });
}

async function inWorktree(repo: Repo, config: Config, head: string, guard: Guard, say: (l: string) => void, judge: (root: string, env: NodeJS.ProcessEnv) => Promise<void>): Promise<void> {
  let tree: TempTree | null = null;
  try {
    tree = await addTempWorktree(repo, head);
    say(`temporary worktree at head: ${tree.dir}`);
    guard.check();
    if (repo.root) {
      const linked = linkEntries(tree, repo.root, config.revert.link);
      if (linked.length) say(`linked from the main tree: ${linked.join(', ')}`);
    }
    await judge(tree.dir, tree.env);
  } finally {
    if (tree) {
      say('removing the temporary worktree');
      await tree.remove();
    }
  }
}

async function inPlace(repo: Repo, head: string, production: RawChange[], guard: Guard, say: (l: string) => void, judge: (root: string, env: NodeJS.ProcessEnv) => Promise<void>): Promise<void> {
  const root = worktreeRoot(repo);
  if ((await resolveCommit(repo, 'HEAD')) !== head) throw new UsageError('revert.mode: in-place checks the working tree, so --head must be the commit checked out (HEAD)');
  let snap: Snapshot | null = null;
  try {
    say('snapshot of the working tree');
    snap = await takeSnapshot(repo, root, head, production.map((c) => c.path));
    guard.check();
    const dirty = await dirtyPaths(repo, head, snap);
    if (dirty.length) throw new CannotJudge(`revert.mode: in-place runs on the working tree as committed at HEAD, and these tracked files differ from it: ${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}; commit them first, or use revert.mode: worktree`);
    await judge(root, {});
  } finally {
    // Restore from the ref as stored, not from memory: the same path `recover` takes.
    const stored = snap ? await findSnapshot(repo) : null;
    if (stored && stored.commit === snap!.commit) {
      say('restoring the working tree from the snapshot');
      const r = await restoreSnapshot(repo, stored);
      say(`working tree restored (${r.restored.length} file(s) written back, ${r.removed.length} removed, index ${r.index})`);
    }
  }
}

/** Tracked files of head that the working tree lacks or holds other bytes for. */
async function dirtyPaths(repo: Repo, head: string, snap: Snapshot): Promise<string[]> {
  const diff = await treeDiff(repo, head, `${snap.commit}:worktree`);
  return diff.filter((c) => c.oldMode !== '000000' && c.oldMode !== '160000').map((c) => c.path);
}
