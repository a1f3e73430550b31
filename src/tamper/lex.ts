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
/** Flag bits beside the kind: the value is held apart (not the source text between start and end). */
const OWN = 0x80;
/** A `)` of `if (…)` and the like, or the `}` of a block: a `/` after it starts a regular expression. */
const REGEX_NEXT = 0x40;
/** Bits 3 to 5 of a string: how many characters (quotes, a prefix) the token starts with before its value. */
const LEAD_SHIFT = 3;
const ID = 0;
const STR = 1;
const NUM = 2;
const OP = 3;
const NL = 4;
const RX = 5;
/** A token length that does not fit the byte kept for it (Tokens.lens). */
const LONG = 255;
/** Operators of no source text: a parenthesis around an interpolation (kind and bits 3 to 5, without the flags). */
const OPEN = OP | (1 << LEAD_SHIFT);
const CLOSE = OP | (2 << LEAD_SHIFT);
/** The character code of the parenthesis a kind code stands for, else 0. */
const parenOf = (k: number) => ((k & 0x3f) === OPEN ? 40 : (k & 0x3f) === CLOSE ? 41 : 0);

/**
 * A file's tokens in typed arrays, one slot per token: no object per token.
 * A token's value (a name, an operator, a string's contents without quotes or
 * prefix, an interpolation as `{}`) is sliced from the source when read; a
 * parenthesis around an interpolation is told by its kind code; only a value
 * that differs from its source text (a decoded escape) is held apart. Lines and columns are found from the offsets
 * where lines start, when asked: only the tokens a rule reports need them.
 */
export class Tokens {
  length = 0;
  private kinds: Uint8Array;
  private starts: Int32Array;
  /**
   * Each token's length in a byte, LONG for a longer one, whose end is kept
   * apart: where every end took four bytes, minified code touched as much
   * new memory for them as for the starts, and new memory costs more here
   * than the look-up.
   */
  private lens: Uint8Array;
  private readonly longEnds = new Map<number, number>();
  /** Values held apart: a string, or how to read it (a string's escapes are decoded when first asked for). */
  private readonly own = new Map<number, string | (() => string)>();
  /**
   * Strings held apart whose source text a search for word text may read in
   * place of their value: each escape in them decodes to one character that
   * is no letter, digit, `_` or `.` (`\n`, `\"`), so a word in the value is
   * a word in the source text.
   */
  private readonly quiet = new Set<number>();
  /** The held tokens in order: all of them, and those not quiet. */
  private ownOrder: number[] | null = null;
  private loudOrder: number[] | null = null;
  /** The offset after each `\n` (git counts lines by it), after 0; built when a line is first asked for. */
  private lineStarts: Int32Array | null = null;
  /** The line lineOf found last. */
  private lastLine = 1;
  constructor(readonly src: string) {
    // Code holds a token per three to four characters, minified code one per less than three: sized for
    // that, the arrays seldom grow (by half, copied) when a file holds more.
    const n = Math.ceil(src.length / 2.5) + 16;
    this.kinds = new Uint8Array(n);
    this.starts = new Int32Array(n);
    this.lens = new Uint8Array(n);
  }
  k(i: number): Kind | undefined {
    return i >= 0 && i < this.length ? KINDS[this.kinds[i] & 7] : undefined;
  }
  v(i: number): string | undefined {
    if (i < 0 || i >= this.length) return undefined;
    const k = this.kinds[i];
    if (k & OWN) return this.held(i);
    const paren = parenOf(k);
    return paren ? (paren === 40 ? '(' : ')') : this.src.slice(this.starts[i], this.end(i));
  }
  /** Whether the token's value is s (of any kind), without slicing it. */
  is(i: number, s: string): boolean {
    if (i < 0 || i >= this.length) return false;
    const k = this.kinds[i];
    if (k & OWN) return this.held(i) === s;
    // Length first (most tokens differ in it), then character by character: no call, no slice.
    const a = this.starts[i];
    const n = s.length;
    if (this.lenOf(i) !== n) return n === 1 && parenOf(k) === s.charCodeAt(0);
    if (n === 0) return parenOf(k) === 0;
    const { src } = this;
    for (let j = 0; j < n; j++) if (src.charCodeAt(a + j) !== s.charCodeAt(j)) return false;
    return true;
  }
  /** The shape key (shapeKeyOf) of the token's value, without slicing it. */
  shapeKey(i: number): number {
    const k = this.kinds[i];
    if (k & OWN) return shapeKeyOf(this.held(i));
    const a = this.starts[i];
    const n = this.lenOf(i);
    if (n === 0) return parenOf(k) ? (1 << 7) | parenOf(k) : 0;
    return (Math.min(n, 31) << 7) | Math.min(this.src.charCodeAt(a), 127);
  }
  /** Whether the token is an operator and one of these. */
  isOp(i: number, s: string): boolean {
    return i >= 0 && i < this.length && (this.kinds[i] & 7) === OP && this.is(i, s);
  }
  /** The character code of a one-character operator (0 for any other token). */
  opCode(i: number): number {
    if (i < 0 || i >= this.length) return 0;
    const k = this.kinds[i];
    if ((k & 7) !== OP) return 0;
    if (k & OWN) {
      const v = this.held(i);
      return v.length === 1 ? v.charCodeAt(0) : 0;
    }
    return this.lens[i] === 1 ? this.src.charCodeAt(this.starts[i]) : parenOf(k);
  }
  /** The line of the token's first character; its last line (a string may span lines); its column. */
  line(i: number): number {
    return this.lineOf(this.first(i));
  }
  endLine(i: number): number {
    return (this.kinds[i] & 7) === STR ? this.lineOf(this.end(i)) : this.line(i);
  }
  col(i: number): number {
    const at = this.first(i);
    return at - this.lineTable()[this.lineOf(at) - 1];
  }
  /** The offset of the token's first character (a string's prefix or quote). */
  private first(i: number): number {
    const k = this.kinds[i];
    return (k & 7) === STR ? this.starts[i] - ((k >> LEAD_SHIFT) & 7) : this.starts[i];
  }
  /** The line of offset at: how many line starts are at or before it. */
  private lineOf(at: number): number {
    const t = this.lineTable();
    // A scan asks for tokens mostly in order (Go's statements ask for every one and the one after it): the line
    // found last, or one next to it, holds most offsets asked for.
    const last = this.lastLine;
    if (t[last - 1] <= at) {
      if (last === t.length || at < t[last]) return last;
      if (last + 1 === t.length || at < t[last + 1]) return (this.lastLine = last + 1);
    } else if (last > 1 && t[last - 2] <= at) return (this.lastLine = last - 1);
    this.lastLine = countAtMost(t, t.length, at);
    return this.lastLine;
  }
  private lineTable(): Int32Array {
    if (this.lineStarts) return this.lineStarts;
    const { src } = this;
    let n = 1;
    for (let j = src.indexOf('\n'); j >= 0; j = src.indexOf('\n', j + 1)) n++;
    const t = new Int32Array(n);
    n = 1;
    for (let j = src.indexOf('\n'); j >= 0; j = src.indexOf('\n', j + 1)) t[n++] = j + 1;
    this.lineStarts = t;
    return t;
  }
  /** Appends a token of kind code `kind` (with its lead) over the source text [start, end). */
  add(kind: number, start: number, end: number): number {
    if (this.length === this.kinds.length) this.grow();
    const i = this.length++;
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.setEnd(i, end);
    return i;
  }
  /** The offset after token i's source text, and its length. */
  private end(i: number): number {
    const n = this.lens[i];
    return n === LONG ? this.longEnds.get(i)! : this.starts[i] + n;
  }
  private lenOf(i: number): number {
    return this.end(i) - this.starts[i];
  }
  /** Token i's source text ends at end (its start set first). */
  private setEnd(i: number, end: number): void {
    if (this.lens[i] === LONG) this.longEnds.delete(i);
    const n = end - this.starts[i];
    if (n >= 0 && n < LONG) this.lens[i] = n;
    else {
      this.lens[i] = LONG;
      this.longEnds.set(i, end);
    }
  }
  /** The kind code of token i, which the caller knows is a token (no bounds check). */
  kindAt(i: number): number {
    return this.kinds[i] & 7;
  }
  /** The value held apart for token i, read once. */
  private held(i: number): string {
    const v = this.own.get(i)!;
    if (typeof v === 'string') return v;
    const read = v();
    this.own.set(i, read);
    return read;
  }
  /** Gives token i a value of its own (or how to read it); end is where its source text ends (a string's closing quote). */
  hold(i: number, v: string | (() => string), end = this.end(i), quiet = false): void {
    this.ownOrder = this.loudOrder = null;
    this.kinds[i] |= OWN;
    this.setEnd(i, end);
    this.own.set(i, v);
    if (quiet) this.quiet.add(i);
  }
  /**
   * The tokens whose value can hold a match of `needle` (text of name and
   * string characters, which no token boundary splits), in order: each
   * whose source text holds a match, and each whose value is held apart
   * (for a needle of words, the quiet ones only where their source text
   * holds a match: a blob's escapes are not decoded for every search).
   */
  holding(needle: RegExp): number[] {
    const words = WORD_NEEDLE.test(needle.source) && /^[gi]*$/.test(needle.flags);
    // Matches come in order of offset, so the tokens covering them do too: repeats are adjacent.
    const found: number[] = [];
    for (const at of matchStarts(this.src, needle)) {
      const i = this.covering(at, words);
      if (i >= 0 && found[found.length - 1] !== i) found.push(i);
    }
    return mergeSorted(found, words ? this.loudSorted() : this.ownSorted());
  }
  /** The tokens whose value is held apart, in order (sorted once: each search merges them in). */
  private ownSorted(): number[] {
    this.ownOrder ??= [...this.own.keys()].sort((a, b) => a - b);
    return this.ownOrder;
  }
  private loudSorted(): number[] {
    this.loudOrder ??= this.ownSorted().filter((i) => !this.quiet.has(i));
    return this.loudOrder;
  }
  /** The token whose source text covers offset at (not one held apart, unless `quiet` ones are asked for), or -1. */
  private covering(at: number, quiet: boolean): number {
    const lo = countAtMost(this.starts, this.length, at);
    // Tokens of no text (a line end, a parenthesis around an interpolation) may start where the covering one ends.
    for (let i = lo - 1; i >= 0 && i >= lo - 4; i--) {
      if ((this.kinds[i] & OWN && !(quiet && this.quiet.has(i))) || this.lens[i] === 0) continue;
      return this.starts[i] <= at && at < this.end(i) ? i : -1;
    }
    return -1;
  }
  /** Token i becomes the source text [start, end) of kind code k (its lead included). */
  reset(i: number, k: number, start: number, end: number): void {
    if (this.kinds[i] & OWN) {
      this.ownOrder = this.loudOrder = null;
      this.own.delete(i);
      this.quiet.delete(i);
    }
    this.kinds[i] = k;
    this.starts[i] = start;
    this.setEnd(i, end);
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
    this.lens = more(this.lens);
  }
}

/**
 * A value's shape: its length (up to 31) and its first character's code (up
 * to 127), as one number below SHAPE_KEYS. Equal values have equal shapes,
 * so a name whose shape no name of a list has is not in the list.
 */
export const shapeKeyOf = (s: string): number =>
  s.length === 0 ? 0 : (Math.min(s.length, 31) << 7) | Math.min(s.charCodeAt(0), 127);
export const SHAPE_KEYS = 32 << 7;

/** How many of the first n entries of the ascending a are at most v: a binary search, one loop for every sorted offset list here. */
export function countAtMost(a: Int32Array, n: number, v: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A needle that matches only words (letters, digits, `_`) and dots, as alternatives: what every search of the rules is. */
const WORD_NEEDLE = /^(?:\w|\\\.)+(?:\|(?:\w|\\\.)+)*$/;

/** Where each match of needle in src starts, in order; a plain word is found by indexOf, which makes no match object. */
function matchStarts(src: string, needle: RegExp): number[] {
  const out: number[] = [];
  if (/^\w+$/.test(needle.source) && /^g?$/.test(needle.flags)) {
    const w = needle.source;
    for (let at = src.indexOf(w); at >= 0; at = src.indexOf(w, at + w.length)) out.push(at);
    return out;
  }
  const re = new RegExp(needle.source, needle.flags.includes('g') ? needle.flags : `${needle.flags}g`);
  for (let m = re.exec(src); m; m = re.exec(src)) {
    out.push(m.index);
    if (m[0] === '') re.lastIndex++;
  }
  return out;
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
/** ASCII character classes by code, bits of CLASS. */
const NAME = 1; // a letter, `_` or `$` (Python checks `$` apart)
const DIGIT = 2;
const BLANK = 4; // space, tab, vertical tab, form feed, carriage return
const NUMBER_PART = 8; // what a number runs on over: `\w` and `.`
const PREFIX = 16; // a Python string prefix letter: rRbBuUfFtT
const CLASS = (() => {
  const t = new Uint8Array(128);
  const mark = (chars: string, bit: number) => {
    for (const ch of chars) t[ch.charCodeAt(0)] |= bit;
  };
  const lower = 'abcdefghijklmnopqrstuvwxyz';
  const letters = lower + lower.toUpperCase();
  mark(`${letters}_$`, NAME);
  mark('0123456789', DIGIT);
  mark(' \t\v\f\r', BLANK);
  mark(`${letters}0123456789_.`, NUMBER_PART);
  mark('rRbBuUfFtT', PREFIX);
  return t;
})();
const classOf = (c: number) => (c < 128 ? CLASS[c] : 0);
/** Past the run of spaces and tabs from i (indentation, mostly): no token starts in it. */
const skipBlanks = (s: string, i: number) => {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 9) c = s.charCodeAt(++i);
  return i;
};
const isIdStart = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return (classOf(c) & NAME) !== 0 || (c >= 0x80 && !SPACE.test(s[i]));
};
const isIdPart = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return (classOf(c) & (NAME | DIGIT)) !== 0 || (c >= 0x80 && !SPACE.test(s[i]));
};
/** Where a `//` comment ends: JavaScript also ends it at `\r`, U+2028 and U+2029 (and Java's decoded `\u000a` is one of these). */
const C_LINE_END = /[\n\r\u2028\u2029]/g;
const PY_LINE_END = /[\n\r]/g;
/** The length of the C-family operator at i, whose first character's code is c: the longest that starts there, else 1. */
function cOpLength(src: string, i: number, c: number): number {
  const d = src.charCodeAt(i + 1);
  const e = src.charCodeAt(i + 2);
  switch (c) {
    case 62: // >> >>> >>= >>>= >=
      if (d === 62) return e === 62 ? (src.charCodeAt(i + 3) === 61 ? 4 : 3) : e === 61 ? 3 : 2;
      return d === 61 ? 2 : 1;
    case 61: // == === =>
    case 33: // != !==
      if (d === 61) return e === 61 ? 3 : 2;
      return c === 61 && d === 62 ? 2 : 1;
    case 42: // ** **= *=
    case 38: // && &&= &=
    case 124: // || ||= |=
      if (d === c) return e === 61 ? 3 : 2;
      return d === 61 ? 2 : 1;
    case 60: // << <<= <= <-
      if (d === 60) return e === 61 ? 3 : 2;
      return d === 61 || d === 45 ? 2 : 1;
    case 63: // ?? ??= ?.
      if (d === 63) return e === 61 ? 3 : 2;
      return d === 46 ? 2 : 1;
    case 46: // ...
      return d === 46 && e === 46 ? 3 : 1;
    case 43: // ++ +=
    case 45: // -- -= ->
      return d === c || d === 61 || (c === 45 && d === 62) ? 2 : 1;
    case 58: // :: :=
      return d === 58 || d === 61 ? 2 : 1;
    case 47:
    case 37:
    case 94: // /= %= ^=
      return d === 61 ? 2 : 1;
  }
  return 1;
}
/** The same for Python. */
function pyOpLength(src: string, i: number, c: number): number {
  const d = src.charCodeAt(i + 1);
  switch (c) {
    case 42: // ** **= *=
    case 47: // // //= /=
    case 62: // >> >>= >=
    case 60: // << <<= <=
      if (d === c) return src.charCodeAt(i + 2) === 61 ? 3 : 2;
      return d === 61 ? 2 : 1;
    case 46: // ...
      return d === 46 && src.charCodeAt(i + 2) === 46 ? 3 : 1;
    case 45: // -> -=
      return d === 62 || d === 61 ? 2 : 1;
    case 61:
    case 33:
    case 43:
    case 37:
    case 38:
    case 124:
    case 94:
    case 64:
    case 58: // == != += %= &= |= ^= @= :=
      return d === 61 ? 2 : 1;
  }
  return 1;
}
/** The end of a line comment from i: the next line break (not consumed), or the end. */
const lineEnd = (src: string, i: number, re: RegExp) => {
  re.lastIndex = i;
  return re.test(src) ? re.lastIndex - 1 : src.length;
};

/** `jsx`: the file may hold JSX, whose text (`<p>see http://x {code}</p>`) is no comment and no string. */
export function lex(src: string, lang: Lang, jsx = false): Tokens {
  const lexer = new Lexer(lang === 'java' ? javaUnicode(src) : src, lang, jsx);
  // The file is read in slices, a call each: the engine compiles a function it calls often once, where one long
  // call is compiled again to replace its loop while it runs (twice the compiling, a good part of a cold scan).
  const top = new Nesting();
  if (lang === 'python') while (lexer.i < lexer.src.length) lexer.python(false, top, SLICE);
  else while (lexer.i < lexer.src.length) lexer.c(false, top, SLICE);
  const out = lexer.out;
  if (lang === 'python' && out.length && out.kindAt(out.length - 1) !== NL)
    out.add(NL, lexer.src.length, lexer.src.length);
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

/** The character codes of the one-character operators among them. */
const OBJECT_AFTER_CHAR = new Set([...OBJECT_AFTER].filter((o) => o.length === 1).map((o) => o.charCodeAt(0)));
/** Whether a `{` after token i opens an object literal: a one-character operator by its code, without slicing it. */
function objectAfter(t: Tokens, i: number): boolean {
  const op = t.opCode(i);
  if (op) return OBJECT_AFTER_CHAR.has(op);
  const k = t.k(i);
  return (k === 'op' || k === 'id') && OBJECT_AFTER.has(t.v(i)!);
}

/** The kind code of a string token whose value starts `lead` characters (quotes, a prefix) after the token. */
const strWithLead = (lead: number) => STR | (lead << LEAD_SHIFT);

/** How many steps (a token, a run of blanks, a comment) a call of `c` or `python` takes at the top level. */
const SLICE = 4096;

/** The brackets open at one level (the file, or one interpolation): how deep, and for each `(` and `{` what a `/` after its close starts. */
class Nesting {
  depth = 0;
  readonly parens: boolean[] = [];
  readonly braces: boolean[] = [];
}

class Lexer {
  readonly out: Tokens;
  i = 0;
  constructor(
    readonly src: string,
    readonly lang: Lang,
    readonly jsx: boolean,
  ) {
    this.out = new Tokens(src);
  }

  /** Pushes a parenthesis the source does not hold (around an interpolation) at `at`. */
  private paren(v: '(' | ')', at: number): void {
    this.out.add(v === '(' ? OPEN : CLOSE, at, at);
  }

  /** Python tokens up to the end (or `steps` steps), or (inside an f-string field) up to the `}`, `!` or `:` that ends the expression. */
  python(field: boolean, at: Nesting, steps = Number.POSITIVE_INFINITY): void {
    const { src, out } = this;
    let depth = at.depth;
    for (let step = 0; step < steps && this.i < src.length; step++) {
      const i = this.i;
      const c = src.charCodeAt(i);
      const cls = classOf(c);
      if (cls & NAME && c !== 36) {
        // A string prefix letter starts a name unless a quote follows the prefix.
        const pre = cls & PREFIX ? prefixLength(src, i) : -1;
        if (pre >= 0) this.pyString(i, pre);
        else this.word(i);
        continue;
      }
      if (field && depth === 0) {
        if (c === 125 || c === 58 || (c === 33 && src.charCodeAt(i + 1) !== 61)) break;
        const d = src.charCodeAt(i + 1);
        if (c === 61 && (d === 125 || d === 33 || d === 58)) {
          this.i++;
          continue;
        } // f"{x=}"
      }
      // Python reads a lone \r as a line break too; git's line numbers count \n only.
      if (c === 10 || (c === 13 && src.charCodeAt(i + 1) !== 10)) {
        if (!field && depth === 0 && out.length && out.kindAt(out.length - 1) !== NL) out.add(NL, i, i);
        this.i++;
        continue;
      }
      if (cls & BLANK || (c >= 0x80 && SPACE.test(src[i]))) {
        this.i = skipBlanks(src, i + 1);
        continue;
      }
      if (c === 92 && src.charCodeAt(i + 1) === 10) {
        this.i += 2;
        continue;
      }
      if (c === 92 && src.charCodeAt(i + 1) === 13 && src.charCodeAt(i + 2) === 10) {
        this.i += 3;
        continue;
      }
      if (c === 35) {
        this.i = lineEnd(src, i, PY_LINE_END);
        continue;
      }
      if (c === 34 || c === 39) {
        this.pyString(i, 0);
        continue;
      }
      if (this.word(i)) continue;
      const len = pyOpLength(src, i, c);
      if (len === 1 && (c === 40 || c === 91 || c === 123)) depth++;
      else if (len === 1 && (c === 41 || c === 93 || c === 125)) depth = Math.max(0, depth - 1);
      out.add(OP, i, i + len);
      this.i += len;
    }
    at.depth = depth;
  }

  /** A Python string at i after a prefix of `pre` characters. */
  private pyString(i: number, pre: number): void {
    const { src } = this;
    let raw = false;
    let fmt = false;
    for (let p = i; p < i + pre; p++) {
      const c = src.charCodeAt(p) | 0x20;
      if (c === 114) raw = true;
      else if (c === 102 || c === 116) fmt = true;
    }
    const q = src.charCodeAt(i + pre);
    const triple = src.charCodeAt(i + pre + 1) === q && src.charCodeAt(i + pre + 2) === q;
    const close = triple ? 3 : 1;
    const start = i + pre + close;
    const kind = strWithLead(pre + close);
    // The body up to its first escape or replacement field: most strings have none, and end here.
    let j = start;
    for (; j < src.length; j++) {
      const ch = src.charCodeAt(j);
      if (ch === q && (!triple || (src.charCodeAt(j + 1) === q && src.charCodeAt(j + 2) === q))) {
        this.out.add(kind, start, j);
        this.i = j + close;
        return;
      }
      if (ch === 10 ? !triple : ch === 92 || (fmt && (ch === 123 || ch === 125))) break;
    }
    this.pyRest(kind, start, j, { q, close, raw, fields: fmt });
  }

  /** The rest of a Python string whose value starts at start, from j, its first escape, field or line break. */
  private pyRest(kind: number, start: number, j: number, quote: Quote): void {
    const tok = this.out.add(kind, start, start);
    const body = new Recorder(this, start, j, quote, true);
    const end = body.walk(body);
    body.settle(this.out, tok, kind, end);
    this.i = end;
  }

  /** One replacement field of an f-string from its `{` at `at`: the expression as code in parentheses, then its conversion and format spec; returns where it ends. */
  pyField(at: number): number {
    const { src } = this;
    this.i = at + 1;
    this.paren('(', this.i);
    this.python(true, new Nesting());
    if (src[this.i] === '!') {
      this.i++;
      while (classOf(src.charCodeAt(this.i)) & (NAME | DIGIT) && src[this.i] !== '$') this.i++;
    }
    if (src[this.i] === ':') {
      this.i++;
      while (this.i < src.length && src[this.i] !== '}') {
        if (src[this.i] === '{') {
          this.pyField(this.i);
          continue;
        }
        this.i++;
      }
    }
    if (src[this.i] === '}') this.i++;
    this.paren(')', this.i);
    return this.i;
  }

  /** A template literal's `${…}` from its `$` at `at`: the code in parentheses; returns where it ends. */
  interpolation(at: number): number {
    this.paren('(', at);
    this.i = at + 2;
    this.c(true, new Nesting());
    if (this.src[this.i] === '}') this.i++;
    this.paren(')', this.i);
    return this.i;
  }

  /** C-family tokens up to the end (or `steps` steps), or (inside a template literal's `${`) up to its `}`. */
  c(field: boolean, at: Nesting, steps = Number.POSITIVE_INFINITY): void {
    const { src, lang, out } = this;
    const { parens, braces } = at;
    let depth = at.depth;
    for (let step = 0; step < steps && this.i < src.length; step++) {
      const i = this.i;
      const c = src.charCodeAt(i);
      const cls = classOf(c);
      if (cls & NAME) {
        this.word(i);
        continue;
      }
      if (c === 10) {
        this.i++;
        continue;
      }
      if (cls & BLANK || (c >= 0x80 && SPACE.test(src[i]))) {
        this.i = skipBlanks(src, i + 1);
        continue;
      }
      if (c === 47) {
        const d = src.charCodeAt(i + 1);
        if (d === 47 || d === 42) {
          this.comment(i);
          continue;
        }
      }
      if (c === 34 && lang === 'java' && src.startsWith('"""', i)) {
        // An unterminated text block runs to the end of the file.
        const end = src.indexOf('"""', i + 3);
        out.add(strWithLead(3), i + 3, end < 0 ? src.length : end);
        this.i = end < 0 ? src.length : end + 3;
        continue;
      }
      if (c === 34 || c === 39 || c === 96) {
        this.cString(i, c);
        continue;
      }
      const last = out.length - 1;
      if (c === 47 && lang === 'js' && (out.regexNext(last) || regexAllowed(out, last))) {
        this.regex(i);
        continue;
      }
      if (this.word(i)) continue;
      if (c === 125 && field && depth === 0) break;
      const len = cOpLength(src, i, c);
      const tok = out.add(OP, i, i + len);
      this.i += len;
      if (len !== 1) continue;
      const before = tok - 1;
      if (c === 40) parens.push(out.k(before) === 'id' && control(out, before) && !out.is(tok - 2, '.'));
      else if (c === 41) {
        if (parens.pop()) out.markRegexNext(tok);
      } else if (c === 123) {
        depth++;
        braces.push(!objectAfter(out, before));
      } else if (c === 125) {
        depth--;
        if (braces.pop()) out.markRegexNext(tok);
      }
    }
    at.depth = depth;
  }

  /** A `//` or `/*` comment at i, skipped. */
  private comment(i: number): void {
    const { src } = this;
    if (src.charCodeAt(i + 1) === 47) {
      // In JSX text `//` may be text before code; reading on as code is the side that hides nothing.
      this.i = this.jsx ? i + 2 : lineEnd(src, i, C_LINE_END);
      return;
    }
    const end = src.indexOf('*/', i + 2);
    this.i = end < 0 ? src.length : end + 2;
  }

  /**
   * A regular expression literal from its `/` at i. None runs over a line
   * break: one that finds no closing `/` on its line (JSX's `</div>` in a
   * `.js` file) ends there, and the next line is read as code.
   */
  private regex(i: number): void {
    const { src } = this;
    let j = i + 1;
    let cls = false;
    for (let c = src.charCodeAt(j); j < src.length && c !== 10; c = src.charCodeAt(j)) {
      if (c === 92 && src.charCodeAt(j + 1) !== 10) {
        j += 2;
        continue;
      }
      if (c === 91) cls = true;
      else if (c === 93) cls = false;
      else if (c === 47 && !cls) {
        j++;
        for (c = src.charCodeAt(j); c >= 97 && c <= 122; c = src.charCodeAt(++j));
        break;
      }
      j++;
    }
    j = Math.min(j, src.length);
    this.out.add(RX, i, j);
    this.i = j;
  }

  /** A quoted string from its quote (code q) at i; a template literal's `${…}` parts are lexed as code, in parentheses, after its token. */
  private cString(i: number, q: number): void {
    const { src, lang } = this;
    const raw = lang === 'go' && q === 96;
    const template = lang === 'js' && q === 96;
    const kind = strWithLead(1);
    // The body up to its first escape, interpolation or line break: most strings have none, and end here.
    let j = i + 1;
    for (; j < src.length; j++) {
      const ch = src.charCodeAt(j);
      if (ch === q) {
        this.out.add(kind, i + 1, j);
        this.i = j + 1;
        return;
      }
      if (ch === 10 ? q !== 96 : ch === 92 ? !raw : ch === 36 && template) break;
    }
    this.cRest(kind, i, j, { q, close: 1, raw, fields: template });
  }

  /** The rest of the string whose quote is at i, from j, its first escape, interpolation or line break. */
  private cRest(kind: number, i: number, j: number, quote: Quote): void {
    const tok = this.out.add(kind, i + 1, i + 1);
    const body = new Recorder(this, i + 1, j, quote, false);
    const end = body.walk(body);
    if (!body.closed && this.lang === 'js' && !quote.fields) {
      // No JavaScript string runs past its line: this quote is JSX text (`<p>Don't {code}</p>`), read on as code.
      this.out.reset(tok, OP, i, i + 1);
      this.i = i + 1;
      return;
    }
    body.settle(this.out, tok, kind, end);
    this.i = end;
  }

  /** The name or number at start, pushed; false when neither starts there. */
  private word(start: number): boolean {
    const { src } = this;
    let c = src.charCodeAt(start);
    let cls = classOf(c);
    if (cls & DIGIT || (c === 46 && classOf(src.charCodeAt(start + 1)) & DIGIT)) {
      let j = start + 1;
      while (classOf(src.charCodeAt(j)) & NUMBER_PART) j++;
      this.out.add(NUM, start, j);
      this.i = j;
      return true;
    }
    // An ASCII name (`$` only outside Python) read by character codes: most of a file's tokens are names.
    const dollar = this.lang !== 'python';
    if (cls & NAME && (c !== 36 || dollar)) {
      let j = start + 1;
      for (c = src.charCodeAt(j), cls = classOf(c); cls & (NAME | DIGIT) && (c !== 36 || dollar); ) {
        c = src.charCodeAt(++j);
        cls = classOf(c);
      }
      if (!(c >= 0x80 || c === 92)) {
        this.out.add(ID, start, j);
        this.i = j;
        return true;
      }
    } else if (c < 0x80 && c !== 92) return false; // an operator or a quote: most characters that start no name
    return this.wideName(start);
  }

  /** A name with an escape or a character beyond ASCII at start; false when none starts there. */
  private wideName(start: number): boolean {
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
    const tok = this.out.add(ID, start, j);
    if (name !== text) this.out.hold(tok, name);
    this.i = j;
    return true;
  }
}

/** Where the run of characters that mean nothing inside a string quoted by q ends: at q, a line break, a backslash, or `$` (`{` and `}` where `fields`). */
function plainRun(src: string, j: number, q: number, fields: boolean): number {
  for (; j < src.length; j++) {
    const c = src.charCodeAt(j);
    if (c === q || c === 10 || c === 92 || c === 36 || (fields && (c === 123 || c === 125))) return j;
  }
  return j;
}

/** The length of a Python string's prefix (`rb`, `f`, none) when a string starts at i, else -1. */
function prefixLength(src: string, i: number): number {
  for (let n = 0; n <= 2; n++) {
    const c = src.charCodeAt(i + n);
    if (c === 34 || c === 39) return n;
    if (!(classOf(c) & PREFIX)) return -1;
  }
  return -1;
}

/** Whether token i is a keyword whose `(…)` a `/` may follow as a regular expression (tested in place: most are names of calls). */
const control = (t: Tokens, i: number) => t.is(i, 'if') || t.is(i, 'while') || t.is(i, 'for') || t.is(i, 'with');

/** How a string's body reads. */
interface Quote {
  /** The quote's character code, and how many of it close the string (3 for Python's triple quotes). */
  q: number;
  close: number;
  /** Python's `r` prefix (a backslash only keeps a quote or a backslash from ending things), Go's backquote (no escapes). */
  raw: boolean;
  /** Whether `{…}` (an f-string) or `${…}` (a template literal) is code. */
  fields: boolean;
}

/** What a walk of a string's body tells, in order, of the parts whose value is not their source text. */
interface Body {
  /** The escape at j (its backslash), in Python or not; returns its length, or more where the body needs no note of what follows (see Recorder). */
  escape(j: number, python: boolean): number;
  /** The source text [a, b) reads as v (a line continuation, a doubled brace). */
  replace(a: number, b: number, v: string): void;
  /** The field or interpolation at a reads as v; returns where it ends. */
  field(a: number, v: string): number;
  /** The closing quote is at j. */
  end(j: number): void;
}

/**
 * A C-family string's body from j (after its quote, or later where no part
 * differs before j) to its end: returns the offset after its closing quote,
 * or where a line break or the file's end cuts it short.
 */
function cBody(src: string, j: number, s: Quote, body: Body): number {
  const { q } = s;
  while (j < src.length) {
    j = plainRun(src, j, q, false);
    if (j >= src.length) break;
    const ch = src.charCodeAt(j);
    if (ch === q) {
      body.end(j);
      return j + 1;
    }
    if (ch === 10 && q !== 96) break; // unterminated: the line ends it
    if (ch === 92 && !s.raw && j + 1 < src.length) {
      if (src.charCodeAt(j + 1) === 13 && src.charCodeAt(j + 2) === 10) {
        body.replace(j, j + 3, ''); // a line continuation
        j += 3;
      } else j += body.escape(j, false);
      continue;
    }
    if (s.fields && ch === 36 && src.charCodeAt(j + 1) === 123) j = body.field(j, '${}');
    else j++;
  }
  return j;
}

/** The same for a Python string. */
function pyBody(src: string, j: number, s: Quote, body: Body): number {
  const { q, close, raw, fields } = s;
  while (j < src.length) {
    j = plainRun(src, j, q, fields);
    if (j >= src.length) break;
    const ch = src.charCodeAt(j);
    if (ch === q && (close === 1 || (src.charCodeAt(j + 1) === q && src.charCodeAt(j + 2) === q))) {
      body.end(j);
      return j + close;
    }
    if (ch === 10 && close === 1) break; // unterminated: the line ends it
    const d = src.charCodeAt(j + 1);
    // A backslash never hides an f-string's `{`; in a raw string it only keeps a quote or a backslash from ending things.
    if (ch === 92 && j + 1 < src.length && !(fields && (d === 123 || d === 125))) {
      if (d === 13 && src.charCodeAt(j + 2) === 10) {
        body.replace(j, j + 3, ''); // a line continuation
        j += 3;
      } else if (raw) j += d === q || d === 92 || d === 10 ? 2 : 1;
      else j += body.escape(j, true);
      continue;
    }
    if (fields && (ch === 123 || ch === 125) && d === ch) {
      body.replace(j, j + 2, src[j]);
      j += 2;
    } else if (fields && ch === 123) j = body.field(j, '{}');
    else j++;
  }
  return j;
}

/**
 * The lexer's walk of a string's body: notes whether any part reads as
 * other than its source text and where each field ends (the lexer reads a
 * field's code as it is met). A short string's value is built as it is
 * walked (what would be kept to read it later is larger than it); a longer
 * one whose value differs gets a value read when first asked for, by walking
 * its body again into a Builder: the escapes of a blob of data cost nothing
 * until a rule reads it.
 */
class Recorder implements Body {
  closed = false;
  private differs = false;
  /** Whether a part may decode to a word's character, or to none (a line continuation joins what is around it). */
  private loud = false;
  /** Whether every part is an escape JSON reads as this lexer does: `\n \t \r \" \\ \/ \uXXXX`. */
  private json = true;
  private stop = -1;
  private fieldEnds: number[] | null = null;
  /** The value built while the walk is within READ_LATER characters of the start (from the first part that differs). */
  private built: Builder | null = null;
  /** `start`: where the value starts; `from`: where the walk starts (no part differs before it). */
  constructor(
    private readonly lexer: Lexer,
    private readonly start: number,
    private readonly from: number,
    private readonly quote: Quote,
    private readonly python: boolean,
  ) {}
  /** Walks the body into `body` (this one, or a Builder); returns where the string ends. */
  walk(body: Body): number {
    return (this.python ? pyBody : cBody)(this.lexer.src, this.from, this.quote, body);
  }
  escape(j: number, python: boolean): number {
    const { src } = this.lexer;
    this.differs = true;
    const n = this.building(j)?.escape(j, python) ?? escapeLength(src, j, python);
    // `\n`, `\t` and `\r` decode to control characters, every other two-character escape to its second character.
    const c = src.charCodeAt(j + 1);
    if (n !== 2 || (c !== 110 && c !== 116 && c !== 114 && isWordChar(c))) this.loud = true;
    if (n === 2 ? !JSON_ESCAPE.has(c) : n !== 6 || c !== 117 || src.charCodeAt(j + 2) === 123) this.json = false;
    // Past what is built as it is walked, the plain characters and quiet JSON escapes (`\n`, `\"`) after one such
    // escape change no note: a blob of data is skipped by the regular-expression engine, not walked a character at a time.
    if (!python && this.built === null && JSON_ESCAPE.has(c)) return quietRun(src, j, this.quote.q);
    return n;
  }
  replace(a: number, b: number, v: string): void {
    this.differs = true;
    this.json = false;
    if (v.length !== 1 || isWordChar(v.charCodeAt(0))) this.loud = true;
    this.building(a)?.replace(a, b, v);
  }
  field(a: number, v: string): number {
    this.differs = true;
    this.json = false;
    const end = this.python ? this.lexer.pyField(a) : this.lexer.interpolation(a);
    (this.fieldEnds ??= []).push(end);
    this.building(a)?.replace(a, end, v);
    return end;
  }
  /** The value being built, while j is within READ_LATER characters of the start (past it, it is read when asked for). */
  private building(j: number): Builder | null {
    // The walk only goes on: past READ_LATER once, past it for good.
    if (j - this.start >= READ_LATER) return (this.built = null);
    this.built ??= new Builder(this.lexer.src, this.start, null);
    return this.built;
  }
  end(j: number): void {
    this.closed = true;
    this.stop = j;
  }
  /** Gives the token its value: the source range, or the value held apart (or how to read it); j is where the walk ended. */
  settle(out: Tokens, tok: number, kind: number, j: number): void {
    const stop = this.stop < 0 ? Math.min(j, this.lexer.src.length) : this.stop;
    if (!this.differs) {
      out.reset(tok, kind, this.start, stop);
      return;
    }
    // A field's tokens lie inside the string's source text: a search would find them, not the string.
    const quiet = !this.loud && !this.fieldEnds;
    const { built } = this;
    out.hold(tok, built && stop - this.start < READ_LATER ? built.text(stop) : () => this.value(stop), stop, quiet);
  }
  private value(stop: number): string {
    const { src } = this.lexer;
    // JSON's reader, in native code, decodes a blob's escapes many times faster than a walk.
    if (this.json) {
      try {
        return JSON.parse(`"${src.slice(this.start, stop)}"`) as string;
      } catch {
        // a quote, a tab or another control character as itself: JSON has none of them
      }
    }
    const value = new Builder(src, this.start, this.fieldEnds);
    this.walk(value);
    return value.text(stop);
  }
}

/** How long (in source characters) a string is before its value is read only when asked for. */
const READ_LATER = 256;

/** A string's value built from its source text and the parts a walk of it tells (fields end where the lexer found). */
class Builder implements Body {
  private readonly pieces: string[] = [];
  /** Where the source text not yet in pieces starts. */
  private from: number;
  private field_ = 0;
  constructor(
    private readonly src: string,
    start: number,
    private readonly fieldEnds: readonly number[] | null,
  ) {
    this.from = start;
  }
  escape(j: number, python: boolean): number {
    const [v, n] = escapeAt(this.src, j, python);
    this.replace(j, j + n, v);
    return n;
  }
  replace(a: number, b: number, v: string): void {
    this.pieces.push(this.src.slice(this.from, a), v);
    this.from = b;
  }
  field(a: number, v: string): number {
    const end = this.fieldEnds![this.field_++];
    this.replace(a, end, v);
    return end;
  }
  end(): void {
    // where the string ends was found when it was lexed: text() is told
  }
  text(stop: number): string {
    this.pieces.push(this.src.slice(this.from, stop));
    return this.pieces.join('');
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

/** The characters after a backslash that JSON decodes as escapeAt does (`\b` and `\f` it reads otherwise). */
const JSON_ESCAPE = new Set([110, 116, 114, 34, 92, 47]);

/** By the quote's code: the run of characters that mean nothing in a C-family string (plainRun's, as a sticky pattern). */
const PLAIN_RUNS = new Map<number, RegExp>();

/**
 * The length of the run from j (a backslash of an escape in JSON_ESCAPE) of
 * characters that mean nothing and escapes in JSON_ESCAPE (each decodes to no
 * word character), in a C-family string quoted by q.
 */
function quietRun(src: string, j: number, q: number): number {
  let plain = PLAIN_RUNS.get(q);
  if (!plain) {
    plain = new RegExp(`[^\\u${q.toString(16).padStart(4, '0')}\\n\\\\$]*`, 'y');
    PLAIN_RUNS.set(q, plain);
  }
  let k = j;
  while (src.charCodeAt(k) === 92 && JSON_ESCAPE.has(src.charCodeAt(k + 1))) {
    plain.lastIndex = k + 2;
    plain.test(src);
    k = plain.lastIndex;
  }
  return k - j;
}

/** Whether a character code is a letter, digit, `_` or `.`: what a word needle (WORD_NEEDLE) matches. */
const isWordChar = (c: number) => ((classOf(c) & (NAME | DIGIT)) !== 0 && c !== 36) || c === 46;

/** The length of the escape at src[j] (the backslash), as escapeAt reads it, without decoding it. */
function escapeLength(src: string, j: number, python: boolean): number {
  const c = src.charCodeAt(j + 1);
  if (python && c === 78) {
    NAMED.lastIndex = j;
    if (NAMED.test(src)) return NAMED.lastIndex - j;
  }
  // x u U and the octal digits start the escapes longer than two characters.
  if (c === 120 || c === 117 || c === 85 || (c >= 48 && c <= 55)) {
    ESCAPE.lastIndex = j;
    if (ESCAPE.test(src)) return ESCAPE.lastIndex - j;
  }
  return 2;
}

/** Python's `\N{NAME}`, up to 100 characters in all. */
const NAMED = /\\N\{[^}\n]{0,96}\}/y;
const ESCAPE = /\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3}))/y;
