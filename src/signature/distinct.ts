// Whether a failure names its defect. A predicate made of numbers and the
// assertion library's own words (`expect(received).toBe(expected)`,
// `assert <n> == <n>`, `expected <n> to equal <n>`) is the same for every
// equality bug; two different bugs would share its signature, so it is not
// enough to bind a freeze to. The asserting expression read from the test's
// source (`expect(total(<n>, <n>)).toBe(<n>)`) names what was checked.
import type { Kind } from './predicate.js';

// The assertion libraries' vocabulary: words every failure of a kind shares.
const VOCABULARY = new Set(`
  assert assertion asserting assertions expect expected expecting expectation received actual value values
  to be is was not but and or the a an of that in got found equal equals equality strict strictly deep deeply
  loose loosely identical same matches match matching true false null none undefined nan nil ok truthy falsy
  where error failed failure fail did raise raised throw thrown threw should messages message
  left right diff object serializes string strings number numbers tobe toequal tostrictequal strictequal
  deepstrictequal deepequal notequal notstrictequal assertequals assertsame assertthat asserttrue assertfalse
  isequalto equalto eql eq class type function than greater less with within want
  self this t pytest raises assertraises assertthrows tothrow throws rejects expectthrows
`.trim().split(/\s+/));

/** True when `text` (normalized) names more than numbers, tokens and assertion words. */
export function namesSomething(text: string, kind: Kind): boolean {
  // A missing exception names only the class it expected: every "did not raise" of that class is alike.
  if (kind === 'raises') return false;
  const words = text.replace(/<[a-z]+>/g, ' ').match(/[A-Za-z_$][\w$]*/g) ?? [];
  // Exception classes are what a `raises` names: the class alone says nothing of the bug.
  return words.some((w) => w.length > 1 && !VOCABULARY.has(w.toLowerCase()) && !/(?:Error|Exception)$/.test(w));
}

/** Longest asserting expression kept, in lines, from a source file. */
const STATEMENT_LINES = 12;

/**
 * The statement that starts at `line` (1-based) of `source`, continued while
 * its brackets are open, comments and white space dropped; null when the line
 * is not there.
 */
export function statementAt(source: string, line: number): string | null {
  const lines = source.split(/\r?\n/);
  if (line < 1 || line > lines.length) return null;
  let text = '';
  let depth = 0;
  for (let i = line - 1; i < Math.min(lines.length, line - 1 + STATEMENT_LINES); i++) {
    const l = stripComment(lines[i]).trim();
    text += (text && l ? ' ' : '') + l;
    for (const c of l) depth += c === '(' || c === '[' || c === '{' ? 1 : c === ')' || c === ']' || c === '}' ? -1 : 0;
    if (depth <= 0 && text) break;
  }
  // A block opener (Python's `with pytest.raises(E):`) is read with its body: the call inside is what failed to raise.
  if (text.endsWith(':')) {
    const indent = (l: string) => /^\s*/.exec(l)![0].length;
    const own = indent(lines[line - 1]);
    for (let i = line; i < Math.min(lines.length, line + STATEMENT_LINES) && (!lines[i].trim() || indent(lines[i]) > own); i++) {
      const l = stripComment(lines[i]).trim();
      if (l) text += ' ' + l;
    }
  }
  text = text.replace(/[;,]\s*$/, '').trim();
  return text || null;
}

/** A trailing `//` or `#` comment, outside quotes. */
function stripComment(l: string): string {
  let quote = '';
  for (let i = 0; i < l.length; i++) {
    const c = l[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if ((c === '/' && l[i + 1] === '/') || (c === '#' && (i === 0 || /\s/.test(l[i - 1])))) return l.slice(0, i);
  }
  return l;
}
