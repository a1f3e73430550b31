// Tokens of a source file: names, strings, numbers and operators with their
// line, comments dropped. Enough of each language's lexical grammar that a
// call split over lines, a name inside a string or a comment, and a string
// that spells a name are told apart; the scanner works on these tokens.
import type { Lang } from './lang.js';

export type Kind = 'id' | 'str' | 'num' | 'op' | 'nl' | 'rx';

export interface Token {
  k: Kind;
  /** The name, operator, or a string's contents without quotes or prefix. */
  v: string;
  line: number;
  /** The last line the token covers (a string may span lines). */
  endLine: number;
  /** Column of the token's first character. */
  col: number;
}

const PY_OPS = ['**=', '//=', '>>=', '<<=', '...', '==', '!=', '<=', '>=', '->', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@=', '**', '//', '<<', '>>', ':='];
const C_OPS = ['>>>=', '===', '!==', '**=', '...', '>>>', '<<=', '>>=', '&&=', '||=', '??=', '?.', '??', '=>', '==', '!=', '<=', '>=', '&&', '||', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>', '::', '->', ':=', '<-'];
/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER = new Set(['return', 'typeof', 'case', 'in', 'of', 'new', 'delete', 'void', 'throw', 'else', 'do', 'yield', 'await', 'instanceof']);

const isIdStart = (c: string) => /[A-Za-z_$\u0080-\uffff]/.test(c);
const isIdPart = (c: string) => /[\w$\u0080-\uffff]/.test(c);

export function lex(src: string, lang: Lang): Token[] {
  return lang === 'python' ? lexPython(src) : lexC(src, lang);
}

function lexPython(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  const push = (k: Kind, v: string, startLine: number, col: number) => out.push({ k, v, line: startLine, endLine: line, col });
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') {
      if (depth === 0 && out.length && out[out.length - 1].k !== 'nl') push('nl', '', line, i - lineStart);
      i++; line++; lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') { i++; continue; }
    if (c === '\\' && src[i + 1] === '\n') { i += 2; line++; lineStart = i; continue; }
    if (c === '\\' && src[i + 1] === '\r' && src[i + 2] === '\n') { i += 3; line++; lineStart = i; continue; }
    if (c === '#') { while (i < src.length && src[i] !== '\n') i++; continue; }
    const col = i - lineStart;
    const startLine = line;
    const pre = /^[rRbBuUfF]{0,2}(?=['"])/.exec(src.slice(i, i + 3));
    if (pre) {
      const raw = /r/i.test(pre[0]);
      let j = i + pre[0].length;
      const q = src[j];
      const triple = src.startsWith(q.repeat(3), j);
      const close = triple ? q.repeat(3) : q;
      j += close.length;
      let value = '';
      while (j < src.length) {
        if (src.startsWith(close, j)) { j += close.length; break; }
        const ch = src[j];
        if (ch === '\n') {
          if (!triple) break; // unterminated: the line ends it
          line++; lineStart = j + 1;
        }
        if (ch === '\\' && j + 1 < src.length) {
          if (src[j + 1] === '\n') { line++; lineStart = j + 2; }
          if (raw) { value += ch + src[j + 1]; j += 2; continue; }
          const [v, n] = escapeAt(src, j);
          value += v;
          j += n;
          continue;
        }
        value += ch;
        j++;
      }
      push('str', value, startLine, col);
      i = j;
      continue;
    }
    const word = wordAt(src, i, false);
    if (word) {
      push(word.k, src.slice(i, word.end), startLine, col);
      i = word.end;
      continue;
    }
    const op = PY_OPS.find((o) => src.startsWith(o, i)) ?? c;
    if ('([{'.includes(op)) depth++;
    else if (')]}'.includes(op)) depth = Math.max(0, depth - 1);
    push('op', op, startLine, col);
    i += op.length;
  }
  if (out.length && out[out.length - 1].k !== 'nl') out.push({ k: 'nl', v: '', line, endLine: line, col: 0 });
  return out;
}

function lexC(src: string, lang: Lang): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const push = (k: Kind, v: string, startLine: number, col: number) => out.push({ k, v, line: startLine, endLine: line, col });
  /** Reads a quoted string from src[i] (the quote) and returns its value; template `${` parts stay in the text. */
  const readString = (q: string, rawNoEscape: boolean): string => {
    let j = i + 1;
    let value = '';
    let braces = 0;
    while (j < src.length) {
      const ch = src[j];
      if (ch === q && braces === 0) { j++; break; }
      if (ch === '\n') {
        if (q !== '`') break; // unterminated: the line ends it
        line++; lineStart = j + 1;
      }
      if (ch === '\\' && !rawNoEscape && j + 1 < src.length) {
        if (src[j + 1] === '\n') { line++; lineStart = j + 2; }
        const [v, n] = escapeAt(src, j);
        value += v;
        j += n;
        continue;
      }
      if (q === '`' && lang === 'js') {
        if (ch === '$' && src[j + 1] === '{') braces++;
        else if (ch === '}' && braces > 0) braces--;
      }
      value += ch;
      j++;
    }
    i = j;
    return value;
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') { i++; line++; lineStart = i; continue; }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      for (let j = i; j < stop; j++) if (src[j] === '\n') { line++; lineStart = j + 1; }
      i = stop;
      continue;
    }
    const col = i - lineStart;
    const startLine = line;
    if (lang === 'java' && src.startsWith('"""', i)) {
      const end = src.indexOf('"""', i + 3);
      const stop = end < 0 ? src.length : end + 3;
      const value = src.slice(i + 3, stop - 3);
      for (let j = i; j < stop; j++) if (src[j] === '\n') { line++; lineStart = j + 1; }
      i = stop;
      push('str', value, startLine, col);
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      push('str', readString(c, lang === 'go' && c === '`'), startLine, col);
      continue;
    }
    if (c === '/' && lang === 'js' && regexAllowed(out[out.length - 1])) {
      let j = i + 1;
      let cls = false;
      while (j < src.length && src[j] !== '\n') {
        if (src[j] === '\\') { j += 2; continue; }
        if (src[j] === '[') cls = true;
        else if (src[j] === ']') cls = false;
        else if (src[j] === '/' && !cls) break;
        j++;
      }
      j++;
      while (j < src.length && /[a-z]/.test(src[j])) j++;
      push('rx', src.slice(i, j), startLine, col);
      i = j;
      continue;
    }
    const word = wordAt(src, i, true);
    if (word) {
      push(word.k, src.slice(i, word.end), startLine, col);
      i = word.end;
      continue;
    }
    const op = C_OPS.find((o) => src.startsWith(o, i)) ?? c;
    push('op', op, startLine, col);
    i += op.length;
  }
  return out;
}

/** The name or number that starts at src[i] and where it ends; null when neither does. `$` is a name character where the language has it. */
function wordAt(src: string, i: number, dollar: boolean): { k: 'id' | 'num'; end: number } | null {
  const c = src[i];
  if (isIdStart(c) && (dollar || c !== '$')) {
    let j = i + 1;
    while (j < src.length && isIdPart(src[j]) && (dollar || src[j] !== '$')) j++;
    return { k: 'id', end: j };
  }
  if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
    let j = i + 1;
    while (j < src.length && /[\w.]/.test(src[j])) j++;
    return { k: 'num', end: j };
  }
  return null;
}

function regexAllowed(prev: Token | undefined): boolean {
  if (!prev) return true;
  if (prev.k === 'op') return !(prev.v === ')' || prev.v === ']' || prev.v === '}' || prev.v === '++' || prev.v === '--');
  return prev.k === 'id' && REGEX_AFTER.has(prev.v);
}

/** The character an escape at src[j] (the backslash) stands for, and its length: `'\\x5fexit'` spells `_exit`. */
function escapeAt(src: string, j: number): [string, number] {
  const m = /^\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3}))/.exec(src.slice(j, j + 12));
  if (m) {
    const hex = m[1] ?? m[2] ?? m[3] ?? m[4];
    const code = hex ? parseInt(hex, 16) : parseInt(m[5], 8);
    return [code <= 0x10ffff ? String.fromCodePoint(code) : '', m[0].length];
  }
  const c = src[j + 1];
  return [c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c, 2];
}
