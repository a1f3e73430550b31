// Classifying paths by zone rules already compiled to regular expressions:
// what the pre-commit hook runs on every commit, without loading the glob
// compiler (the rules come from zones.ts, or from the config cache).
import { ORACLE_ZONES, type ZoneName } from '../config/schema.js';

export type Classify = (path: string) => ZoneName | null;

/** One zone's patterns, as plain data: a cache can keep them as JSON. */
export interface ZoneRule {
  zone: ZoneName;
  patterns: { source: string; flags: string }[];
}

/** The first rule that matches a path names its zone. */
export function classifierFrom(rules: ZoneRule[]): Classify {
  const compiled = rules.map((r) => ({ zone: r.zone, res: r.patterns.map((p) => new RegExp(p.source, p.flags)) }));
  return (p) => compiled.find((r) => r.res.some((re) => re.test(p)))?.zone ?? null;
}

export function isOracle(zone: ZoneName | null): boolean {
  return zone !== null && ORACLE_ZONES.includes(zone);
}
