// Which zone a path falls in. The guard's own files come first, then the files
// the config names (ledger, lock, registry, signers) in their zones, then the
// zone globs in the order listed: a broad `src` glob can never swallow the
// guard's config or an oracle file.
import { globMatcher } from './glob.js';
import { BUILTIN_GUARD, ORACLE_ZONES, type Config, type ZoneName } from '../config/schema.js';

export type Classify = (path: string) => ZoneName | null;

export function zoneClassifier(config: Config, ignoreCase = false): Classify {
  const named: [string, ZoneName][] = [
    [config.freeze.ledger, 'freeze'],
    [config.fixtures.lock, 'fixtures'],
    [config.properties.invariants, 'spec'],
  ];
  if (config.owners.signers) named.unshift([config.owners.signers, 'guard']);
  const rules: { zone: ZoneName; match: (p: string) => boolean }[] = [
    { zone: 'guard', match: globMatcher(BUILTIN_GUARD, { ignoreCase }) },
    ...named.map(([file, zone]) => ({ zone, match: (p: string) => (ignoreCase ? p.toLowerCase() === file.toLowerCase() : p === file) })),
    ...config.zones.filter((z) => z.globs.length).map((z) => ({ zone: z.name, match: globMatcher(z.globs, { ignoreCase }) })),
  ];
  return (p) => rules.find((r) => r.match(p))?.zone ?? null;
}

export function isOracle(zone: ZoneName | null): boolean {
  return zone !== null && ORACLE_ZONES.includes(zone);
}
