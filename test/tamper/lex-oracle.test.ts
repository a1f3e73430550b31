// The lexer against @babel/parser on real code: for JavaScript files of the
// installed packages, the names and the strings the lexer reads are the ones
// babel's tokenizer reads. The rules match names and strings (and chains of
// names), so a string, comment or regular expression misread (code taken for
// text, or text for code) shows here as a name or string one side has and
// the other lacks. Strings with escapes are left out (the lexer decodes what
// spells a name, not every control character) and so are template literals
// (the lexer keeps `${}` in their text).
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from '@babel/parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lex } from '../../src/tamper/lex.js';
import { PROJECT } from '../helpers/repo.js';

/** Packages of the install with plain JavaScript of several styles (hand-written, transpiled, bundled). */
const PACKAGES = ['yaml', 'micromatch', 'ajv', 'uvu', 'fast-check', 'chai', 'mocha', 'fast-xml-parser'];
const FILES_PER_PACKAGE = 8;

function corpus(): string[] {
  const out: string[] = [];
  for (const pkg of PACKAGES) {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const p = path.join(dir, e.name);
        if (e.isDirectory() && e.name !== 'node_modules') walk(p);
        else if (/\.(c|m)?js$/.test(e.name) && statSync(p).size > 2000) files.push(p);
      }
    };
    if (existsSync(path.join(PROJECT, 'node_modules', pkg)))
      walk(realpathSync(path.join(PROJECT, 'node_modules', pkg)));
    out.push(...files.slice(0, FILES_PER_PACKAGE));
  }
  return out;
}

/** The names (keywords included: the lexer reads them as names) and escape-free strings babel reads. */
function babelWords(text: string): { names: Set<string>; strings: Set<string> } | null {
  let ast: ReturnType<typeof parse>;
  try {
    ast = parse(text, {
      sourceType: 'unambiguous',
      tokens: true,
      errorRecovery: false,
      allowReturnOutsideFunction: true,
    });
  } catch {
    return null;
  }
  const names = new Set<string>();
  const strings = new Set<string>();
  for (const t of (ast.tokens ?? []) as {
    type: { label: string; keyword?: string };
    value: unknown;
    start: number;
    end: number;
  }[]) {
    if (t.type.label === 'name' || t.type.label === 'privateName' || t.type.keyword)
      names.add(String(t.value ?? t.type.keyword));
    else if (t.type.label === 'string' && !text.slice(t.start, t.end).includes('\\')) strings.add(String(t.value));
  }
  return { names, strings };
}

function lexWords(text: string): { names: Set<string>; strings: Set<string> } {
  const names = new Set<string>();
  const strings = new Set<string>();
  const toks = lex(text, 'js');
  for (let i = 0; i < toks.length; i++) {
    if (toks.k(i) === 'id') names.add(toks.v(i)!);
    else if (toks.k(i) === 'str') strings.add(toks.v(i)!);
  }
  return { names, strings };
}

const diff = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).slice(0, 5);

test('the lexer reads the names and strings @babel/parser reads, on real packages', () => {
  const files = corpus();
  assert.ok(files.length >= 30, `only ${files.length} files found under node_modules`);
  let compared = 0;
  for (const file of files) {
    // A `#!` line is no JavaScript to either side (Node skips it before either would read it).
    const text = readFileSync(file, 'utf8').replace(/^#!.*/, '');
    const theirs = babelWords(text);
    if (!theirs) continue;
    compared++;
    const ours = lexWords(text);
    const where = path.relative(PROJECT, file);
    assert.equal(diff(theirs.names, ours.names), [], `${where}: names babel reads and the lexer does not`);
    assert.equal(diff(ours.names, theirs.names), [], `${where}: names the lexer reads and babel does not`);
    assert.equal(diff(theirs.strings, ours.strings), [], `${where}: strings babel reads and the lexer does not`);
  }
  assert.ok(compared >= 30, `babel parsed only ${compared} of ${files.length} files`);
});

test.run();
