// The behaviour of a production diff between two commits, as the revert
// check finds it: the src-zone paths base..head changes, compared by
// changesBehaviour (the check itself hands it the changes it already found).
import { classifierFor } from '../../src/config/classifier.js';
import type { Config } from '../../src/config/schema.js';
import { treeDiff } from '../../src/git/changes.js';
import type { Repo } from '../../src/git/repo.js';
import { type Behaviour, changesBehaviour } from '../../src/properties/behaviour.js';

/** The behaviour of the production diff base..head; null when it changes no production path. */
export async function productionBehaviour(
  repo: Repo,
  config: Config,
  base: string,
  head: string,
): Promise<Behaviour | null> {
  const classify = await classifierFor(repo, config);
  return changesBehaviour(
    repo,
    config,
    (await treeDiff(repo, base, head)).filter((c) => classify(c.path) === 'src'),
  );
}
