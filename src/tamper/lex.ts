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
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\f' || c === '\v' || (c >= '\u0080' && SPACE.test(c));
const isIdStart = (c: string) => /[A-Za-z_$]/.test(c) || (c >= '\u0080' && !SPACE.test(c));
const isIdPart = (c: string) => /[\w$]/.test(c) || (c >= '\u0080' && !SPACE.test(c));
/** Where a `//` comment ends: JavaScript also ends it at `\r`, U+2028 and U+2029 (and Java's decoded `\u000a` is one of these). */
const C_LINE_END = /[\n\r\u2028\u2029]/;

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
      if (c === '\r' || isSpace(c)) {
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
        while (this.i < src.length && src[this.i] !== '\n' && src[this.i] !== '\r') this.i++;
        continue;
      }
      const pre = /^[rRbBuUfFtT]{0,2}(?=['"])/.exec(src.slice(i, i + 3));
      if (pre) {
        this.pyString(pre[0]);
        continue;
      }
      if (this.word()) continue;
      const op = PY_OPS.find((o) => src.startsWith(o, i)) ?? c;
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
    while (j < src.length) {
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
      if (c === '\r' || isSpace(c)) {
        this.i++;
        continue;
      }
      if (c === '/' && src[i + 1] === '/') {
        // In JSX text `//` may be text before code; reading on as code is the side that hides nothing.
        if (this.jsx) {
          this.i += 2;
          continue;
        }
        while (this.i < src.length && !C_LINE_END.test(src[this.i])) this.i++;
        continue;
      }
      if (c === '/' && src[i + 1] === '*') {
        const end = src.indexOf('*/', i + 2);
        const stop = end < 0 ? src.length : end + 2;
        for (let j = i; j < stop; j++) if (src[j] === '\n') this.newline(j);
        this.i = stop;
        continue;
      }
      const col = i - this.lineStart;
      if (lang === 'java' && src.startsWith('"""', i)) {
        const end = src.indexOf('"""', i + 3);
        const stop = end < 0 ? src.length : end + 3;
        const tok = this.push('str', src.slice(i + 3, stop - 3), this.line, col);
        for (let j = i; j < stop; j++) if (src[j] === '\n') this.newline(j);
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
      const op = C_OPS.find((o) => src.startsWith(o, i)) ?? c;
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
    while (j < src.length) {
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
    const c = src[start];
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[start + 1] ?? ''))) {
      let j = start + 1;
      while (j < src.length && /[\w.]/.test(src[j])) j++;
      this.push('num', src.slice(start, j), this.line, col);
      this.i = j;
      return true;
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
      if (!(j === start ? isIdStart(ch) : isIdPart(ch)) || (ch === '$' && lang === 'python')) break;
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
  const named = python ? /^\\N\{[^}\n]*\}/.exec(src.slice(j, j + 100)) : null; // \N{DASH}: its braces are no f-string field
  if (named) return ['?', named[0].length];
  const m = /^\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3}))/.exec(
    src.slice(j, j + 12),
  );
  if (m) {
    const hex = m[1] ?? m[2] ?? m[3] ?? m[4];
    const code = hex ? parseInt(hex, 16) : parseInt(m[5], 8);
    return [code <= 0x10ffff ? String.fromCodePoint(code) : '', m[0].length];
  }
  const c = src[j + 1];
  return [c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c, 2];
}
