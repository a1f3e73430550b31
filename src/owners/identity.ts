// Identity patterns for `owners.agents`. They match email addresses, not
// paths: only `*` (any run of characters) and `?` (one character) are
// wildcards, so the brackets of `*[bot]@*` are literal, as in
// `dependabot[bot]@users.noreply.github.com`. Case never matters in an address.

/** A predicate true when an address matches any of the patterns. */
export function identityMatcher(patterns: string[]): (address: string) => boolean {
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${[...p].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('')}$`,
        'is',
      ),
  );
  return (address) => res.some((re) => re.test(address));
}

/** The address of a `Name <address>` identity, or the whole text without brackets. */
export function addressOf(identity: string): string {
  const m = /<([^>]*)>/.exec(identity);
  return (m ? m[1] : identity).trim();
}
