// The lexer's token stream on tricky snippets, against a listing checked in
// here: each token's kind, line, column (and last line where it spans
// several) and value. A regular expression told from a division, template
// literals and f-strings nested in each other, Python's triple quotes and
// string prefixes, escapes in names and strings, NFKC names, JSX text,
// Unicode line separators and unterminated literals each meet a fast path
// of the lexer (character classes, a string body read in one loop, lines
// found from a table of line starts) beside its slow one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hitsIn } from '../../src/tamper/hits.js';
import type { Lang } from '../../src/tamper/lang.js';
import { lex } from '../../src/tamper/lex.js';

/** One line per token: kind, line:column (-last line), value. */
function listing(src: string, lang: Lang, jsx: boolean): string[] {
  const t = lex(src, lang, jsx);
  const out: string[] = [];
  for (let i = 0; i < t.length; i++) {
    const at = `${t.line(i)}:${t.col(i)}${t.endLine(i) === t.line(i) ? '' : `-${t.endLine(i)}`}`;
    out.push(`${t.k(i)} ${at} ${JSON.stringify(t.v(i))}`);
  }
  return out;
}

/** [what, language, JSX, source, tokens] */
const CASES: [string, Lang, boolean, string, string[]][] = [
  [
    'regular expression or division',
    'js',
    false,
    'a = b / c / 2;\nif (x) /re[/]x/g.test(y);\nn = o.in / 2; return /\\//;\nwhile (a) {}\n/after-block/.exec(z)',
    [
      'id 1:0 "a"',
      'op 1:2 "="',
      'id 1:4 "b"',
      'op 1:6 "/"',
      'id 1:8 "c"',
      'op 1:10 "/"',
      'num 1:12 "2"',
      'op 1:13 ";"',
      'id 2:0 "if"',
      'op 2:3 "("',
      'id 2:4 "x"',
      'op 2:5 ")"',
      'rx 2:7 "/re[/]x/g"',
      'op 2:16 "."',
      'id 2:17 "test"',
      'op 2:21 "("',
      'id 2:22 "y"',
      'op 2:23 ")"',
      'op 2:24 ";"',
      'id 3:0 "n"',
      'op 3:2 "="',
      'id 3:4 "o"',
      'op 3:5 "."',
      'id 3:6 "in"',
      'op 3:9 "/"',
      'num 3:11 "2"',
      'op 3:12 ";"',
      'id 3:14 "return"',
      'rx 3:21 "/\\\\//"',
      'op 3:25 ";"',
      'id 4:0 "while"',
      'op 4:6 "("',
      'id 4:7 "a"',
      'op 4:8 ")"',
      'op 4:10 "{"',
      'op 4:11 "}"',
      'rx 5:0 "/after-block/"',
      'op 5:13 "."',
      'id 5:14 "exec"',
      'op 5:18 "("',
      'id 5:19 "z"',
      'op 5:20 ")"',
    ],
  ],
  [
    'template literals with nested interpolations',
    'js',
    false,
    'let s = `a${ `b${c + `d`}` }e\n${f}`;\nlet t = `\\${no}` + `x\\u0041`;',
    [
      'id 1:0 "let"',
      'id 1:4 "s"',
      'op 1:6 "="',
      'str 1:8-2 "a${}e\\n${}"',
      'op 1:10 "("',
      'str 1:13 "b${}"',
      'op 1:15 "("',
      'id 1:17 "c"',
      'op 1:19 "+"',
      'str 1:21 "d"',
      'op 1:25 ")"',
      'op 1:28 ")"',
      'op 2:0 "("',
      'id 2:2 "f"',
      'op 2:4 ")"',
      'op 2:5 ";"',
      'id 3:0 "let"',
      'id 3:4 "t"',
      'op 3:6 "="',
      'str 3:8 "${no}"',
      'op 3:17 "+"',
      'str 3:19 "xA"',
      'op 3:28 ";"',
    ],
  ],
  [
    'an object literal and a block before a slash',
    'js',
    false,
    'x = {a: 1} / 2;\n{ }\n/b/.test(q)',
    [
      'id 1:0 "x"',
      'op 1:2 "="',
      'op 1:4 "{"',
      'id 1:5 "a"',
      'op 1:6 ":"',
      'num 1:8 "1"',
      'op 1:9 "}"',
      'op 1:11 "/"',
      'num 1:13 "2"',
      'op 1:14 ";"',
      'op 2:0 "{"',
      'op 2:2 "}"',
      'rx 3:0 "/b/"',
      'op 3:3 "."',
      'id 3:4 "test"',
      'op 3:8 "("',
      'id 3:9 "q"',
      'op 3:10 ")"',
    ],
  ],
  [
    'escapes in names',
    'js',
    false,
    'glob\\u0061lThis.\\u{65}val(s);\nvar \\u0070rocess = 1;\nx.ex\\u0069t(0)',
    [
      'id 1:0 "globalThis"',
      'op 1:15 "."',
      'id 1:16 "eval"',
      'op 1:25 "("',
      'id 1:26 "s"',
      'op 1:27 ")"',
      'op 1:28 ";"',
      'id 2:0 "var"',
      'id 2:4 "process"',
      'op 2:17 "="',
      'num 2:19 "1"',
      'op 2:20 ";"',
      'id 3:0 "x"',
      'op 3:1 "."',
      'id 3:2 "exit"',
      'op 3:11 "("',
      'num 3:12 "0"',
      'op 3:13 ")"',
    ],
  ],
  [
    'names with digits and dollars, and odd spaces',
    'js',
    false,
    'v9_$ = $0\u000b+ x﻿;\n　y\fz',
    [
      'id 1:0 "v9_$"',
      'op 1:5 "="',
      'id 1:7 "$0"',
      'op 1:10 "+"',
      'id 1:12 "x"',
      'op 1:14 ";"',
      'id 2:1 "y"',
      'id 2:3 "z"',
    ],
  ],
  [
    'comments and line separators',
    'js',
    false,
    'a // c b\n/* x\ny */ c; // d\re\n`l1\nl2`',
    ['id 1:0 "a"', 'id 1:7 "b"', 'id 3:5 "c"', 'op 3:6 ";"', 'id 3:13 "e"', 'str 4:0-5 "l1\\nl2"'],
  ],
  [
    'strings with escapes and continuations',
    'js',
    false,
    "'\\x5fexit' + \"a\\\r\nb\" + 'c\\\nd' + '\\101\\u{1F600}\\z'",
    [
      'str 1:0 "_exit"',
      'op 1:11 "+"',
      'str 1:13-2 "ab"',
      'op 2:3 "+"',
      'str 2:5-3 "c\\nd"',
      'op 3:3 "+"',
      'str 3:5 "A😀z"',
    ],
  ],
  [
    'JSX text',
    'js',
    true,
    "const p = <p>Don't see http://x {process.exit(0)}</p>;\nlet q = 1;",
    [
      'id 1:0 "const"',
      'id 1:6 "p"',
      'op 1:8 "="',
      'op 1:10 "<"',
      'id 1:11 "p"',
      'op 1:12 ">"',
      'id 1:13 "Don"',
      'op 1:16 "\'"',
      'id 1:17 "t"',
      'id 1:19 "see"',
      'id 1:23 "http"',
      'op 1:27 ":"',
      'id 1:30 "x"',
      'op 1:32 "{"',
      'id 1:33 "process"',
      'op 1:40 "."',
      'id 1:41 "exit"',
      'op 1:45 "("',
      'num 1:46 "0"',
      'op 1:47 ")"',
      'op 1:48 "}"',
      'op 1:49 "<"',
      'rx 1:50 "/p>;"',
      'id 2:0 "let"',
      'id 2:4 "q"',
      'op 2:6 "="',
      'num 2:8 "1"',
      'op 2:9 ";"',
    ],
  ],
  [
    'JSX closing tags in a plain .js file',
    'js',
    false,
    'h = <div>Files:</div>;\nprocess.exit(0);\n',
    [
      'id 1:0 "h"',
      'op 1:2 "="',
      'op 1:4 "<"',
      'id 1:5 "div"',
      'op 1:8 ">"',
      'id 1:9 "Files"',
      'op 1:14 ":"',
      'op 1:15 "<"',
      'rx 1:16 "/div>;"',
      'id 2:0 "process"',
      'op 2:7 "."',
      'id 2:8 "exit"',
      'op 2:12 "("',
      'num 2:13 "0"',
      'op 2:14 ")"',
      'op 2:15 ";"',
    ],
  ],
  [
    'unterminated regular expressions',
    'js',
    false,
    'x = a < /b\\\nprocess.exit(0);\ny = [/c',
    [
      'id 1:0 "x"',
      'op 1:2 "="',
      'id 1:4 "a"',
      'op 1:6 "<"',
      'rx 1:8 "/b\\\\"',
      'id 2:0 "process"',
      'op 2:7 "."',
      'id 2:8 "exit"',
      'op 2:12 "("',
      'num 2:13 "0"',
      'op 2:14 ")"',
      'op 2:15 ";"',
      'id 3:0 "y"',
      'op 3:2 "="',
      'op 3:4 "["',
      'rx 3:5 "/c"',
    ],
  ],
  [
    'an unterminated string in JavaScript',
    'js',
    false,
    "a = \"open\nb = 'c';",
    [
      'id 1:0 "a"',
      'op 1:2 "="',
      'op 1:4 "\\""',
      'id 1:5 "open"',
      'id 2:0 "b"',
      'op 2:2 "="',
      'str 2:4 "c"',
      'op 2:7 ";"',
    ],
  ],
  [
    'Python string prefixes and triple quotes',
    'python',
    false,
    "a = rb'\\d' + Rb\"x\" + u'\\x5fexit'\nb = '''one\n'two'\n''' + \"\"\"\"q\"\"\"\nc = 'a''' 'b'\n",
    [
      'id 1:0 "a"',
      'op 1:2 "="',
      'str 1:4 "\\\\d"',
      'op 1:11 "+"',
      'str 1:13 "x"',
      'op 1:19 "+"',
      'str 1:21 "_exit"',
      'nl 1:32 ""',
      'id 2:0 "b"',
      'op 2:2 "="',
      'str 2:4-4 "one\\n\'two\'\\n"',
      'op 4:4 "+"',
      'str 4:6 "\\"q"',
      'nl 4:14 ""',
      'id 5:0 "c"',
      'op 5:2 "="',
      'str 5:4 "a"',
      'str 5:7 ""',
      'str 5:10 "b"',
      'nl 5:13 ""',
    ],
  ],
  [
    'nested f-strings',
    'python',
    false,
    "f\"{x!r:>{width}} {f'{y}'} {{lit}} {a=}\"\nt = F'''{\n  z\n}'''\n",
    [
      'str 1:0 "{} {} {lit} {}"',
      'op 1:3 "("',
      'id 1:3 "x"',
      'op 1:9 "("',
      'id 1:9 "width"',
      'op 1:15 ")"',
      'op 1:16 ")"',
      'op 1:18 "("',
      'str 1:18 "{}"',
      'op 1:21 "("',
      'id 1:21 "y"',
      'op 1:23 ")"',
      'op 1:25 ")"',
      'op 1:35 "("',
      'id 1:35 "a"',
      'op 1:38 ")"',
      'nl 1:39 ""',
      'id 2:0 "t"',
      'op 2:2 "="',
      'str 2:4-4 "{}"',
      'op 2:9 "("',
      'id 3:2 "z"',
      'op 4:1 ")"',
      'nl 4:4 ""',
    ],
  ],
  [
    'Python escapes and raw strings',
    'python',
    false,
    "s = '\\N{EM DASH}' + r'\\'' + b'\\101\\\n' + '\\u0041'\nr = r\"a\\\"b\"\n",
    [
      'id 1:0 "s"',
      'op 1:2 "="',
      'str 1:4 "?"',
      'op 1:18 "+"',
      'str 1:20 "\\\\\'"',
      'op 1:26 "+"',
      'str 1:28-2 "A\\n"',
      'op 2:2 "+"',
      'str 2:4 "A"',
      'nl 2:12 ""',
      'id 3:0 "r"',
      'op 3:2 "="',
      'str 3:4 "a\\\\\\"b"',
      'nl 3:11 ""',
    ],
  ],
  [
    'NFKC names and a lone carriage return',
    'python',
    false,
    'import os\nos._ｅxit(0)\rx = 1\nÅngström = 2',
    [
      'id 1:0 "import"',
      'id 1:7 "os"',
      'nl 1:9 ""',
      'id 2:0 "os"',
      'op 2:2 "."',
      'id 2:3 "_exit"',
      'op 2:8 "("',
      'num 2:9 "0"',
      'op 2:10 ")"',
      'nl 2:11 ""',
      'id 2:12 "x"',
      'op 2:14 "="',
      'num 2:16 "1"',
      'nl 2:17 ""',
      'id 3:0 "Ångström"',
      'op 3:9 "="',
      'num 3:11 "2"',
      'nl 3:12 ""',
    ],
  ],
  [
    'Python line continuations and brackets',
    'python',
    false,
    'x = (1,\n     2) \\\n  + 3\ny = [a\n for a in b]  # c\n',
    [
      'id 1:0 "x"',
      'op 1:2 "="',
      'op 1:4 "("',
      'num 1:5 "1"',
      'op 1:6 ","',
      'num 2:5 "2"',
      'op 2:6 ")"',
      'op 3:2 "+"',
      'num 3:4 "3"',
      'nl 3:5 ""',
      'id 4:0 "y"',
      'op 4:2 "="',
      'op 4:4 "["',
      'id 4:5 "a"',
      'id 5:1 "for"',
      'id 5:5 "a"',
      'id 5:7 "in"',
      'id 5:10 "b"',
      'op 5:11 "]"',
      'nl 5:17 ""',
    ],
  ],
  [
    'a dollar in Python, and digits in names',
    'python',
    false,
    'a$b = x9\u000b+ 9',
    ['id 1:0 "a"', 'op 1:1 "$"', 'id 1:2 "b"', 'op 1:4 "="', 'id 1:6 "x9"', 'op 1:9 "+"', 'num 1:11 "9"', 'nl 1:12 ""'],
  ],
  [
    'an unterminated Python string',
    'python',
    false,
    "a = 'open\nb = 2",
    ['id 1:0 "a"', 'op 1:2 "="', 'str 1:4 "open"', 'nl 1:9 ""', 'id 2:0 "b"', 'op 2:2 "="', 'num 2:4 "2"', 'nl 2:5 ""'],
  ],
  [
    'Go raw strings and runes',
    'go',
    false,
    'x := `raw \\n\nline` + "q\\"" + \'r\'\ny := a / b',
    [
      'id 1:0 "x"',
      'op 1:2 ":="',
      'str 1:5-2 "raw \\\\n\\nline"',
      'op 2:6 "+"',
      'str 2:8 "q\\""',
      'op 2:14 "+"',
      'str 2:16 "r"',
      'id 3:0 "y"',
      'op 3:2 ":="',
      'id 3:5 "a"',
      'op 3:7 "/"',
      'id 3:9 "b"',
    ],
  ],
  [
    'Java text blocks and unicode escapes',
    'java',
    false,
    'String s = """\n  block "q"\n  """;\nint \\u0061 = 1; // c\\u000a b = 2;\nc = 3;',
    [
      'id 1:0 "String"',
      'id 1:7 "s"',
      'op 1:9 "="',
      'str 1:11-3 "\\n  block \\"q\\"\\n  "',
      'op 3:5 ";"',
      'id 4:0 "int"',
      'id 4:4 "a"',
      'op 4:6 "="',
      'num 4:8 "1"',
      'op 4:9 ";"',
      'id 4:17 "b"',
      'op 4:19 "="',
      'num 4:21 "2"',
      'op 4:22 ";"',
      'id 5:0 "c"',
      'op 5:2 "="',
      'num 5:4 "3"',
      'op 5:5 ";"',
    ],
  ],
];

for (const [what, lang, jsx, src, tokens] of CASES)
  test(`tokens: ${what}`, () => {
    assert.equal(listing(src, lang, jsx), tokens);
  });

test('an operator is the longest one that starts at its first character', () => {
  const ops = (src: string, lang: Lang) => {
    const t = lex(src, lang);
    const out: string[] = [];
    for (let i = 0; i < t.length; i++) if (t.k(i) === 'op') out.push(t.v(i)!);
    return out.join(' ');
  };
  assert.is(ops('x>>>==y?.z??=w<-v+++u-->t...s!==r::q', 'js'), '>>>= = ?. ??= <- ++ + -- > ... !== ::');
  assert.is(
    ops('a>>>b>>=c>>d>=e>f<<=g<<h<=i<j&&=k&&l&=m&n||=o||p|=q|r', 'js'),
    '>>> >>= >> >= > <<= << <= < &&= && &= & ||= || |= |',
  );
  assert.is(
    ops('a**=b**c*=d*e==f=>g=h!=i!j+=k-=l->m%=n^=o:=p:q', 'go'),
    '**= ** *= * == => = != ! += -= -> %= ^= := :',
  );
  assert.is(ops('x**=y//=z->w:=v<<=u>>=t...s!=r@=q', 'python'), '**= //= -> := <<= >>= ... != @=');
  assert.is(ops('a**b*c//d/e>>f>g<<h<i..j.k-=l-m', 'python'), '** * // / >> > << < . . . -= -');
});

test('a name, number, operator or regular expression is found in the source at its line and column', () => {
  for (const [what, lang, jsx, src] of CASES) {
    // Java's source is read after its \u escapes are decoded.
    if (lang === 'java') continue;
    const starts = [0];
    for (let j = src.indexOf('\n'); j >= 0; j = src.indexOf('\n', j + 1)) starts.push(j + 1);
    const t = lex(src, lang, jsx);
    for (let i = 0; i < t.length; i++) {
      const v = t.v(i)!;
      const at = starts[t.line(i) - 1] + t.col(i);
      // A string starts at its quote or prefix; a name spelled with escapes and a parenthesis around an
      // interpolation are no source text (the listings above place them).
      if (t.k(i) === 'str' || t.k(i) === 'nl' || !src.includes(v) || (/^[()]$/.test(v) && src[at] !== v)) continue;
      assert.equal(src.slice(at, at + v.length), v, `${what}: token ${i} at ${t.line(i)}:${t.col(i)}`);
    }
  }
});

test('the tokens holding a needle: those whose text holds it, and those whose value is held apart', () => {
  const src = 'a = exit_code + \'\\x5fexit\' + "exit" + ex\\u0069t; // exit\nexits()';
  const t = lex(src, 'js');
  const held = t.holding(/exit/).map((i) => `${t.k(i)} ${t.v(i)}`);
  assert.equal(held, ['id exit_code', 'str _exit', 'str exit', 'id exit', 'id exits']);
  assert.equal(
    t.holding(/nothing/).map((i) => t.v(i)),
    ['_exit', 'exit'],
  );
  // A plain word is found by indexOf: the same tokens as a pattern finds, repeats and a match in a comment included.
  const words = 'x = "aaaa" + aaa + aa_aa; // aa\ny = `${aa}aa` + a.aa + "a"';
  const w = lex(words, 'js');
  for (const word of ['aa', 'a', 'aaa'])
    assert.equal(w.holding(new RegExp(word)), w.holding(new RegExp(`(?:${word})`)), word);
  assert.equal(
    w.holding(/aa/).map((i) => w.v(i)),
    ['aaaa', 'aaa', 'aa_aa', '${}aa', 'aa', 'aa'],
  );
});

test('a long string (a blob of data) has the value a short one of the same text has, read when first asked for', () => {
  // A short string's value is built as it is lexed; a long one's when it is read: by JSON's reader where every
  // escape reads the same there, else by walking its body again.
  const bodies: [Lang, string, string][] = [
    ['js', '"', 'chunk\\n \\"q\\" \\\\ \\/ \\u0041 '],
    ['js', "'", 'a \\b\\f \\x41\\101 \\u{1F600} "q" \\\'t\\\' \\\r\n '],
    ['js', '"', 'tab\there \\n '],
    ['js', '"', 'b\\b \\n '],
    ['js', '`', 'a ${x + "\\x41"} b\\n '],
    ['python', "f'", 'v {x!r:>{w}} {{lit}} \\N{DASH} \\n '],
    ['python', "r'", "raw \\d \\' \\\r\n "],
    ['python', '"""', 'doc\n \\t "q" \\u0041 '],
  ];
  for (const [lang, open, body] of bodies) {
    const close = open.replace(/^[a-z]+/, '');
    const value = (n: number) => {
      const t = lex(`s = ${open}${body.repeat(n)}${close}; after\n`, lang);
      const last = lang === 'python' ? t.length - 2 : t.length - 1;
      assert.is(t.v(last), 'after', `${open}${body}: the token after the string`);
      return t.v([...Array(t.length).keys()].find((k) => t.k(k) === 'str')!)!;
    };
    const one = value(1);
    assert.ok(body.length < 256 / 4, 'a short body');
    assert.is(value(40), one.repeat(40), `${open}${body}`);
  }
});

test('a search for a word reads a string whose escapes decode to no word character by its source text', () => {
  const src = `a = "${'x\\n'.repeat(200)}"; b = "pyt\\x65st"; c = "py\\ntest\\n"; d = "\\npytest"; e = "pyt\\\r\nest";`;
  const t = lex(src, 'js');
  const [a, b, c, d, e] = [...Array(t.length).keys()].filter((i) => t.k(i) === 'str');
  assert.is(t.v(d), '\npytest');
  // `\x65` and a line continuation may spell the word: their strings are always read; `\n` decodes to a line break.
  assert.equal(t.holding(/pytest/), [b, d, e]);
  assert.equal(t.holding(/PYTEST|xx/i), [b, d, e]);
  // A needle that may match other characters reads every string held apart, as before.
  assert.equal(t.holding(/py\stest/), [a, b, c, d, e]);
  assert.ok(/\n/.test(t.v(a)!) && t.v(a)!.length === 400);
});

test('in a long string, an escape after a long run of quiet ones is still noted', () => {
  // Past its start a blob's quiet escapes are skipped in runs: what ends a run (a `\x65`, a `\'`, the quote) is read.
  const blob = 'x\\n\\"\\\\\\/'.repeat(100);
  const src = `a = "${blob}pyt\\x65st"; b = '${blob}\\'pytest\\''; c = "${blob}"; after\n`;
  const t = lex(src, 'js');
  const [a, b, c] = [...Array(t.length).keys()].filter((i) => t.k(i) === 'str');
  const quiet = 'x\n"\\/'.repeat(100);
  assert.is(t.v(a), `${quiet}pytest`);
  assert.is(t.v(b), `${quiet}'pytest'`);
  assert.is(t.v(c), quiet);
  assert.is(t.v(t.length - 1), 'after');
  assert.equal(t.holding(/pytest/), [a, b]);
});

test('a token of 255 characters or more (its end kept apart from the lengths) reads whole', () => {
  for (const n of [254, 255, 256, 70000]) {
    const name = `n${'x'.repeat(n - 1)}`;
    const src = `${name} = "${'y'.repeat(n)}"; ${name}.exit\n`;
    const t = lex(src, 'js');
    assert.is(t.v(0), name, `${n}: the name`);
    assert.ok(t.is(0, name) && !t.is(0, `${name}x`), `${n}: is`);
    assert.is(t.v(2), 'y'.repeat(n), `${n}: the string`);
    assert.is(t.col(4), n + n + 7, `${n}: the column after them`);
    assert.equal(t.holding(/exit/), [6], `${n}: a search`);
  }
});

test('an exit added after JSX closing tags in a .js file is reported on its own line', () => {
  const src = 'export const A = () => <div>Files:</div>;\nconst x = 1;\nprocess.exit(0);\n';
  const hits = hitsIn('src/a.js', src, 'js', new Set([3]), new Set()).map((h) => `${h.line} ${h.rule}`);
  assert.equal(hits, ['3 exit.process']);
  const next = 'h = <p>x</p>;\nprocess.exit(0);\n';
  assert.equal(
    hitsIn('src/b.js', next, 'js', new Set([2]), new Set()).map((h) => `${h.line} ${h.rule}`),
    ['2 exit.process'],
  );
});

test.run();
