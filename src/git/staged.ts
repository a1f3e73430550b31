// What a pre-commit hook judges: the index git hands it against the commit's
// base side, and the config blob on that side, read in as few git processes
// as each case allows. The base side is HEAD; for an amend, the parents of the
// commit being amended; for a repository's first commit, the empty tree, and
// then the config comes from the index.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../zones/names.js';
import { mergeTree } from './merges.js';
import { CannotJudge } from '../common/errors.js';
import { parseRaw, rawFlags, type RawChange } from './raw-diff.js';
import { emptyTree, notARepo, REPO_FLAGS, repoFrom, type Repo } from './repo.js';
import { runGit, runGitSync, splitNul, type RunResult } from './run.js';

export interface Staged {
  repo: Repo;
  /** A merge is being concluded (MERGE_HEAD): the changes are what its resolution authors. */
  merging: boolean;
  /** With both sides' modes and blob ids (the new side is the index): links are judged by their target. */
  changes: RawChange[];
  /** The judging config: its blob id (null when there is none) and how messages name it. */
  config: { oid: string | null; shown: string };
  /**
   * What the changes are against (a commit or tree; null: the empty tree),
   * and the commit on the base side (null on a first commit).
   */
  base: { from: string | null; rev: string | null };
}

export async function readStaged(dir: string, amend: boolean): Promise<Staged> {
  if (amend) return readAmend(dir);
  // The common case, two processes: the repository and HEAD's config blob, then the diff against HEAD.
  let info: RunResult;
  try {
    info = runGitSync(dir, ['rev-parse', ...REPO_FLAGS, '--verify', '--quiet', `HEAD:${CONFIG_FILE}`], {
      okCodes: [1],
    });
  } catch (err) {
    throw notARepo(dir, err);
  }
  const diff = runGitSync(dir, ['diff-index', '--cached', ...rawFlags, 'HEAD', '--'], { okCodes: [128] });
  const lines = info.stdout.toString('utf8').split('\n');
  const repo = repoFrom(dir, lines);
  if (diff.code === 0) {
    const oid = info.code === 0 ? lines[REPO_FLAGS.length] : null;
    const config = { oid, shown: `HEAD:${CONFIG_FILE}` };
    const merging = mergeHeads(repo);
    if (merging) {
      const merged = await resolution(repo, merging);
      return {
        repo,
        merging: true,
        changes: merged?.changes ?? parseRaw(splitNul(diff.stdout)),
        config,
        base: { from: merged?.tree ?? 'HEAD', rev: 'HEAD' },
      };
    }
    return {
      repo,
      merging: false,
      changes: parseRaw(splitNul(diff.stdout)),
      config,
      base: { from: 'HEAD', rev: 'HEAD' },
    };
  }
  const head = await repo.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { okCodes: [1] });
  if (head.code === 0) throw new CannotJudge(`git diff-index against HEAD failed: ${diff.stderr.trim()}`);
  return firstCommit(repo);
}

/** No commit yet: everything staged is new, and the config judging it is the one staged with it. */
async function firstCommit(repo: Repo): Promise<Staged> {
  const [changes, oid] = await Promise.all([emptyTree(repo).then((t) => diffIndex(repo, t)), blobAt(repo, ':')]);
  return { repo, merging: false, changes, config: { oid, shown: `:${CONFIG_FILE}` }, base: { from: null, rev: null } };
}

/**
 * An amend replaces HEAD: what counts is the index against HEAD's parents, so
 * a change added to a production commit is judged together with it. With
 * several parents a path counts when it differs from each of them.
 */
async function readAmend(dir: string): Promise<Staged> {
  const info = await runGit(dir, ['rev-parse', ...REPO_FLAGS, 'HEAD^@']).catch((err) => {
    throw notARepo(dir, err);
  });
  const lines = info.stdout.toString('utf8').split('\n');
  const repo = repoFrom(dir, lines);
  const parents = lines.slice(REPO_FLAGS.length).filter(Boolean);
  if (!parents.length) return firstCommit(repo);
  const [diffs, oid] = await Promise.all([
    Promise.all(parents.map((p) => diffIndex(repo, p))),
    blobAt(repo, `${parents[0]}:`),
  ]);
  const others = diffs.slice(1).map((d) => new Set(d.map((c) => c.path)));
  return {
    repo,
    merging: false,
    changes: diffs[0].filter((c) => others.every((o) => o.has(c.path))),
    config: { oid, shown: `HEAD^1:${CONFIG_FILE}` },
    base: { from: parents[0], rev: parents[0] },
  };
}

/** The commits being merged in (MERGE_HEAD), or null when no merge is in progress. */
function mergeHeads(repo: Repo): string[] | null {
  try {
    const heads = readFileSync(path.join(repo.gitDir, 'MERGE_HEAD'), 'utf8').split('\n').filter(Boolean);
    return heads.length ? heads : null;
  } catch {
    return null;
  }
}

/**
 * What concluding a merge authors, as the range rules judge a merge commit:
 * the index against git's own merge of HEAD and MERGE_HEAD (with conflict
 * markers where it conflicts, so each resolved conflict counts). Null for
 * an octopus or histories git will not merge: then everything against HEAD.
 */
async function resolution(repo: Repo, heads: string[]): Promise<{ changes: RawChange[]; tree: string } | null> {
  if (heads.length !== 1) return null;
  const tree = await mergeTree(repo, 'HEAD', heads[0]);
  return tree ? { changes: await diffIndex(repo, tree), tree } : null;
}

async function diffIndex(repo: Repo, base: string): Promise<RawChange[]> {
  return parseRaw(splitNul((await repo.run(['diff-index', '--cached', ...rawFlags, base, '--'])).stdout));
}

/** The config's blob id under a revision prefix (`REV:` or `:` for the index), or null. */
async function blobAt(repo: Repo, prefix: string): Promise<string | null> {
  const r = await repo.run(['rev-parse', '--verify', '--quiet', `${prefix}${CONFIG_FILE}`], { okCodes: [1] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() : null;
}
