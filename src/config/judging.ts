// The config that judges a revision: the one way every command and hook
// loads it. `--config PATH` when given, else the config committed at the
// revision; for the enforcement points, where that one does not parse, the
// newest commit of its history whose config does (so a correction can always
// land, and nothing is judged more loosely than before the break).
import { type CannotJudge, isCannotJudge } from '../common/errors.js';
import { firstParentChanges } from '../git/commits.js';
import { commitOrNull, type Repo } from '../git/repo.js';
import { CONFIG_FILE } from '../zones/names.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readFileAt } from '../git/objects.js';
import { loadConfig, loadConfigAt } from './load.js';
import { defaults, type Config } from './schema.js';

export interface Fallback {
  /** The commit whose rules judge in place of the broken ones; null when the first commit brought the broken config. */
  rev: string | null;
  /** Its config: the defaults where that commit had none. */
  config: Config;
}

/**
 * The newest commit on `rev`'s first-parent line whose config parses: the
 * rules a branch with a broken config is judged by until its correction
 * lands, so the correction can land and nothing is judged more loosely than
 * before the break. Null when the 200 newest changes of the config all fail.
 */
export async function lastValidConfig(repo: Repo, rev: string): Promise<Fallback | null> {
  // Each commit that changed the config; the state before it is a candidate.
  for (const changed of await firstParentChanges(repo, rev, CONFIG_FILE, 200)) {
    const parent = await commitOrNull(repo, `${changed}^1`);
    try {
      return { rev: parent, config: parent ? await loadConfigAt(repo, parent) : defaults(CONFIG_FILE) };
    } catch (err) {
      if (!isCannotJudge(err)) throw err;
    }
  }
  return null;
}

/**
 * The rules that judge from `rev`: `--config PATH` when given, else the config
 * committed at `rev`. Where that one does not parse, the enforcement points
 * (hooks, gate) pass `fallBack`: the last config that did judges, said through
 * it, so a correction can land; a command asked about one revision passes
 * none, and the error stands. `rev` in the answer is where the files the
 * config names are read.
 */
export async function judgingConfig(
  repo: Repo,
  explicit: string | undefined,
  rev: string,
  fallBack?: (note: string) => void,
): Promise<{ config: Config; rev: string | null }> {
  if (explicit) return { config: await loadConfig(repo, explicit), rev };
  try {
    return { config: await loadConfigAt(repo, rev), rev };
  } catch (err) {
    if (!isCannotJudge(err) || !fallBack) throw err;
    const fallback = await lastValidConfig(repo, rev);
    if (!fallback) throw err;
    fallBack(fallbackNote(err, fallback));
    return fallback;
  }
}

/** What a hook says when it judges by the last config that parses. */
export function fallbackNote(broken: CannotJudge, fallback: Fallback): string {
  const by = fallback.rev
    ? `the rules of ${fallback.rev.slice(0, 12)}, the last commit where it parses,`
    : 'the default rules (no commit had a config that parses)';
  return `${broken.describe()}; until a correction lands, ${by} judge`;
}

/**
 * What a command judged by `rev`'s committed config says when the working
 * tree's config differs from it (an edit not yet committed, or committed
 * after `rev`): that edit does not judge, and a typo in it is named. Null
 * when they are the same, or in a bare repository.
 */
export async function workingConfigNote(repo: Repo, rev: string): Promise<string | null> {
  if (!repo.root) return null;
  let text: Buffer | null;
  try {
    text = readFileSync(path.join(repo.root, CONFIG_FILE));
  } catch {
    text = null;
  }
  const committed = await readFileAt(repo, rev, CONFIG_FILE);
  if (text === null ? committed === null : committed?.equals(text)) return null;
  let broken = '';
  if (text !== null) {
    try {
      await loadConfig(repo);
    } catch (err) {
      if (!isCannotJudge(err)) throw err;
      broken = `; as it stands it does not parse: ${err.describe()}`;
    }
  }
  const what = text === null ? 'has none' : 'differs from it';
  return `the config that judges is ${rev.slice(0, 12)}:${CONFIG_FILE}; the working tree ${what}, and judges nothing until it is committed and lands on the base side${broken}`;
}
