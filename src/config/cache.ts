// The judging config, parsed once per config blob. A commit hook starts on
// every commit, and parsing YAML and compiling globs cost it more than git
// does: the parsed config and its zone rules (compiled both case-sensitively
// and not) are kept as JSON under the git directory, keyed by the blob's id
// and by the build that wrote them. A missing, unreadable or foreign entry is
// parsed again; an invalid config is never cached, so it fails every time.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Repo } from '../git/repo.js';
import type { ZoneRule } from '../zones/classify.js';
import { defaults, type Config } from './schema.js';

/** This build's id, put in by the build; absent when the sources run unbundled (then nothing is cached). */
declare const PATCHWARDEN_BUILD: string;
const BUILD = typeof PATCHWARDEN_BUILD === 'string' ? PATCHWARDEN_BUILD : null;

export interface Judge {
  config: Config;
  /** Zone rules for a case-sensitive repository, and for core.ignorecase. */
  rules: { exact: ZoneRule[]; folded: ZoneRule[] };
}

interface Entry extends Judge {
  build: string;
  oid: string;
}

/** The config in blob `oid` (the defaults when null), named `shown` in messages. */
export async function configFromBlob(repo: Repo, oid: string | null, shown: string): Promise<Judge> {
  const key = oid ?? 'defaults';
  const file = path.join(repo.commonDir, 'patchwarden', 'config-cache', `${key}.json`);
  const hit = BUILD ? read(file, key) : null;
  if (hit) return { config: { ...hit.config, source: shown }, rules: hit.rules };
  const [{ parseConfig }, { zoneRules }] = await Promise.all([import('./load.js'), import('../zones/zones.js')]);
  const config = oid ? parseConfig((await repo.run(['cat-file', 'blob', oid])).stdout.toString('utf8'), shown) : defaults(shown);
  const judge = { config, rules: { exact: zoneRules(config, false), folded: zoneRules(config, true) } };
  if (BUILD) write(file, { build: BUILD, oid: key, ...judge });
  return judge;
}

function read(file: string, key: string): Entry | null {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as Entry;
    return entry.build === BUILD && entry.oid === key ? entry : null;
  } catch {
    return null;
  }
}

/** Best effort: a git directory we cannot write to only means parsing again next time. */
function write(file: string, entry: Entry): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry));
    renameSync(tmp, file);
  } catch {
    /* not cached */
  }
}
