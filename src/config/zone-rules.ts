// Which zone a path falls in. The guard's own files come first, then the files
// the config names (ledger, lock, registry, signers) in their zones, then the
// zone globs in the order listed: a broad `src` glob can never swallow the
// guard's config or an oracle file. From version 2 the test harness
// (config/harness.ts) is the guard's too, ahead of the zone globs.
import { globPattern, literalPattern } from '../zones/glob.js';
import { BUILTIN_GUARD } from '../zones/names.js';
import { namedFiles } from './guard-files.js';
import { harnessGlobs } from './harness.js';
import type { Config } from './schema.js';
import type { ZoneRule } from '../zones/classify.js';

/** The zone rules of a config, compiled to regular expressions, first match first. */
export function zoneRules(config: Config, ignoreCase = false): ZoneRule[] {
  const globs = (gs: string[]) => gs.map((g) => globPattern(g, { ignoreCase }));
  const harness = harnessGlobs(config);
  return [
    { zone: 'guard', fold: ignoreCase, patterns: globs(BUILTIN_GUARD) },
    ...namedFiles(config).map(([file, zone]) => ({
      zone,
      fold: ignoreCase,
      patterns: [literalPattern(file, { ignoreCase })],
    })),
    ...(harness.length ? [{ zone: 'guard' as const, fold: ignoreCase, patterns: globs(harness) }] : []),
    ...config.zones
      .filter((z) => z.globs.length)
      .map((z) => ({ zone: z.name, fold: ignoreCase, patterns: globs(z.globs) })),
  ];
}
