// Glob matching for repository paths. micromatch's `.` stops at a newline, and
// git allows newlines in paths, so every glob is compiled with the `s` flag.
import micromatch from 'micromatch';
import type { Pattern } from './classify.js';

export interface GlobOptions {
  ignoreCase?: boolean;
}

/** Characters that make a glob more than a literal path. */
const SPECIAL = /[*?[\]{}()!+@\\]/;

/** The text as it is compared: lower-cased when matching ignores case. */
const fold = (s: string, opts: GlobOptions) => (opts.ignoreCase ? s.toLowerCase() : s);

/**
 * A glob as a Pattern: a literal path or `literal/**` needs no regex (git
 * paths have no `.`, `..` or empty segments, the only places where micromatch
 * would differ); anything else is micromatch's regex behind its literal prefix.
 */
export function globPattern(glob: string, opts: GlobOptions = {}): Pattern {
  const plain = (s: string) =>
    s !== '' && !SPECIAL.test(s) && !s.startsWith('./') && !s.endsWith('/') && /^[\x20-\x7e]*$/.test(s);
  if (plain(glob)) return { exact: fold(glob, opts) };
  if (glob.endsWith('/**') && plain(glob.slice(0, -3))) return { under: fold(glob.slice(0, -3), opts) };
  const re = micromatch.makeRe(glob, { dot: true, nocase: opts.ignoreCase });
  const literal = glob.startsWith('./')
    ? ''
    : glob.slice(0, glob.search(SPECIAL) < 0 ? glob.length : glob.search(SPECIAL));
  return {
    prefix: /^[\x20-\x7e]*$/.test(literal) ? fold(literal, opts) : '',
    source: re.source,
    flags: re.flags.includes('s') ? re.flags : re.flags + 's',
  };
}

/** A file named in the config (the ledger, the lock): that path and no other. */
export function literalPattern(file: string, opts: GlobOptions = {}): Pattern {
  if (/^[\x20-\x7e]*$/.test(file)) return { exact: fold(file, opts) };
  return {
    prefix: '',
    source: `^${file.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}$`,
    flags: opts.ignoreCase ? 'is' : 's',
  };
}

/**
 * A predicate that is true when a path matches any of the globs. Most paths
 * match none, and a glob of `*`, `**` and `?` around literal text matches
 * only paths holding that text: a path is tested for each glob's longest
 * literal run first, and the regex (compiled when first needed) only when
 * one is there, or a glob has none.
 */
export function globMatcher(globs: string[], opts: GlobOptions = {}): (path: string) => boolean {
  if (!globs.length) return () => false;
  const literals: string[] = [];
  for (const g of globs) {
    const run = requiredText(g);
    if (run === null) return regexMatcher(globs, opts);
    literals.push(fold(run, opts));
  }
  let re: ((path: string) => boolean) | null = null;
  return (p) => {
    const folded = fold(p, opts);
    if (!literals.some((l) => folded.includes(l))) return false;
    re ??= regexMatcher(globs, opts);
    return re(p);
  };
}

/** One pattern of alternatives, each anchored: one test per path, however many globs. */
function regexMatcher(globs: string[], opts: GlobOptions): (path: string) => boolean {
  const res = globs.map((g) => micromatch.makeRe(g, { dot: true, nocase: opts.ignoreCase }));
  const re = new RegExp(res.map((r) => `(?:${r.source})`).join('|'), opts.ignoreCase ? 'is' : 's');
  return (p) => re.test(p);
}

/**
 * Text every path matching the glob holds, or null when that cannot be told
 * simply: the longest run between its `*`, `?` and `/` (a `**` may stand for
 * no folder at all, so a slash is not required), for a glob of letters,
 * digits, `_`, `-` and `.` besides (no braces, classes, quotes or escapes).
 */
function requiredText(glob: string): string | null {
  if (glob.startsWith('./') || !/^[\w.\-/*?]+$/.test(glob)) return null;
  const run = glob.split(/[*?/]+/).reduce((a, b) => (b.length > a.length ? b : a), '');
  return run || null;
}
