// Showing paths to people and to shells, whatever bytes they hold.

/** `1 invariant`, `2 invariants`: a count with its noun in the right number; the one pluralizer. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** The first `n` of `items`, and how many more: a list a person reads in one line. */
export function shortList(items: string[], n = 5): string {
  return items.slice(0, n).join(', ') + (items.length > n ? `, and ${items.length - n} more` : '');
}

/** Shows a path readably even when it holds a newline or other control bytes. */
export function showPath(p: string): string {
  return /[\x00-\x1f\x7f"\\]/.test(p) || /^\s|\s$/.test(p) ? JSON.stringify(p) : p;
}

/** Quotes a path for a POSIX shell command the user can paste. */
export function shellQuote(p: string): string {
  if (/^[A-Za-z0-9_./@%+=:,-]+$/.test(p) && !p.startsWith('-')) return p;
  if (/[\x00-\x1f\x7f]/.test(p)) {
    // $'...' keeps a newline pasteable in bash and zsh.
    return (
      "$'" +
      [...p]
        .map((c) => {
          const code = c.charCodeAt(0);
          if (c === "'" || c === '\\') return '\\' + c;
          if (code < 0x20 || code === 0x7f) return '\\x' + code.toString(16).padStart(2, '0');
          return c;
        })
        .join('') +
      "'"
    );
  }
  return "'" + p.replace(/'/g, `'\\''`) + "'";
}
