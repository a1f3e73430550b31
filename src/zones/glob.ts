// Glob matching for repository paths. micromatch's `.` stops at a newline, and
// git allows newlines in paths, so every glob is compiled with the `s` flag.
import micromatch from 'micromatch';

export interface GlobOptions {
  ignoreCase?: boolean;
}

/** The globs compiled to regular expressions, as source and flags. */
export function globPatterns(globs: string[], opts: GlobOptions = {}): { source: string; flags: string }[] {
  return globs.map((g) => {
    const re = micromatch.makeRe(g, { dot: true, nocase: opts.ignoreCase });
    return { source: re.source, flags: re.flags.includes('s') ? re.flags : re.flags + 's' };
  });
}

/** A predicate that is true when a path matches any of the globs. */
export function globMatcher(globs: string[], opts: GlobOptions = {}): (path: string) => boolean {
  const res = globPatterns(globs, opts).map((p) => new RegExp(p.source, p.flags));
  return (p) => res.some((re) => re.test(p));
}
