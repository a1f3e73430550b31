// Classifying paths by zone rules already compiled: what the pre-commit hook
// runs on every commit, without loading the glob compiler (the rules come
// from zones.ts, or from the config cache).
import { ORACLE_ZONES, type ZoneName } from '../zones/names.js';

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

/**
 * The first rule that matches a path names its zone; each path is worked out
 * once. Every pattern is filed under the first segment of its literal text
 * (`packages` for `packages/*\/src/**`), so a path is tried only against the
 * patterns filed under its own first segment and those with no literal
 * segment, instead of against every pattern.
 */
export function classifierFrom(rules: ZoneRule[]): Classify {
  const filed = [new Map<string, Entry[]>(), new Map<string, Entry[]>()];
  const anywhere: Entry[] = [];
  rules.forEach((r, rule) => {
    for (const pattern of r.patterns) {
      const entry = { rule, fold: r.fold, test: tester(pattern) };
      const segment = firstSegment(pattern);
      if (segment === null) anywhere.push(entry);
      else {
        const map = filed[r.fold ? 1 : 0];
        map.set(segment, [...(map.get(segment) ?? []), entry]);
      }
    }
  });
  const folds = rules.some((r) => r.fold);
  const memo = new Map<string, ZoneName | null>();
  return (p) => {
    let zone = memo.get(p);
    if (zone === undefined) {
      const lower = folds && /[A-Z]/.test(p) ? p.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : p;
      const cut = p.indexOf('/');
      const candidates = [
        filed[0].get(cut < 0 ? p : p.slice(0, cut)),
        filed[1].get(cut < 0 ? lower : lower.slice(0, cut)),
        anywhere,
      ];
      let best = Infinity;
      for (const list of candidates)
        for (const e of list ?? []) if (e.rule < best && e.test(e.fold ? lower : p, p)) best = e.rule;
      zone = best === Infinity ? null : rules[best].zone;
      memo.set(p, zone);
    }
    return zone;
  };
}

interface Entry {
  rule: number;
  fold: boolean;
  test: (p: string, original: string) => boolean;
}

/** The first path segment every match of the pattern starts with; null when it has none. */
function firstSegment(pattern: Pattern): string | null {
  const text = 'exact' in pattern ? pattern.exact : 'under' in pattern ? pattern.under : pattern.prefix;
  const cut = text.indexOf('/');
  if (cut >= 0) return text.slice(0, cut);
  return 'prefix' in pattern ? null : text;
}

function tester(pattern: Pattern): (p: string, original: string) => boolean {
  if ('exact' in pattern) return (p) => p === pattern.exact;
  if ('under' in pattern) {
    const dir = pattern.under + '/';
    return (p) => p.startsWith(dir) || p === pattern.under;
  }
  let re: RegExp | null = null;
  return (p, original) =>
    p.startsWith(pattern.prefix) && (re ??= new RegExp(pattern.source, pattern.flags)).test(original);
}

export function isOracle(zone: ZoneName | null): boolean {
  return zone !== null && ORACLE_ZONES.includes(zone);
}
