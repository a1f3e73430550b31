// The revert check: the properties pass on head, and with the production diff
// (the src-zone part of base..head) put back to base they fail. A property
// that stays green without the patch does not describe it. The judged tree
// is the base plus the production diff, nothing else: every path outside the
// src zone (spec, tests, conftest.py, runner configuration, build files) is
// as on the base side in both runs, so nothing the patch changes besides
// production code can sway the verdict. By default each run gets a fresh
// worktree of its own tree (the base plus the production diff, then the base)
// in a temporary root of its own, guarded at run time (guard/); `revert.mode:
// in-place` runs both in the working tree under a snapshot (inplace.ts), with
// work in progress set aside.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatDuration } from '../common/duration.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { showPath } from '../common/text.js';
import type { Config } from '../config/schema.js';
import { treeDiff, type RawChange } from '../git/changes.js';
import { resolveCommit, worktreeRoot, type Repo } from '../git/repo.js';
import { splitNul } from '../git/run.js';
import { classifierFor } from '../mixing/check.js';
import type { Classify } from '../zones/classify.js';
import { headProblems, revertOutcome, type InvariantResult } from './mapping.js';
import { dependencyProblems } from './deps.js';
import { findSnapshot, restoreSnapshot, takeSnapshot, type Snapshot } from './inplace.js';
import { guardSignals, type Guard } from './interrupt.js';
import { loadRegistryAt, type Registry } from './registry.js';
import { propertyCommand, runProperties, type PropertyRun } from './run.js';
import { dropScratch, makeScratch } from './scratch.js';
import { codeFiles, GITLINK, revertable, revertPaths, treeWith, type Reverted } from './tree.js';
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
  /** Paths outside the src zone that base..head changes: both runs take them from the base side. */
  outside_src: string[];
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
  /**
   * The commit the judged tree is built on (the gate: the target branch,
   * while `base` is where the patch forked from it); `base` when absent.
   */
  onto?: string;
}

/** Whether a status lets the patch through. */
export function revertPasses(status: RevertStatus): boolean {
  return status === 'describes_patch' || status === 'not_applicable';
}

/**
 * What the two runs are built from. Starting at head, `harness` puts every
 * path that is not the patch's production code back to `onto`; `production`
 * then reverts the patch's production paths to `onto` as well.
 */
export interface JudgedTree {
  production: RawChange[];
  harness: RawChange[];
  /** The patch's own paths outside the src zone, for the refusal that names them. */
  outsideSrc: string[];
}

/** Every kind of change counts: files, links, modes, types and submodule pointers. */
export async function judgedTree(repo: Repo, classify: Classify, base: string, head: string, onto = base): Promise<JudgedTree> {
  const patch = await treeDiff(repo, base, head);
  const src = new Set(patch.filter((c) => classify(c.path) === 'src').map((c) => c.path));
  const outsideSrc = patch.filter((c) => classify(c.path) !== 'src').map((c) => c.path);
  const all = onto === base ? patch : await treeDiff(repo, onto, head);
  return { production: all.filter((c) => src.has(c.path)), harness: all.filter((c) => !src.has(c.path)), outsideSrc };
}

export async function revertCheck(repo: Repo, config: Config, base: string, head: string, opts: RevertOptions = {}): Promise<RevertResult> {
  const started = Date.now();
  const say = (line: string) => opts.progress?.(`revert-check: ${line} [${formatDuration(Date.now() - started)}]`);
  const mode = config.revert.mode;
  const result: RevertResult = { status: 'not_applicable', failing_on_revert: [], reason: '', base, head, mode, reverted: [], outside_src: [], head_run: null, revert_run: null, output: null };
  const classify = await classifierFor(repo, config);
  const tree = await judgedTree(repo, classify, base, head, opts.onto);
  result.outside_src = tree.outsideSrc;
  if (!tree.production.length) {
    result.reason = 'the range changes no production code (src zone): nothing to revert';
    return result;
  }
  propertyCommand(config);
  const registry = opts.registry ?? (await loadRegistryAt(repo, config, base));
  say(`${counted(tree.production.length, 'production path')} to revert, ${counted(registry.invariants.length, 'registered invariant')}, mode ${mode}`);
  const guard = guardSignals((line) => say(line));
  const onto = opts.onto ?? base;
  try {
    if (mode === 'in-place') {
      const judged = [...tree.harness, ...tree.production];
      const links = judged.filter((c) => c.oldMode === GITLINK || c.newMode === GITLINK).map((c) => c.path);
      if (links.length) throw new CannotJudge(`revert.mode: in-place cannot put submodule pointers back in the working tree (${links.map(showPath).join(', ')}); use revert.mode: worktree`);
      await inPlace(repo, head, judged, guard, say, {
        toBase: async (root, env, scratch) => {
          if (!tree.harness.length) return;
          say(`taking ${tree.harness.length} path(s) outside the production diff from the base side`);
          await revertPaths(root, tree.harness, env, scratch);
          guard.check();
        },
        runs: async (root, env, scratch) => {
          const trees = { head: await treeWith(repo, onto, tree.production, scratch), revert: await treeWith(repo, onto, [], scratch) };
          let n = 0;
          await twoRuns(result, {
            run: async (side) => {
              const tmp = path.join(scratch!, `run-${++n}`);
              mkdirSync(tmp);
              const trusted = await codeFiles(repo, trees[side], (f) => classify(f) !== 'src');
              return runProperties(root, config, registry, { classify, signal: guard.signal, guard: { tmp, trusted } });
            },
            revert: () => revertPaths(root, tree.production, env, scratch),
            registry, guard, say,
          });
        },
      });
    } else {
      const deps = repo.root ? await dependencyProblems(repo, repo.root, onto, config.revert.link) : [];
      if (deps.length) {
        Object.assign(result, { status: 'fails_on_head', reason: `dependencies differ from the base: ${deps.join('; ')}. The runs link them in from the main tree, and what a dependency installs runs before any property: install them from the base's lock files (npm ci, uv sync) before the check, or land the dependency change first, reviewed, in a change of its own` });
      } else {
        await twoRuns(result, {
          run: (side) => freshRun(repo, config, registry, classify, onto, side === 'head' ? tree.production : [], guard, say),
          revert: async () => tree.production.map((c) => ({ path: c.path, action: c.oldMode === ABSENT ? 'removed' : 'restored' })),
          registry, guard, say,
        });
      }
    }
  } finally {
    guard.release();
  }
  say(`done: ${result.status}`);
  return result;
}

const ABSENT = '000000';

interface Steps {
  /** One run of the properties: on the base plus the production diff, or with it reverted. */
  run: (side: 'head' | 'revert') => Promise<PropertyRun>;
  revert: () => Promise<Reverted[]>;
  registry: Registry;
  guard: Guard;
  say: (line: string) => void;
}

function summary(run: PropertyRun, problems: string[]): RunSummary {
  return { elapsed_ms: run.elapsedMs, code: run.code, invariants: run.mapping?.invariants ?? [], problems };
}

/** A head run that fails while head also changes the harness: say the harness must land first. */
function harnessNote(outsideSrc: string[]): string {
  if (!outsideSrc.length) return '';
  const shown = outsideSrc.slice(0, 8).map(showPath).join(', ') + (outsideSrc.length > 8 ? `, … (${outsideSrc.length} in all)` : '');
  return `; head also differs from the base outside the src zone (${shown}), and the check runs every such path as on the base side: if the properties need head's side of them, they must land first, reviewed, in a change of their own (or, where the base moved on, rebase onto it)`;
}

/** Head run, revert, reverted run; fills in the verdict. */
async function twoRuns(result: RevertResult, s: Steps): Promise<void> {
  s.say('running the properties on head');
  const onHead = await s.run('head');
  s.guard.check();
  const headIssues = onHead.problem ? [onHead.problem] : headProblems(onHead.mapping!, s.registry);
  result.head_run = summary(onHead, headIssues);
  s.say(`properties on head ${headIssues.length ? 'do not pass' : 'pass'} (${formatDuration(onHead.elapsedMs)})`);
  if (headIssues.length) {
    Object.assign(result, { status: 'fails_on_head', reason: `on head: ${headIssues.join('; ')}${harnessNote(result.outside_src)}`, output: onHead.output });
    return;
  }
  s.say('reverting the production paths to base');
  result.reverted = await s.revert();
  s.guard.check();
  s.say('running the properties with the production diff reverted');
  const onRevert = await s.run('revert');
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

type Step = (root: string, env: NodeJS.ProcessEnv, scratch?: string) => Promise<void>;

/** In-place mode: building the judged tree in the working tree, then the two runs in it. */
interface Judge {
  toBase: Step;
  runs: Step;
}

/**
 * One run in a root of its own: a fresh worktree of `onto` with `changes`
 * (the production diff, or nothing for the reverted run), its temporary
 * folder and caches beside it, the `revert.link` entries linked in, the
 * runtime guards on. Nothing of one run is there for the next.
 */
async function freshRun(repo: Repo, config: Config, registry: Registry, classify: Classify, onto: string, changes: RawChange[], guard: Guard, say: (l: string) => void): Promise<PropertyRun> {
  const files = await treeWith(repo, onto, changes);
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-run-')));
  let tree: TempTree | null = null;
  try {
    const tmp = path.join(root, 'tmp');
    mkdirSync(tmp);
    tree = await addTempWorktree(repo, onto, { files, into: path.join(root, 'tree') });
    say(`temporary worktree at ${changes.length ? 'head' : 'base'}: ${tree.dir}`);
    guard.check();
    // Linked once the tree is final, so no write of the check goes through a link into the main tree.
    if (repo.root) {
      const linked = linkEntries(tree, repo.root, config.revert.link);
      if (linked.length) say(`linked from the main tree: ${linked.join(', ')}`);
    }
    const trusted = await codeFiles(repo, files, (f) => classify(f) !== 'src');
    return await runProperties(tree.dir, config, registry, { classify, signal: guard.signal, guard: { tmp, trusted } });
  } finally {
    if (tree) {
      say('removing the temporary worktree');
      await tree.remove();
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
async function inPlace(repo: Repo, head: string, judged: RawChange[], guard: Guard, say: (l: string) => void, judge: Judge): Promise<void> {
  const root = worktreeRoot(repo);
  if ((await resolveCommit(repo, 'HEAD')) !== head) throw new UsageError('revert.mode: in-place checks the working tree, so --head must be the commit checked out (HEAD)');
  let snap: Snapshot | null = null;
  const scratch = makeScratch(repo);
  try {
    say('snapshot of the working tree');
    // Staged paths, deletions among them: a path of HEAD the index lacks is written when set aside.
    const staged = splitNul((await repo.run(['diff-index', '--cached', '-z', '--name-only', '--no-renames', head, '--'])).stdout);
    snap = await takeSnapshot(repo, root, head, [...new Set([...judged.map((c) => c.path), ...staged])], scratch);
    guard.check();
    const aside = revertable(await treeDiff(repo, head, `${snap.commit}:worktree`)).filter((c) => !snap!.meta.skipped.includes(c.path));
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
      say(`working tree restored (${r.restored.length} file(s) written back, ${r.removed.length} removed, index ${r.index})`);
    }
    dropScratch(repo, scratch);
  }
}
