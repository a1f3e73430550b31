// The judge: the config and its zone rules (compiled both case-sensitively
// and not), parsed once per config blob. A hook starts on every commit or
// push, and loading and running the YAML parser and the glob compiler cost it
// more than git does, so the judge is kept as JSON under the git directory,
// keyed by the blob's id and by the build that wrote it. A missing, unreadable
// or foreign entry is parsed again; an invalid config is never cached, so it
// fails every time.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isCannotJudge } from '../common/errors.js';
import { readBlob } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import type { ZoneRule } from '../zones/classify.js';
import { defaults, type Config } from './schema.js';

/** This build's id, put in by the build; absent when the sources run unbundled (then nothing is cached). */
declare const PATCHWARDEN_BUILD: string;
const BUILD = typeof PATCHWARDEN_BUILD === 'string' ? PATCHWARDEN_BUILD : null;

/**
 * Loads the parser and the glob compiler (compile.ts, or a module that
 * re-exports it): each caller names its own, so that a bundle keeps what it
 * loads lazily in one chunk (node loads each chunk as a module of its own).
 */
export type LoadCompiler = () => Promise<typeof import('./compile.js')>;

export interface Judge {
  config: Config;
  /** Zone rules for a case-sensitive repository, and for core.ignorecase. */
  rules: { exact: ZoneRule[]; folded: ZoneRule[] };
}

interface Entry extends Judge {
  build: string;
  key: string;
}

/**
 * The judge in config blob `at.oid` (null: no config, the defaults), named
 * `at.shown` in messages: the cached one, else parsed, compiled and cached.
 * The parser and the glob compiler load only then.
 */
export async function judgeOf(
  repo: Repo,
  at: { oid: string | null; shown: string },
  load: LoadCompiler,
): Promise<Judge> {
  const cached = cachedJudge(repo, at.oid, at.shown);
  if (cached) return cached;
  const compiler = await load();
  const config = at.oid
    ? compiler.parseConfig((await readBlob(repo, at.oid)).toString('utf8'), at.shown)
    : defaults(at.shown);
  const judge = compiled(config, compiler);
  cacheJudge(repo, at.oid, judge);
  return judge;
}

/**
 * The judge in the config blob a hook holds (`judgeOf`); where that config
 * does not parse, the last one on `rev`'s first-parent line that does
 * (`lastValidConfig`, config/judging.ts), said through `fallBack`, so its
 * correction can land. `rev` in the answer is where the files the judging
 * config names are read: `rev`, or the commit the fallback came from.
 */
export async function judgeOrLastValid(
  repo: Repo,
  at: { oid: string | null; shown: string },
  rev: string | null,
  load: LoadCompiler,
  fallBack: (note: string) => void,
): Promise<Judge & { rev: string | null }> {
  try {
    return { ...(await judgeOf(repo, at, load)), rev };
  } catch (err) {
    if (!isCannotJudge(err) || !rev) throw err;
    const compiler = await load();
    const fallback = await compiler.lastValidConfig(repo, rev);
    if (!fallback) throw err;
    fallBack(compiler.fallbackNote(err, fallback));
    return { ...compiled(fallback.config, compiler), rev: fallback.rev };
  }
}

/** `--config PATH`: a file the user names, read as it is (never cached). */
export async function explicitJudge(repo: Repo, file: string, load: LoadCompiler): Promise<Judge> {
  const compiler = await load();
  return compiled(await compiler.loadConfig(repo, file), compiler);
}

/** A config and its zone rules, compiled both case-sensitively and not. */
function compiled(config: Config, { zoneRules }: Awaited<ReturnType<LoadCompiler>>): Judge {
  return { config, rules: { exact: zoneRules(config, false), folded: zoneRules(config, true) } };
}

function cachedJudge(repo: Repo, oid: string | null, shown: string): Judge | null {
  const key = oid ?? 'defaults';
  if (!BUILD) return null;
  try {
    const entry = JSON.parse(readFileSync(entryFile(repo, key), 'utf8')) as Entry;
    return entry.build === BUILD && entry.key === key
      ? { config: { ...entry.config, source: shown }, rules: entry.rules }
      : null;
  } catch {
    return null;
  }
}

/** Best effort: a git directory we cannot write to only means parsing again next time. */
function cacheJudge(repo: Repo, oid: string | null, judge: Judge): void {
  const key = oid ?? 'defaults';
  if (!BUILD) return;
  const file = entryFile(repo, key);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ build: BUILD, key, ...judge } satisfies Entry));
    renameSync(tmp, file);
  } catch {
    /* not cached */
  }
}

function entryFile(repo: Repo, key: string): string {
  return path.join(repo.commonDir, 'patchwarden', 'config-cache', `${key}.json`);
}
