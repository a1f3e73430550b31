// Glob matching for repository paths. micromatch's `.` stops at a newline, and
// git allows newlines in paths, so every glob is compiled with the `s` flag.
import micromatch from 'micromatch';

export interface GlobOptions {
  ignoreCase?: boolean;
}

/** A predicate that is true when a path matches any of the globs. */
export function globMatcher(globs: string[], opts: GlobOptions = {}): (path: string) => boolean {
  const res = globs.map((g) => {
    const re = micromatch.makeRe(g, { dot: true, nocase: opts.ignoreCase });
    return new RegExp(re.source, re.flags.includes('s') ? re.flags : re.flags + 's');
  });
  return (p) => res.some((re) => re.test(p));
}
