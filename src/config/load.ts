// Reads `.patchwarden.yml` from the working tree or a revision. The YAML
// parser (parse.ts) loads only when there is a config to parse.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';
import type { Repo } from '../git/repo.js';
import { readFileAt } from '../git/objects.js';
import { defaults, type Config } from './schema.js';
import { CONFIG_FILE } from '../zones/names.js';

const parser = () => import('./parse.js');

/** The config of the working tree (or `--config PATH`); defaults when absent. */
export async function loadConfig(repo: Repo, explicit?: string): Promise<Config> {
  return loadConfigIn(repo.root ?? repo.cwd, explicit);
}

/** The same, for the repository whose top (or git directory, when bare) is `root`. */
export async function loadConfigIn(root: string, explicit?: string): Promise<Config> {
  const file = explicit ? path.resolve(process.cwd(), explicit) : path.join(root, CONFIG_FILE);
  const shown = explicit ?? CONFIG_FILE;
  let text: string;
  try {
    text = readFileSync(file, 'utf8'); // small; a caller may want the answer before the event loop turns
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !explicit) return defaults(shown);
    throw new CannotJudge(`cannot read the config: ${(err as Error).message}`, { file: shown });
  }
  return (await parser()).parseConfig(text, shown);
}

/** The config as committed at `rev` (range modes judge by the base side), or as staged (`:`). */
export async function loadConfigAt(repo: Repo, rev: string): Promise<Config> {
  return configOf(rev, await readFileAt(repo, rev, CONFIG_FILE));
}

/** The config committed at `rev`, from its bytes there (null: none, the defaults). */
export async function configOf(rev: string, blob: Buffer | null): Promise<Config> {
  const shown = rev === ':' ? CONFIG_FILE : `${rev}:${CONFIG_FILE}`;
  return blob ? (await parser()).parseConfig(blob.toString('utf8'), shown) : defaults(shown);
}
