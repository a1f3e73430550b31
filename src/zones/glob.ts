// Glob matching for repository paths. micromatch's `.` stops at a newline, and
// git allows newlines in paths, so every glob is compiled with the `s` flag.
import micromatch from 'micromatch';
import type { Pattern } from './classify.js';

export interface GlobOptions {
  ignoreCase?: boolean;
}

/** Characters that make a glob more than a literal path. */
const SPECIAL = /[*?[\]{}()!+@\\]/;

/**
 * A glob as a Pattern: a literal path or `literal/**` needs no regex (git
 * paths have no `.`, `..` or empty segments, the only places where micromatch
 * would differ); anything else is micromatch's regex behind its literal prefix.
 */
export function globPattern(glob: string, opts: GlobOptions = {}): Pattern {
  const fold = (s: string) => (opts.ignoreCase ? s.toLowerCase() : s);
  const plain = (s: string) =>
    s !== '' && !SPECIAL.test(s) && !s.startsWith('./') && !s.endsWith('/') && /^[\x20-\x7e]*$/.test(s);
  if (plain(glob)) return { exact: fold(glob) };
  if (glob.endsWith('/**') && plain(glob.slice(0, -3))) return { under: fold(glob.slice(0, -3)) };
  const re = micromatch.makeRe(glob, { dot: true, nocase: opts.ignoreCase });
  const literal = glob.startsWith('./')
    ? ''
    : glob.slice(0, glob.search(SPECIAL) < 0 ? glob.length : glob.search(SPECIAL));
  return {
    prefix: /^[\x20-\x7e]*$/.test(literal) ? fold(literal) : '',
    source: re.source,
    flags: re.flags.includes('s') ? re.flags : re.flags + 's',
  };
}

/** A file named in the config (the ledger, the lock): that path and no other. */
export function literalPattern(file: string, opts: GlobOptions = {}): Pattern {
  if (/^[\x20-\x7e]*$/.test(file)) return { exact: opts.ignoreCase ? file.toLowerCase() : file };
  return {
    prefix: '',
    source: `^${file.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}$`,
    flags: opts.ignoreCase ? 'is' : 's',
  };
}

/** A predicate that is true when a path matches any of the globs. */
export function globMatcher(globs: string[], opts: GlobOptions = {}): (path: string) => boolean {
  if (!globs.length) return () => false;
  // One pattern of alternatives, each anchored: one test per path, however many globs.
  const res = globs.map((g) => micromatch.makeRe(g, { dot: true, nocase: opts.ignoreCase }));
  const re = new RegExp(res.map((r) => `(?:${r.source})`).join('|'), opts.ignoreCase ? 'is' : 's');
  return (p) => re.test(p);
}
