// Whether a failure names its defect. A predicate made of numbers and the
// assertion library's own words (`expect(received).toBe(expected)`,
// `assert <n> == <n>`, `expected <n> to equal <n>`) is the same for every
// equality bug; two different bugs would share its signature, so it is not
// enough to bind a freeze to. The asserting expression read from the test's
// source (`expect(total(<n>, <n>)).toBe(<n>)`) names what was checked.
import type { Kind } from './predicate.js';

// Words of the assertion libraries and test languages, in code and in the text they generate.
const CODE_WORDS = `
  assert assertion asserting assertions expect expecting expectation to be is not and or the a an of that in
  equal equals equality strict strictly deep deeply loose loosely identical same matches match matching
  true false null none undefined nan nil ok truthy falsy error failed failure fail did raise throw should
  tobe toequal tostrictequal strictequal deepstrictequal deepequal notequal notstrictequal assertequals
  assertsame assertthat asserttrue assertfalse isequalto equalto eql eq class type function than greater
  less with within self this pytest raises assertraises assertthrows tothrow throws rejects expectthrows
  new return require errorf fatalf`;
// And the words only their messages use for the values compared.
const MESSAGE_WORDS = `
  expected received actual value values was but got found where raised thrown threw messages message
  left right diff object objects serializes string strings number numbers array arrays two format
  description want compared using are has have contains contain include includes instance exception by for
  it its on at as if into from key keys item items element elements size length count empty member members
  property properties kind integer int float double boolean bool`;

// Matchers and assertion methods (`toMatch`, `assertEquals`, `shouldBe`), and exception classes, which
// name what was expected to go wrong, not where it did.
const LIBRARY_NAME = /^(?:to|assert|expect|should)[A-Z]|(?:Error|Exception)$/;

const IN_CODE = new Set(CODE_WORDS.trim().split(/\s+/));
const IN_MESSAGE = new Set(`${CODE_WORDS} ${MESSAGE_WORDS}`.trim().split(/\s+/));

/**
 * True when `text` (normalized) names more than numbers, tokens and those
 * words. In a predicate (`from: 'message'`) any such word counts. In an
 * expression read from source (`from: 'code'`) only a name that is called or
 * reached as a member counts (`total(<n>, <n>)`, `Bill::total`,
 * `response.status`): a bare local (`assert got == <n>`) is named the same in
 * many tests over many bugs, and would tie them to one signature.
 */
export function namesSomething(text: string, kind: Kind, from: 'message' | 'code' = 'message'): boolean {
  // A missing exception names only the class it expected: every "did not raise" of that class is alike.
  if (kind === 'raises' && from === 'message') return false;
  const bare = text.replace(/<[a-z]+>/g, ' ');
  const names =
    from === 'message'
      ? (bare.match(/[A-Za-z_$][\w$]*/g) ?? [])
      : [...bare.matchAll(/(?:\.|::|->)\s*([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*\(/g)].map((m) => m[1] ?? m[2]);
  const words = from === 'message' ? IN_MESSAGE : IN_CODE;
  return names.some((w) => w.length > 1 && !words.has(w.toLowerCase()) && !LIBRARY_NAME.test(w));
}

/** Longest asserting expression kept, in lines, from a source file. */
const STATEMENT_LINES = 12;

/**
 * The statement at `line` (1-based) of `source`: from the start of the line,
 * or, given the column a runtime points at (V8 points at the called member),
 * from where the enclosing statement starts on that line; continued while its
 * brackets are open and cut at its `;` or at a bracket it did not open.
 * Comments and white space dropped; null when the line is not there.
 */
export function statementAt(source: string, line: number, column?: number): string | null {
  const lines = source.split(/\r?\n/);
  if (line < 1 || line > lines.length) return null;
  const first = stripComment(lines[line - 1]);
  let text = '';
  let depth = 0;
  scan: for (let i = line - 1; i < Math.min(lines.length, line - 1 + STATEMENT_LINES); i++) {
    const l = i === line - 1 ? first.slice(column ? statementStart(first, column - 1) : 0) : stripComment(lines[i]);
    text += text ? ' ' : '';
    for (const c of l) {
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth--;
      if (depth < 0 || (depth === 0 && c === ';')) break scan;
      text += c;
    }
    if (depth <= 0 && text.trim()) break;
  }
  text = text.replace(/\s+/g, ' ').trim();
  // A block opener (Python's `with pytest.raises(E):`) is read with its body: the call inside is what failed to raise.
  if (text.endsWith(':')) {
    const indent = (l: string) => /^\s*/.exec(l)![0].length;
    const own = indent(lines[line - 1]);
    for (
      let i = line;
      i < Math.min(lines.length, line + STATEMENT_LINES) && (!lines[i].trim() || indent(lines[i]) > own);
      i++
    ) {
      const l = stripComment(lines[i]).trim();
      if (l) text += ' ' + l;
    }
  }
  text = text.replace(/,\s*$/, '').trim();
  return text || null;
}

/** Where the statement around offset `at` of a line starts: after an opener it is inside, or a `;`. */
function statementStart(l: string, at: number): number {
  let depth = 0;
  for (let i = Math.min(at, l.length) - 1; i >= 0; i--) {
    const c = l[i];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth === 0) return i + 1;
      depth--;
    } else if (c === ';' && depth === 0) return i + 1;
  }
  return 0;
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
