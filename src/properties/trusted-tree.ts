// The tree a check runs the branch's code on without the branch's oracles:
// `onto` (the target branch) plus what admitted owner-signed commits of the
// range change, plus the range's production diff: the revert check's head
// side, as a temporary worktree of its own. replay --base runs there, and
// scratch on `onto` taken as the base plus the branch's proposed oracle files.
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { treeWith } from '../git/trees.js';
import { classifierFor } from '../config/classifier.js';
import { judgedTree, rangeFacts } from './revert.js';
import { addTempWorktree, linkEntries, type TempTree } from './worktree.js';

export interface TrustedRange {
  /** Where the range forked from the target (its commits are `head --not base`). */
  base: string;
  head: string;
  /** The tree the run is built on (the target branch). */
  onto: string;
  now: Date;
}

export interface TrustedTree extends TempTree {
  /** Paths of the production diff taken from head. */
  production: string[];
  /** Paths admitted owner-signed commits of the range change, taken from head. */
  kept: string[];
}

/** A temporary worktree of `onto` plus the admitted owner changes and the production diff of the range. */
export async function trustedTree(repo: Repo, config: Config, range: TrustedRange): Promise<TrustedTree> {
  const classify = await classifierFor(repo, config);
  const facts = await rangeFacts(repo, config, classify, range.base, range.head, range.onto, range.now);
  const judged = await judgedTree(repo, classify, range.base, range.head, range.onto, facts.kept);
  const files = await treeWith(repo, range.onto, [...judged.kept, ...judged.production]);
  const tree = await addTempWorktree(repo, range.head, { files });
  if (repo.root) linkEntries(tree, repo.root, config.revert.link);
  return { ...tree, production: judged.production.map((c) => c.path), kept: judged.kept.map((c) => c.path) };
}
