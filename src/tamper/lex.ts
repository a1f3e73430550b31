// Tokens of a source file: names, strings, numbers and operators with their
// line, comments dropped. Enough of each language's lexical grammar that a
// call split over lines, a name inside a string or a comment, and a string
// that spells a name are told apart; the scanner works on these tokens.
// Where the language's own reader normalizes (Python folds names with NFKC,
// JavaScript decodes `\u` escapes in names, Java decodes them everywhere,
// every Unicode space separates), so does this one: a name reads as the
// runtime reads it. The code inside f-strings and template literals is
// lexed as code.
import type { Lang } from './lang.js';

export type Kind = 'id' | 'str' | 'num' | 'op' | 'nl' | 'rx';

const KINDS: readonly Kind[] = ['id', 'str', 'num', 'op', 'nl', 'rx'];
/** The code of a kind, its index in KINDS (compared, not looked up: a lookup by a varying key is slow). */
const kindCode = (k: Kind): number =>
  k === 'id' ? 0 : k === 'str' ? 1 : k === 'num' ? 2 : k === 'op' ? 3 : k === 'nl' ? 4 : 5;
/** Flag bits beside the kind: the value is held apart (not the source text between start and end). */
const OWN = 0x80;
/** A `)` of `if (…)` and the like, or the `}` of a block: a `/` after it starts a regular expression. */
const REGEX_NEXT = 0x40;

/**
 * A file's tokens in typed arrays, one slot per token: no object per token.
 * A token's value (a name, an operator, a string's contents without quotes or
 * prefix, an interpolation as `{}`) is sliced from the source when read; only
 * a value that differs from its source text (a decoded escape, a synthetic
 * parenthesis) is held apart.
 */
export class Tokens {
  length = 0;
  private kinds: Uint8Array;
  private starts: Int32Array;
  private ends: Int32Array;
  private lines: Int32Array;
  private endLines: Int32Array;
  private cols: Int32Array;
  private readonly own = new Map<number, string>();
  private ownOrder: number[] | null = null;
  constructor(readonly src: string) {
    // Code holds a token per three to four characters, minified code one per less than three: sized for
    // that, the arrays seldom grow (by half, copied) when a file holds more.
    const n = Math.ceil(src.length / 2.5) + 16;
    this.kinds = new Uint8Array(n);
    this.starts = new Int32Array(n);
    this.ends = new Int32Array(n);
    this.lines = new Int32Array(n);
    this.endLines = new Int32Array(n);
    this.cols = new Int32Array(n);
  }
  k(i: number): Kind | undefined {
    return i >= 0 && i < this.length ? KINDS[this.kinds[i] & 7] : undefined;
  }
  v(i: number): string | undefined {
    if (i < 0 || i >= this.length) return undefined;
    return this.kinds[i] & OWN ? this.own.get(i) : this.src.slice(this.starts[i], this.ends[i]);
  }
  /** Whether the token's value is s (of any kind), without slicing it. */
  is(i: number, s: string): boolean {
    if (i < 0 || i >= this.length) return false;
    if (this.kinds[i] & OWN) return this.own.get(i) === s;
    const a = this.starts[i];
    return (
      this.ends[i] - a === s.length &&
      (s.length === 1 ? this.src.charCodeAt(a) === s.charCodeAt(0) : this.src.startsWith(s, a))
    );
  }
  /** Whether the token is an operator and one of these. */
  isOp(i: number, s: string): boolean {
    return i >= 0 && i < this.length && (this.kinds[i] & 7) === 3 && this.is(i, s);
  }
  /** The character code of a one-character operator (0 for any other token). */
  opCode(i: number): number {
    if (i < 0 || i >= this.length || (this.kinds[i] & 7) !== 3) return 0;
    if (this.kinds[i] & OWN) {
      const v = this.own.get(i)!;
      return v.length === 1 ? v.charCodeAt(0) : 0;
    }
    return this.ends[i] - this.starts[i] === 1 ? this.src.charCodeAt(this.starts[i]) : 0;
  }
  /** The line of the token's first character; its last line (a string may span lines); its column. */
  line(i: number): number {
    return this.lines[i];
  }
  endLine(i: number): number {
    return this.endLines[i];
  }
  col(i: number): number {
    return this.cols[i];
  }
  push(k: Kind, start: number, end: number, line: number, col: number): number {
    if (this.length === this.kinds.length) this.grow();
    const i = this.length++;
    this.kinds[i] = kindCode(k);
    this.starts[i] = start;
    this.ends[i] = end;
    this.lines[i] = line;
    this.endLines[i] = line;
    this.cols[i] = col;
    return i;
  }
  /** Gives token i a value of its own. */
  hold(i: number, v: string): void {
    this.ownOrder = null;
    this.kinds[i] |= OWN;
    this.own.set(i, v);
  }
  /**
   * The tokens whose value can hold a match of `needle` (text of name and
   * string characters, which no token boundary splits), in order: each
   * whose source text holds a match, and each whose value is held apart.
   */
  holding(needle: RegExp): number[] {
    const out = new Set<number>();
    const re = new RegExp(needle.source, needle.flags.includes('g') ? needle.flags : `${needle.flags}g`);
    for (let m = re.exec(this.src); m; m = re.exec(this.src)) {
      const i = this.covering(m.index);
      if (i >= 0) out.add(i);
      if (m[0] === '') re.lastIndex++;
    }
    return mergeSorted([...out], this.ownSorted());
  }
  /** The tokens whose value is held apart, in order (sorted once: each search merges them in). */
  private ownSorted(): number[] {
    this.ownOrder ??= [...this.own.keys()].sort((a, b) => a - b);
    return this.ownOrder;
  }
  /** The token whose source text covers offset at (not one held apart), or -1. */
  private covering(at: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= at) lo = mid + 1;
      else hi = mid;
    }
    // Tokens of no text (a line end, a parenthesis around an interpolation) may start where the covering one ends.
    for (let i = lo - 1; i >= 0 && i >= lo - 4; i--) {
      if (this.kinds[i] & OWN || this.ends[i] === this.starts[i]) continue;
      return this.starts[i] <= at && at < this.ends[i] ? i : -1;
    }
    return -1;
  }
  /** Token i becomes the source text [start, end) of kind k. */
  reset(i: number, k: Kind, start: number, end: number): void {
    if (this.kinds[i] & OWN) {
      this.ownOrder = null;
      this.own.delete(i);
    }
    this.kinds[i] = kindCode(k);
    this.starts[i] = start;
    this.ends[i] = end;
  }
  setEndLine(i: number, line: number): void {
    this.endLines[i] = line;
  }
  markRegexNext(i: number): void {
    this.kinds[i] |= REGEX_NEXT;
  }
  regexNext(i: number): boolean {
    return i >= 0 && i < this.length && (this.kinds[i] & REGEX_NEXT) !== 0;
  }
  private grow(): void {
    const n = Math.ceil(this.kinds.length * 1.5);
    const more = <T extends Uint8Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.kinds = more(this.kinds);
    this.starts = more(this.starts);
    this.ends = more(this.ends);
    this.lines = more(this.lines);
    this.endLines = more(this.endLines);
    this.cols = more(this.cols);
  }
}

/** The union of two ascending lists of token indexes, ascending, each index once. */
function mergeSorted(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let x = 0;
  let y = 0;
  while (x < a.length || y < b.length) {
    const v = y >= b.length || (x < a.length && a[x] <= b[y]) ? a[x++] : b[y++];
    if (out[out.length - 1] !== v) out.push(v);
  }
  return out;
}

const PY_OPS = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '==',
  '!=',
  '<=',
  '>=',
  '->',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
  '**',
  '//',
  '<<',
  '>>',
  ':=',
];
const C_OPS = [
  '>>>=',
  '===',
  '!==',
  '**=',
  '...',
  '>>>',
  '<<=',
  '>>=',
  '&&=',
  '||=',
  '??=',
  '?.',
  '??',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
  '::',
  '->',
  ':=',
  '<-',
];
/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER = new Set([
  'return',
  'typeof',
  'case',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'else',
  'do',
  'yield',
  'await',
  'instanceof',
]);

/** Every Unicode space (JavaScript's `\s` with U+FEFF) and NEL. */
const SPACE = /[\s\u0085]/;
/** By char code: ASCII is looked up, the rest asks SPACE (a name may hold any other character). */
const isSpaceAt = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c === 32 || c === 9 || c === 12 || c === 11 || (c >= 0x80 && SPACE.test(s[i]));
};
/** Past the run of spaces and tabs from i (indentation, mostly): no token starts in it. */
const skipBlanks = (s: string, i: number) => {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 9) c = s.charCodeAt(++i);
  return i;
};
const isWordCode = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
const isIdStart = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return (isWordCode(c) && !(c >= 48 && c <= 57)) || (c >= 0x80 && !SPACE.test(s[i]));
};
const isIdPart = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return isWordCode(c) || (c >= 0x80 && !SPACE.test(s[i]));
};
const isDigit = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};
/** Where a `//` comment ends: JavaScript also ends it at `\r`, U+2028 and U+2029 (and Java's decoded `\u000a` is one of these). */
const C_LINE_END = /[\n\r\u2028\u2029]/g;
const PY_LINE_END = /[\n\r]/g;
const NUMBER = /[\w.]*/y;
/** A run of characters that mean nothing inside a string opened by the key (`f"`: an f-string's): read at once. */
const PLAIN: Record<string, RegExp> = {
  '"': /[^"\n\\$]*/y,
  "'": /[^'\n\\$]*/y,
  '`': /[^`\n\\$]*/y,
  'f"': /[^"\n\\{}]*/y,
  "f'": /[^'\n\\{}]*/y,
};
/** Where the run of plain characters the sticky `re` reads from j ends (j when there is none). */
const plainRun = (re: RegExp, src: string, j: number): number => {
  re.lastIndex = j;
  return re.test(src) ? re.lastIndex : j;
};
/** The operators by the code of their first character (all ASCII), longest first. */
const byFirst = (ops: string[]) => {
  const table: (string[] | undefined)[] = new Array(128).fill(undefined);
  for (const o of ops) (table[o.charCodeAt(0)] ??= []).push(o);
  return table;
};
const PY_BY_FIRST = byFirst(PY_OPS);
const C_BY_FIRST = byFirst(C_OPS);
const opAt = (src: string, i: number, table: (string[] | undefined)[]) => {
  const list = table[src.charCodeAt(i)];
  if (list) for (const o of list) if (src.startsWith(o, i)) return o;
  return src[i];
};
/** The end of a line comment from i: the next line break (not consumed), or the end. */
const lineEnd = (src: string, i: number, re: RegExp) => {
  re.lastIndex = i;
  return re.test(src) ? re.lastIndex - 1 : src.length;
};

/** `jsx`: the file may hold JSX, whose text (`<p>see http://x {code}</p>`) is no comment and no string. */
export function lex(src: string, lang: Lang, jsx = false): Tokens {
  const lexer = new Lexer(lang === 'java' ? javaUnicode(src) : src, lang, jsx);
  if (lang === 'python') lexer.python(false);
  else lexer.c(false);
  const out = lexer.out;
  if (lang === 'python' && out.length && out.k(out.length - 1) !== 'nl')
    out.push('nl', lexer.src.length, lexer.src.length, lexer.line, 0);
  return out;
}

/** Before these a `{` opens an object literal, not a block. */
const OBJECT_AFTER = new Set([
  '=',
  '(',
  '[',
  ',',
  ':',
  '?',
  '=>',
  '||',
  '&&',
  '??',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '==',
  '===',
  '!=',
  '!==',
  '<=',
  '>=',
  '...',
  '+=',
  '-=',
  '||=',
  '&&=',
  '??=',
  'return',
  'typeof',
  'in',
  'of',
  'yield',
  'await',
  'case',
  'void',
  'delete',
  'throw',
  'new',
]);

class Lexer {
  readonly out: Tokens;
  i = 0;
  line = 1;
  lineStart = 0;
  constructor(
    readonly src: string,
    readonly lang: Lang,
    readonly jsx: boolean,
  ) {
    this.out = new Tokens(src);
  }

  /** Pushes the source text [start, end) as a token starting on startLine. */
  private push(k: Kind, start: number, end: number, startLine: number, col: number): number {
    return this.out.push(k, start, end, startLine, col);
  }

  /** Pushes a parenthesis the source does not hold (around an interpolation) at `at`. */
  private paren(v: '(' | ')', at: number): void {
    this.out.hold(this.push('op', at, at, this.line, at - this.lineStart), v);
  }

  private newline(at: number): void {
    this.line++;
    this.lineStart = at + 1;
  }

  /** Counts the line breaks in src[from, to). */
  private newlines(from: number, to: number): void {
    for (let j = this.src.indexOf('\n', from); j >= 0 && j < to; j = this.src.indexOf('\n', j + 1)) this.newline(j);
  }

  /** Python tokens up to the end, or (inside an f-string field) up to the `}`, `!` or `:` that ends the expression. */
  python(field: boolean): void {
    const { src, out } = this;
    let depth = 0;
    while (this.i < src.length) {
      const i = this.i;
      const c = src[i];
      if (field && depth === 0) {
        if (c === '}' || c === ':' || (c === '!' && src[i + 1] !== '=')) return;
        if (c === '=' && /[}!:]/.test(src[i + 1] ?? '')) {
          this.i++;
          continue;
        } // f"{x=}"
      }
      // Python reads a lone \r as a line break too; git's line numbers count \n only.
      if (c === '\n' || (c === '\r' && src[i + 1] !== '\n')) {
        if (!field && depth === 0 && out.length && out.k(out.length - 1) !== 'nl')
          this.push('nl', i, i, this.line, i - this.lineStart);
        if (c === '\n') this.newline(i);
        this.i++;
        continue;
      }
      if (c === '\r' || isSpaceAt(src, i)) {
        this.i = skipBlanks(src, i + 1);
        continue;
      }
      if (c === '\\' && src[i + 1] === '\n') {
        this.newline(i + 1);
        this.i += 2;
        continue;
      }
      if (c === '\\' && src[i + 1] === '\r' && src[i + 2] === '\n') {
        this.newline(i + 2);
        this.i += 3;
        continue;
      }
      if (c === '#') {
        this.i = lineEnd(src, i, PY_LINE_END);
        continue;
      }
      const pre = stringPrefix(src, i);
      if (pre !== null) {
        this.pyString(pre);
        continue;
      }
      if (this.word()) continue;
      const op = opAt(src, i, PY_BY_FIRST);
      const code = op.length === 1 ? op.charCodeAt(0) : 0;
      if (code === 40 || code === 91 || code === 123) depth++;
      else if (code === 41 || code === 93 || code === 125) depth = Math.max(0, depth - 1);
      this.push('op', i, i + op.length, this.line, i - this.lineStart);
      this.i += op.length;
    }
  }

  private pyString(prefix: string): void {
    const { src } = this;
    const col = this.i - this.lineStart;
    const raw = /r/i.test(prefix);
    const fmt = /[ft]/i.test(prefix);
    let j = this.i + prefix.length;
    const q = src[j];
    const triple = q + q + q;
    const close = src.startsWith(triple, j) ? triple : q;
    j += close.length;
    const tok = this.push('str', j, j, this.line, col);
    const value = new StringValue(src, j);
    const plain = PLAIN[fmt ? `f${q}` : q];
    while (j < src.length) {
      j = plainRun(plain, src, j);
      if (j >= src.length) break;
      if (src.startsWith(close, j)) {
        value.end(j);
        j += close.length;
        break;
      }
      const ch = src[j];
      if (ch === '\n') {
        if (close.length === 1) break; // unterminated: the line ends it
        this.newline(j);
      }
      // A backslash never hides an f-string's `{`; in a raw string it only keeps a quote or a backslash from ending things.
      if (ch === '\\' && j + 1 < src.length && !(fmt && (src[j + 1] === '{' || src[j + 1] === '}'))) {
        if (src[j + 1] === '\r' && src[j + 2] === '\n') {
          this.newline(j + 2);
          value.replace(j, j + 3, '');
          j += 3;
          continue;
        } // a line continuation
        if (src[j + 1] === '\n') this.newline(j + 1);
        if (raw) {
          const kept = src[j + 1] === q || src[j + 1] === '\\' || src[j + 1] === '\n';
          j += kept ? 2 : 1;
          continue;
        }
        const [v, n] = escapeAt(src, j, true);
        value.replace(j, j + n, v);
        j += n;
        continue;
      }
      if (fmt && (ch === '{' || ch === '}') && src[j + 1] === ch) {
        value.replace(j, j + 2, ch);
        j += 2;
        continue;
      }
      if (fmt && ch === '{') {
        const at = j;
        this.i = j + 1;
        this.pyField();
        j = this.i;
        value.replace(at, j, '{}');
        continue;
      }
      j++;
    }
    value.settle(this.out, tok, j);
    this.out.setEndLine(tok, this.line);
    this.i = j;
  }

  /** One replacement field of an f-string, from after its `{`: the expression as code in parentheses, then its conversion and format spec. */
  private pyField(): void {
    const { src } = this;
    this.paren('(', this.i);
    this.python(true);
    if (src[this.i] === '!') {
      this.i++;
      while (/\w/.test(src[this.i] ?? '')) this.i++;
    }
    if (src[this.i] === ':') {
      this.i++;
      while (this.i < src.length && src[this.i] !== '}') {
        if (src[this.i] === '{') {
          this.i++;
          this.pyField();
          continue;
        }
        if (src[this.i] === '\n') this.newline(this.i);
        this.i++;
      }
    }
    if (src[this.i] === '}') this.i++;
    this.paren(')', this.i);
  }

  /** C-family tokens up to the end, or (inside a template literal's `${`) up to its `}`. */
  c(field: boolean): void {
    const { src, lang, out } = this;
    let depth = 0;
    /** For each open `(`: does it follow a control keyword? For each open `{`: is it a block? */
    const parens: boolean[] = [];
    const braces: boolean[] = [];
    while (this.i < src.length) {
      const i = this.i;
      const c = src[i];
      if (c === '\n') {
        this.newline(i);
        this.i++;
        continue;
      }
      if (c === '\r' || isSpaceAt(src, i)) {
        this.i = skipBlanks(src, i + 1);
        continue;
      }
      if (c === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) {
        this.comment(i);
        continue;
      }
      const col = i - this.lineStart;
      if (lang === 'java' && src.startsWith('"""', i)) {
        const end = src.indexOf('"""', i + 3);
        const stop = end < 0 ? src.length : end + 3;
        const tok = this.push('str', i + 3, Math.max(i + 3, stop - 3), this.line, col);
        this.newlines(i, stop);
        out.setEndLine(tok, this.line);
        this.i = stop;
        continue;
      }
      if (c === '"' || c === "'" || c === '`') {
        this.cString(c);
        continue;
      }
      const last = out.length - 1;
      if (c === '/' && lang === 'js' && (out.regexNext(last) || regexAllowed(out, last))) {
        this.regex(i, col);
        continue;
      }
      if (this.word()) continue;
      if (c === '}' && field && depth === 0) return;
      const op = opAt(src, i, C_BY_FIRST);
      if (op === '{') depth++;
      else if (op === '}') depth--;
      const tok = this.push('op', i, i + op.length, this.line, col);
      const before = tok - 1;
      if (op === '(') parens.push(out.k(before) === 'id' && control(out, before) && !out.is(tok - 2, '.'));
      else if (op === ')' && parens.pop()) out.markRegexNext(tok);
      else if (op === '{')
        braces.push(!((out.k(before) === 'op' || out.k(before) === 'id') && OBJECT_AFTER.has(out.v(before)!)));
      else if (op === '}' && braces.pop()) out.markRegexNext(tok);
      this.i += op.length;
    }
  }

  /** A `//` or `/*` comment at i, skipped. */
  private comment(i: number): void {
    const { src } = this;
    if (src[i + 1] === '/') {
      // In JSX text `//` may be text before code; reading on as code is the side that hides nothing.
      this.i = this.jsx ? i + 2 : lineEnd(src, i, C_LINE_END);
      return;
    }
    const end = src.indexOf('*/', i + 2);
    const stop = end < 0 ? src.length : end + 2;
    this.newlines(i, stop);
    this.i = stop;
  }

  /** A regular expression literal from its `/` at i. */
  private regex(i: number, col: number): void {
    const { src } = this;
    let j = i + 1;
    let cls = false;
    while (j < src.length && src[j] !== '\n') {
      if (src[j] === '\\') {
        j += 2;
        continue;
      }
      if (src[j] === '[') cls = true;
      else if (src[j] === ']') cls = false;
      else if (src[j] === '/' && !cls) break;
      j++;
    }
    j++;
    while (j < src.length && /[a-z]/.test(src[j])) j++;
    this.push('rx', i, Math.min(j, src.length), this.line, col);
    this.i = j;
  }

  /** A quoted string from src[i] (the quote); a template literal's `${…}` parts are lexed as code, in parentheses, after its token. */
  private cString(q: string): void {
    const { src, lang } = this;
    const at = { i: this.i, line: this.line, lineStart: this.lineStart };
    const tok = this.push('str', at.i + 1, at.i + 1, this.line, this.i - this.lineStart);
    const raw = lang === 'go' && q === '`';
    const template = lang === 'js' && q === '`';
    let j = this.i + 1;
    const value = new StringValue(src, j);
    let closed = false;
    const plain = PLAIN[q];
    while (j < src.length) {
      j = plainRun(plain, src, j);
      if (j >= src.length) break;
      const ch = src[j];
      if (ch === q) {
        value.end(j);
        j++;
        closed = true;
        break;
      }
      if (ch === '\n') {
        if (q !== '`') break; // unterminated: the line ends it
        this.newline(j);
      }
      if (ch === '\\' && !raw && j + 1 < src.length) {
        if (src[j + 1] === '\r' && src[j + 2] === '\n') {
          this.newline(j + 2);
          value.replace(j, j + 3, '');
          j += 3;
          continue;
        } // a line continuation
        if (src[j + 1] === '\n') this.newline(j + 1);
        const [v, n] = escapeAt(src, j);
        value.replace(j, j + n, v);
        j += n;
        continue;
      }
      if (template && ch === '$' && src[j + 1] === '{') {
        const from = j;
        this.paren('(', j);
        this.i = j + 2;
        this.c(true);
        if (src[this.i] === '}') this.i++;
        this.paren(')', this.i);
        j = this.i;
        value.replace(from, j, '${}');
        continue;
      }
      j++;
    }
    if (!closed && lang === 'js' && !template) {
      // No JavaScript string runs past its line: this quote is JSX text (`<p>Don't {code}</p>`), read on as code.
      this.out.reset(tok, 'op', at.i, at.i + 1);
      this.out.setEndLine(tok, at.line);
      Object.assign(this, { i: at.i + 1, line: at.line, lineStart: at.lineStart });
      return;
    }
    value.settle(this.out, tok, j);
    this.out.setEndLine(tok, this.line);
    this.i = j;
  }

  /** The name or number at src[i], pushed; false when neither starts there. */
  private word(): boolean {
    const { src, lang } = this;
    const start = this.i;
    const col = start - this.lineStart;
    if (isDigit(src, start) || (src[start] === '.' && isDigit(src, start + 1))) {
      NUMBER.lastIndex = start + 1;
      NUMBER.test(src);
      this.push('num', start, NUMBER.lastIndex, this.line, col);
      this.i = NUMBER.lastIndex;
      return true;
    }
    // An ASCII name (`$` only outside Python) read by character codes: most of a file's tokens are names.
    const dollar = lang !== 'python';
    let c = src.charCodeAt(start);
    if (isWordCode(c) && (c !== 36 || dollar)) {
      let j = start + 1;
      for (c = src.charCodeAt(j); isWordCode(c) && (c !== 36 || dollar); c = src.charCodeAt(++j));
      if (!(c >= 0x80 || c === 92)) {
        this.push('id', start, j, this.line, col);
        this.i = j;
        return true;
      }
    } else if (c < 0x80 && c !== 92) return false; // an operator or a quote: most characters that start no name
    return this.wideName(start, col);
  }

  /** A name with an escape or a character beyond ASCII at start; false when none starts there. */
  private wideName(start: number, col: number): boolean {
    const { src, lang } = this;
    let j = start;
    /** The name with its escapes decoded; null while it has none (then it is the source text). */
    let decoded: string | null = null;
    for (;;) {
      const ch = src[j];
      if (ch === undefined) break;
      if (ch === '\\' && lang === 'js' && src[j + 1] === 'u') {
        const m = /^\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/.exec(src.slice(j, j + 10));
        if (!m) break;
        decoded =
          (decoded ?? src.slice(start, j)) + String.fromCodePoint(Math.min(0x10ffff, parseInt(m[1] ?? m[2], 16)));
        j += m[0].length;
        continue;
      }
      if (!(j === start ? isIdStart(src, j) : isIdPart(src, j)) || (ch === '$' && lang === 'python')) break;
      if (decoded !== null) decoded += ch;
      j++;
    }
    if (j === start) return false;
    const text = src.slice(start, j);
    let name = decoded ?? text;
    // Python folds every name with NFKC: `os._ｅxit` is `os._exit`.
    if (lang === 'python' && /[^\x00-\x7f]/.test(name)) name = name.normalize('NFKC');
    const tok = this.push('id', start, j, this.line, col);
    if (name !== text) this.out.hold(tok, name);
    this.i = j;
    return true;
  }
}

/** Whether token i is a keyword whose `(…)` a `/` may follow as a regular expression (tested in place: most are names of calls). */
const control = (t: Tokens, i: number) => t.is(i, 'if') || t.is(i, 'while') || t.is(i, 'for') || t.is(i, 'with');

/**
 * A string's value while it is read: the source text from its start until
 * an escape or an interpolation makes it differ, then the pieces it is built
 * of. A string without either (most of them) is never copied.
 */
class StringValue {
  private pieces: string[] | null = null;
  /** Where the source text not yet in pieces starts. */
  private from: number;
  private stop = -1;
  constructor(
    private readonly src: string,
    private readonly start: number,
  ) {
    this.from = start;
  }
  /** The source text [a, b) reads as v. */
  replace(a: number, b: number, v: string): void {
    this.pieces ??= [];
    this.pieces.push(this.src.slice(this.from, a), v);
    this.from = b;
  }
  /** The closing quote is at j. */
  end(j: number): void {
    this.stop = j;
  }
  /** Gives the token its value: the source range, or the pieces held apart. */
  settle(out: Tokens, tok: number, j: number): void {
    const stop = this.stop < 0 ? Math.min(j, this.src.length) : this.stop;
    if (!this.pieces) {
      out.reset(tok, 'str', this.start, stop);
      return;
    }
    this.pieces.push(this.src.slice(this.from, stop));
    out.hold(tok, this.pieces.join(''));
  }
}

/** Java decodes `\uXXXX` before it reads anything, comments included; a decoded line break becomes U+2028, which ends a comment but keeps git's line numbers. */
function javaUnicode(src: string): string {
  if (!src.includes('\\u')) return src;
  return src.replace(/(?<!\\)((?:\\\\)*)\\u+([0-9a-fA-F]{4})/g, (_, pre: string, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return pre + (ch === '\n' || ch === '\r' ? '\u2028' : ch);
  });
}

/** Whether a `/` after token i starts a regular expression; `x.in / y` divides. */
function regexAllowed(t: Tokens, i: number): boolean {
  const k = t.k(i);
  if (!k) return true;
  if (k === 'op') return !(t.is(i, ')') || t.is(i, ']') || t.is(i, '}') || t.is(i, '++') || t.is(i, '--'));
  return k === 'id' && REGEX_AFTER.has(t.v(i)!) && !(t.k(i - 1) === 'op' && (t.is(i - 1, '.') || t.is(i - 1, '?.')));
}

/** The character an escape at src[j] (the backslash) stands for, and its length: `'\\x5fexit'` spells `_exit`. */
function escapeAt(src: string, j: number, python = false): [string, number] {
  const c = src[j + 1];
  if (python && c === 'N') {
    NAMED.lastIndex = j;
    if (NAMED.exec(src)) return ['?', NAMED.lastIndex - j]; // \N{DASH}: its braces are no f-string field
  }
  ESCAPE.lastIndex = j;
  const m = 'xuU01234567'.includes(c) ? ESCAPE.exec(src) : null;
  if (m) {
    const hex = m[1] ?? m[2] ?? m[3] ?? m[4];
    const code = hex ? parseInt(hex, 16) : parseInt(m[5], 8);
    return [code <= 0x10ffff ? String.fromCodePoint(code) : '', m[0].length];
  }
  return [c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c, 2];
}

/** Python's `\N{NAME}`, up to 100 characters in all. */
const NAMED = /\\N\{[^}\n]{0,96}\}/y;
const ESCAPE = /\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3}))/y;

/** A Python string's prefix (`rb`, `f`, none) when a string starts at i, else null. */
function stringPrefix(src: string, i: number): string | null {
  for (let n = 0; n <= 2; n++) {
    const c = src.charCodeAt(i + n);
    if (c === 34 || c === 39) return src.slice(i, i + n);
    if (!PREFIX_CODES.has(c)) return null;
  }
  return null;
}
/** `rRbBuUfFtT` by character code. */
const PREFIX_CODES = new Set([114, 82, 98, 66, 117, 85, 102, 70, 116, 84]);
