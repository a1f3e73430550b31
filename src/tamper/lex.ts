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

export interface Token {
  k: Kind;
  /** The name, operator, or a string's contents without quotes or prefix (an interpolation as `{}`). */
  v: string;
  line: number;
  /** The last line the token covers (a string may span lines). */
  endLine: number;
  /** Column of the token's first character. */
  col: number;
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
/** An ASCII name, read at once; a name with an escape or another character goes the long way. */
const C_NAME = /[A-Za-z_$][\w$]*/y;
const PY_NAME = /[A-Za-z_]\w*/y;
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
  return re.exec(src) ? re.lastIndex : j;
};
/** The operators by their first character, longest first. */
const byFirst = (ops: string[]) => {
  const m = new Map<string, string[]>();
  for (const o of ops) m.set(o[0], [...(m.get(o[0]) ?? []), o]);
  return m;
};
const PY_BY_FIRST = byFirst(PY_OPS);
const C_BY_FIRST = byFirst(C_OPS);
const opAt = (src: string, i: number, table: Map<string, string[]>) => {
  const c = src[i];
  const list = table.get(c);
  if (list) for (const o of list) if (src.startsWith(o, i)) return o;
  return c;
};
/** The end of a line comment from i: the next line break (not consumed), or the end. */
const lineEnd = (src: string, i: number, re: RegExp) => {
  re.lastIndex = i;
  return re.exec(src) ? re.lastIndex - 1 : src.length;
};

/** `jsx`: the file may hold JSX, whose text (`<p>see http://x {code}</p>`) is no comment and no string. */
export function lex(src: string, lang: Lang, jsx = false): Token[] {
  const lexer = new Lexer(lang === 'java' ? javaUnicode(src) : src, lang, jsx);
  if (lang === 'python') lexer.python(false);
  else lexer.c(false);
  const out = lexer.out;
  if (lang === 'python' && out.length && out[out.length - 1].k !== 'nl')
    out.push({ k: 'nl', v: '', line: lexer.line, endLine: lexer.line, col: 0 });
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
  readonly out: Token[] = [];
  /** `)` of `if (…)`, `while (…)`, `for (…)`, `with (…)` and `}` of a block: a `/` after them starts a regular expression. */
  private readonly regexAfter = new Set<Token>();
  i = 0;
  line = 1;
  lineStart = 0;
  constructor(
    readonly src: string,
    readonly lang: Lang,
    readonly jsx: boolean,
  ) {}

  private push(k: Kind, v: string, startLine: number, col: number): Token {
    const t = { k, v, line: startLine, endLine: this.line, col };
    this.out.push(t);
    return t;
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
    const { src } = this;
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
        const last = this.out[this.out.length - 1];
        if (!field && depth === 0 && last && last.k !== 'nl') this.push('nl', '', this.line, i - this.lineStart);
        if (c === '\n') this.newline(i);
        this.i++;
        continue;
      }
      if (c === '\r' || isSpaceAt(src, i)) {
        this.i++;
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
      if ('([{'.includes(op)) depth++;
      else if (')]}'.includes(op)) depth = Math.max(0, depth - 1);
      this.push('op', op, this.line, i - this.lineStart);
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
    const close = src.startsWith(q.repeat(3), j) ? q.repeat(3) : q;
    const tok = this.push('str', '', this.line, col);
    j += close.length;
    let value = '';
    const plain = PLAIN[fmt ? `f${q}` : q];
    while (j < src.length) {
      const run = plainRun(plain, src, j);
      if (run > j) {
        value += src.slice(j, run);
        j = run;
        if (j >= src.length) break;
      }
      if (src.startsWith(close, j)) {
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
          j += 3;
          continue;
        } // a line continuation
        if (src[j + 1] === '\n') this.newline(j + 1);
        if (raw) {
          const kept = src[j + 1] === q || src[j + 1] === '\\' || src[j + 1] === '\n';
          value += kept ? ch + src[j + 1] : ch;
          j += kept ? 2 : 1;
          continue;
        }
        const [v, n] = escapeAt(src, j, true);
        value += v;
        j += n;
        continue;
      }
      if (fmt && (ch === '{' || ch === '}') && src[j + 1] === ch) {
        value += ch;
        j += 2;
        continue;
      }
      if (fmt && ch === '{') {
        value += '{}';
        this.i = j + 1;
        this.pyField();
        j = this.i;
        continue;
      }
      value += ch;
      j++;
    }
    tok.v = value;
    tok.endLine = this.line;
    this.i = j;
  }

  /** One replacement field of an f-string, from after its `{`: the expression as code in parentheses, then its conversion and format spec. */
  private pyField(): void {
    const { src } = this;
    this.push('op', '(', this.line, this.i - this.lineStart);
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
    this.push('op', ')', this.line, this.i - this.lineStart);
  }

  /** C-family tokens up to the end, or (inside a template literal's `${`) up to its `}`. */
  c(field: boolean): void {
    const { src, lang } = this;
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
        this.i++;
        continue;
      }
      if (c === '/' && src[i + 1] === '/') {
        // In JSX text `//` may be text before code; reading on as code is the side that hides nothing.
        if (this.jsx) {
          this.i += 2;
          continue;
        }
        this.i = lineEnd(src, i, C_LINE_END);
        continue;
      }
      if (c === '/' && src[i + 1] === '*') {
        const end = src.indexOf('*/', i + 2);
        const stop = end < 0 ? src.length : end + 2;
        this.newlines(i, stop);
        this.i = stop;
        continue;
      }
      const col = i - this.lineStart;
      if (lang === 'java' && src.startsWith('"""', i)) {
        const end = src.indexOf('"""', i + 3);
        const stop = end < 0 ? src.length : end + 3;
        const tok = this.push('str', src.slice(i + 3, stop - 3), this.line, col);
        this.newlines(i, stop);
        tok.endLine = this.line;
        this.i = stop;
        continue;
      }
      if (c === '"' || c === "'" || c === '`') {
        this.cString(c);
        continue;
      }
      const last = this.out[this.out.length - 1];
      if (
        c === '/' &&
        lang === 'js' &&
        (this.regexAfter.has(last) || regexAllowed(last, this.out[this.out.length - 2]))
      ) {
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
        this.push('rx', src.slice(i, j), this.line, col);
        this.i = j;
        continue;
      }
      if (this.word()) continue;
      if (c === '}' && field && depth === 0) return;
      const op = opAt(src, i, C_BY_FIRST);
      if (op === '{') depth++;
      else if (op === '}') depth--;
      const before = this.out[this.out.length - 1];
      const tok = this.push('op', op, this.line, col);
      if (op === '(')
        parens.push(
          before?.k === 'id' && /^(if|while|for|with)$/.test(before.v) && this.out[this.out.length - 3]?.v !== '.',
        );
      else if (op === ')' && parens.pop()) this.regexAfter.add(tok);
      else if (op === '{')
        braces.push(!(before && (before.k === 'op' || before.k === 'id') && OBJECT_AFTER.has(before.v)));
      else if (op === '}' && braces.pop()) this.regexAfter.add(tok);
      this.i += op.length;
    }
  }

  /** A quoted string from src[i] (the quote); a template literal's `${…}` parts are lexed as code, in parentheses, after its token. */
  private cString(q: string): void {
    const { src, lang } = this;
    const tok = this.push('str', '', this.line, this.i - this.lineStart);
    const raw = lang === 'go' && q === '`';
    const template = lang === 'js' && q === '`';
    const at = { i: this.i, line: this.line, lineStart: this.lineStart };
    let j = this.i + 1;
    let value = '';
    let closed = false;
    const plain = PLAIN[q];
    while (j < src.length) {
      const run = plainRun(plain, src, j);
      if (run > j) {
        value += src.slice(j, run);
        j = run;
        if (j >= src.length) break;
      }
      const ch = src[j];
      if (ch === q) {
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
          j += 3;
          continue;
        } // a line continuation
        if (src[j + 1] === '\n') this.newline(j + 1);
        const [v, n] = escapeAt(src, j);
        value += v;
        j += n;
        continue;
      }
      if (template && ch === '$' && src[j + 1] === '{') {
        value += '${}';
        this.push('op', '(', this.line, j - this.lineStart);
        this.i = j + 2;
        this.c(true);
        if (src[this.i] === '}') this.i++;
        this.push('op', ')', this.line, this.i - this.lineStart);
        j = this.i;
        continue;
      }
      value += ch;
      j++;
    }
    if (!closed && lang === 'js' && !template) {
      // No JavaScript string runs past its line: this quote is JSX text (`<p>Don't {code}</p>`), read on as code.
      Object.assign(tok, { k: 'op', v: q, endLine: at.line });
      Object.assign(this, { i: at.i + 1, line: at.line, lineStart: at.lineStart });
      return;
    }
    tok.v = value;
    tok.endLine = this.line;
    this.i = j;
  }

  /** The name or number at src[i], pushed; false when neither starts there. */
  private word(): boolean {
    const { src, lang } = this;
    const start = this.i;
    const col = start - this.lineStart;
    if (isDigit(src, start) || (src[start] === '.' && isDigit(src, start + 1))) {
      NUMBER.lastIndex = start + 1;
      NUMBER.exec(src);
      this.push('num', src.slice(start, NUMBER.lastIndex), this.line, col);
      this.i = NUMBER.lastIndex;
      return true;
    }
    const ascii = lang === 'python' ? PY_NAME : C_NAME;
    ascii.lastIndex = start;
    if (ascii.exec(src)) {
      const next = src.charCodeAt(ascii.lastIndex);
      if (!(next >= 0x80 || next === 92)) {
        this.push('id', src.slice(start, ascii.lastIndex), this.line, col);
        this.i = ascii.lastIndex;
        return true;
      }
    }
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
    let name = decoded ?? src.slice(start, j);
    // Python folds every name with NFKC: `os._ｅxit` is `os._exit`.
    if (lang === 'python' && /[^\x00-\x7f]/.test(name)) name = name.normalize('NFKC');
    this.push('id', name, this.line, col);
    this.i = j;
    return true;
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

/** Whether a `/` after these tokens starts a regular expression; `x.in / y` divides. */
function regexAllowed(prev: Token | undefined, before: Token | undefined): boolean {
  if (!prev) return true;
  if (prev.k === 'op')
    return !(prev.v === ')' || prev.v === ']' || prev.v === '}' || prev.v === '++' || prev.v === '--');
  return prev.k === 'id' && REGEX_AFTER.has(prev.v) && !(before?.k === 'op' && (before.v === '.' || before.v === '?.'));
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
    const c = src[i + n];
    if (c === '"' || c === "'") return src.slice(i, i + n);
    if (c === undefined || !'rRbBuUfFtT'.includes(c)) return null;
  }
  return null;
}
