// What most commands start with: the repository and its config.
import type { Common } from './args.js';
import type { Config } from '../config/schema.js';
import { loadConfig } from '../config/load.js';
import { openRepo, type Repo } from '../git/repo.js';

export async function openWithConfig(common: Common): Promise<{ repo: Repo; config: Config }> {
  const repo = await openRepo(common.dir);
  return { repo, config: await loadConfig(repo, common.config) };
}
