// What most commands start with: the repository and its config.
import type { Common } from '../common/args.js';
import type { Config } from './schema.js';
import { loadConfig } from './load.js';
import { openRepo, type Repo } from '../git/repo.js';

export async function openWithConfig(common: Common): Promise<{ repo: Repo; config: Config }> {
  const repo = await openRepo(common.dir);
  return { repo, config: await loadConfig(repo, common.config) };
}
