// Classifying paths by zone rules already compiled: what the pre-commit hook
// runs on every commit, without loading the glob compiler (the rules come
// from zones.ts, or from the config cache).
import { ORACLE_ZONES, type ZoneName } from '../config/schema.js';

export type Classify = (path: string) => ZoneName | null;

/**
 * One glob, as plain data a cache can keep as JSON. The common shapes need no
 * regular expression (a first regex match costs V8 a compile): a literal
 * path, or everything under a literal folder (`dir/**`). Any other glob keeps
 * its regex, tried only on paths that start with the glob's literal prefix.
 * With `fold`, texts are lower case and paths are compared with ASCII letters
 * lowered: the texts are ASCII, and a case-insensitive regex never folds
 * other characters onto ASCII ones either.
 */
export type Pattern = { exact: string } | { under: string } | { prefix: string; source: string; flags: string };

export interface ZoneRule {
  zone: ZoneName;
  fold: boolean;
  patterns: Pattern[];
}

/** The first rule that matches a path names its zone; each path is worked out once. */
export function classifierFrom(rules: ZoneRule[]): Classify {
  const compiled = rules.map((r) => ({ zone: r.zone, fold: r.fold, tests: r.patterns.map(tester) }));
  const folds = rules.some((r) => r.fold);
  const memo = new Map<string, ZoneName | null>();
  return (p) => {
    let zone = memo.get(p);
    if (zone === undefined) {
      const lower = folds ? p.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : p;
      zone = compiled.find((r) => r.tests.some((t) => t(r.fold ? lower : p, p)))?.zone ?? null;
      memo.set(p, zone);
    }
    return zone;
  };
}

function tester(pattern: Pattern): (p: string, original: string) => boolean {
  if ('exact' in pattern) return (p) => p === pattern.exact;
  if ('under' in pattern) {
    const dir = pattern.under + '/';
    return (p) => p.startsWith(dir) || p === pattern.under;
  }
  let re: RegExp | null = null;
  return (p, original) => p.startsWith(pattern.prefix) && (re ??= new RegExp(pattern.source, pattern.flags)).test(original);
}

export function isOracle(zone: ZoneName | null): boolean {
  return zone !== null && ORACLE_ZONES.includes(zone);
}
