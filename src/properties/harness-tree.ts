// The tree a change without production code is judged on. There is nothing
// to revert, so the properties run once; from config version 2 they run on
// head with every harness path (config/harness.ts, the setup files the
// base's configs name, and the files shared with the build) as the base has
// it, as the revert check's judged tree has them, except what admitted
// owner-signed commits of the range change: a harness-only change never
// judges itself. Version 1 runs on the working tree, as before.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HARNESS_CONFIGS, harnessGlobs, SHARED_FILES } from '../config/harness.js';
import { SHARED_CONFIGS, setupFilesOf } from '../config/harness-setup.js';
import type { Config } from '../config/schema.js';
import { rangeChanges, treeDiff, type RawChange } from '../git/changes.js';
import { listTree, readBlobs } from '../git/objects.js';
import { worktreeRoot, type Repo } from '../git/repo.js';
import { treeWith } from '../git/trees.js';
import { admitOwnerCommits } from '../owners/admission.js';
import { globMatcher } from '../zones/glob.js';
import type { Registry } from './registry.js';
import { runProperties, type PropertyRun, type RunOptions } from './run.js';
import { addTempWorktree, linkEntries } from './worktree.js';

export interface HeadOnlyRange {
  /** Where the range starts (its commits are `head --not base`). */
  base: string;
  head: string;
  /** The side whose harness judges: the target branch. */
  onto: string;
  now: Date;
}

export interface HeadOnlyRun extends PropertyRun {
  /** The harness paths taken from `onto`; empty when the working tree ran. */
  fromBase: string[];
}

/** Runs the properties of a change without production code, on the base's harness. */
export async function runHeadOnly(
  repo: Repo,
  config: Config,
  registry: Registry,
  range: HeadOnlyRange,
  opts: RunOptions & { progress(line: string): void },
): Promise<HeadOnlyRun> {
  const changes = await harnessFromBase(repo, config, range);
  if (!changes.length) {
    opts.progress('no production change: running the properties on the working tree');
    return { ...(await runProperties(worktreeRoot(repo), config, registry, opts)), fromBase: [] };
  }
  const fromBase = changes.map((c) => c.path);
  opts.progress(
    `no production change: running the properties on head with the base's harness (${fromBase.join(', ')})`,
  );
  const files = await treeWith(repo, range.head, changes);
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-run-')));
  const tree = await addTempWorktree(repo, range.head, { files, into: path.join(root, 'tree') });
  try {
    if (repo.root) linkEntries(tree, repo.root, config.revert.link);
    return { ...(await runProperties(tree.dir, config, registry, opts)), fromBase };
  } finally {
    await tree.remove();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The changes that put head's harness and shared files back to `onto`'s, leaving out the
 * paths only admitted owner-signed commits of the range change. None before
 * version 2.
 */
export async function harnessFromBase(repo: Repo, config: Config, range: HeadOnlyRange): Promise<RawChange[]> {
  const globs = harnessGlobs(config);
  if (!globs.length) return [];
  const inGlobs = globMatcher([...globs, ...SHARED_FILES]);
  const setup = await namedSetupFiles(repo, range.onto);
  const isHarness = (p: string) => inGlobs(p) || setup.has(p);
  const back = (await treeDiff(repo, range.head, range.onto)).filter((c) => isHarness(c.path));
  if (!back.length) return [];
  const kept = await ownerKept(repo, config, range, isHarness);
  return back.filter((c) => !kept.has(c.path));
}

/** The setup files the harness and shared configs of `rev` name (unreadable ones name none: their own file is still the base's). */
async function namedSetupFiles(repo: Repo, rev: string): Promise<Set<string>> {
  const entries = (await listTree(repo, rev)).filter((e) => e.type === 'blob');
  const paths = new Set(entries.map((e) => e.path));
  const isConfig = globMatcher([...HARNESS_CONFIGS, ...SHARED_CONFIGS]);
  const configs = entries.filter((e) => isConfig(e.path) && !e.path.includes('node_modules/'));
  const blobs = await readBlobs(
    repo,
    configs.map((e) => e.oid),
  );
  const out = new Set<string>();
  for (const e of configs) {
    const named = setupFilesOf(e.path, blobs.get(e.oid)?.toString('utf8') ?? '', (p) => paths.has(p));
    if ('files' in named) for (const f of named.files) out.add(f);
  }
  return out;
}

/** Harness paths that admitted owner-signed commits of the range change and no other commit of it touches. */
async function ownerKept(
  repo: Repo,
  config: Config,
  range: HeadOnlyRange,
  isHarness: (p: string) => boolean,
): Promise<Set<string>> {
  const kept = new Set<string>();
  if (config.owners.signers === null) return kept;
  const { commits, changes } = await rangeChanges(repo, [range.head, '--not', range.base]);
  const candidates = commits.filter((c) => (changes.get(c) ?? []).some((ch) => isHarness(ch.path)));
  const verdicts = await admitOwnerCommits(repo, config, range.onto, candidates, {
    base: range.base,
    commits: new Set(commits),
    now: range.now,
  });
  const owners = candidates.filter((c) => verdicts.get(c) === null);
  const others = new Set(
    commits.filter((c) => !owners.includes(c)).flatMap((c) => (changes.get(c) ?? []).map((ch) => ch.path)),
  );
  for (const c of owners) for (const ch of changes.get(c) ?? []) if (!others.has(ch.path)) kept.add(ch.path);
  return kept;
}
