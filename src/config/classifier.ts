// The config's zones as a repository reads paths. A module of its own so that
// a command needing only the classifier (tamper) does not load the mixing and
// owners rules with it.
import { configBool, type Repo } from '../git/repo.js';
import type { Classify } from '../zones/classify.js';
import type { Config } from './schema.js';

/** The glob compiler loads only here (hooks with a cached config never need it). */
export async function classifierFor(repo: Repo, config: Config): Promise<Classify> {
  const [{ zoneClassifier }, ignoreCase] = await Promise.all([
    import('./zone-rules.js'),
    configBool(repo, 'core.ignorecase'),
  ]);
  return zoneClassifier(config, ignoreCase);
}
