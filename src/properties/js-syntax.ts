// Whether two versions of a JavaScript or TypeScript file parse to the same
// syntax tree, by @babel/parser (bundled with the judge, loaded at the first
// file that needs it). Positions, parentheses and raw spellings (the parser's
// `extra`) and comments are dropped; a comment that a tool acts on is kept on
// the node the parser attaches it to. Equal trees still differ when the file
// reads its own source at run time (`selfReader`): its comments are data.
import type { ParserPlugin } from '@babel/parser';
import type { SourcePair } from './python-syntax.js';

const EXTENSIONS: Record<string, { plugins: ParserPlugin[]; sourceType: 'module' | 'script' | 'unambiguous' }> = {
  js: { plugins: ['jsx'], sourceType: 'unambiguous' },
  jsx: { plugins: ['jsx'], sourceType: 'unambiguous' },
  mjs: { plugins: ['jsx'], sourceType: 'module' },
  cjs: { plugins: ['jsx'], sourceType: 'script' },
  ts: { plugins: ['typescript', 'decorators-legacy'], sourceType: 'unambiguous' },
  mts: { plugins: ['typescript', 'decorators-legacy'], sourceType: 'module' },
  cts: { plugins: ['typescript', 'decorators-legacy'], sourceType: 'script' },
  tsx: { plugins: ['typescript', 'jsx', 'decorators-legacy'], sourceType: 'unambiguous' },
};

/** The file's parser settings by its extension, or null when it is not JavaScript or TypeScript. */
export function scriptKind(file: string): string | null {
  const ext = /\.([^./]+)$/.exec(file)?.[1].toLowerCase();
  return ext && Object.hasOwn(EXTENSIONS, ext) ? ext : null;
}

/**
 * Comments bundlers, minifiers, compilers, type checkers and coverage tools
 * act on: pragmas (`@jsx`, `@ts-ignore`, `#__PURE__`, `#sourceMappingURL`,
 * `/*!` licences, `/// <reference>`), magic comments (`webpackIgnore`,
 * `@vite-ignore`) and coverage hints (`istanbul ignore`, `c8 ignore`).
 */
const DIRECTIVE =
  /^[\s*/]*[@#!<]|webpack[A-Z]|__(PURE|NO_SIDE_EFFECTS|INLINE|NOINLINE|KEY)__|\b(istanbul|c8|v8|node:coverage)\s+(ignore|disable|enable)|source(Mapping)?URL=/;
/** Comments only a linter or a formatter reads: what runs, is built or measured stays the same. */
const ASIDE =
  /^[\s*/]*(eslint\b|eslint-|prettier-ignore|biome-ignore|tslint:|jshint\b|deno-(lint|fmt)-ignore|dprint-ignore)/;

interface Comment {
  value: string;
}

const isDirective = (c: Comment) => DIRECTIVE.test(c.value) && !ASIDE.test(c.value);
/** A comment's words, without the stars of a doc block. */
const text = (c: Comment) => c.value.replace(/^[\s*]+/, '').trimEnd();

/** Keys that hold positions, raw spellings and comments, not syntax. */
const DROPPED = new Set([
  'start',
  'end',
  'loc',
  'range',
  'extra',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'comments',
  'tokens',
  'errors',
]);

/**
 * Whether two trees are the same, walked side by side: every key of every
 * node in the parser's order but DROPPED ones, every value. The directive
 * comments go into `marks`, each with the number of the node the parser
 * attached it to (the same node on both sides while the walk goes on).
 */
function sameTree(a: unknown, b: unknown, marks: [string[], string[]], count: { nodes: number }): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameTree(a[i], b[i], marks, count)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const node = count.nodes++;
  attached(x, node, marks[0]);
  attached(y, node, marks[1]);
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  for (let i = 0, j = 0; ; i++, j++) {
    while (i < kx.length && DROPPED.has(kx[i])) i++;
    while (j < ky.length && DROPPED.has(ky[j])) j++;
    if (i === kx.length || j === ky.length) return i === kx.length && j === ky.length;
    if (kx[i] !== ky[j] || !sameTree(x[kx[i]], y[ky[j]], marks, count)) return false;
  }
}

function attached(node: Record<string, unknown>, at: number, marks: string[]): void {
  for (const key of ['leadingComments', 'trailingComments', 'innerComments']) {
    for (const c of (node[key] as Comment[] | undefined) ?? [])
      if (isDirective(c)) marks.push(`${text(c)}\0${key} of node ${at}`);
  }
}

type Node = Record<string, unknown> & { type: string };

/** Every node of a tree, parents before children. */
function* nodes(n: unknown): Generator<Node> {
  if (Array.isArray(n)) for (const x of n) yield* nodes(x);
  else if (n && typeof n === 'object' && typeof (n as Node).type === 'string') {
    yield n as Node;
    for (const [k, v] of Object.entries(n)) if (!DROPPED.has(k) && v && typeof v === 'object') yield* nodes(v);
  }
}

const FUNCTIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression', 'ClassExpression']);
const FS_READS = new Set(['readFileSync', 'readFile', 'createReadStream', 'openSync', 'open']);
const nameOf = (n: unknown) => ((n as Node | null)?.type === 'Identifier' ? ((n as Node).name as string) : null);

/**
 * How the file reads its own source at run time, or null: a function or
 * class of its own turned into text (`toString()`, `String()`, a template, a
 * `+`), `Function.prototype.toString`, or a file read beside `__filename` or
 * `import.meta.url` (its own path). Its comments are then data.
 */
function selfReader(tree: unknown): string | null {
  const all = [...nodes(tree)];
  const own = new Set<string>();
  for (const n of all) {
    if ((n.type === 'FunctionDeclaration' || n.type === 'ClassDeclaration') && nameOf(n.id)) own.add(nameOf(n.id)!);
    if (n.type === 'VariableDeclarator' && FUNCTIONS.has((n.init as Node | null)?.type ?? '') && nameOf(n.id))
      own.add(nameOf(n.id)!);
  }
  const isOwn = (x: unknown) => FUNCTIONS.has((x as Node | null)?.type ?? '') || own.has(nameOf(x) ?? '');
  const member = (n: Node, name: string) =>
    n.type === 'MemberExpression' && (n.computed ? (n.property as Node).value === name : nameOf(n.property) === name);
  let path = false;
  let read = false;
  for (const n of all) {
    if (member(n, 'toString') && (isOwn(n.object) || member(n.object as Node, 'prototype')))
      return 'toString() of its own function';
    if (n.type === 'CallExpression' && nameOf(n.callee) === 'String' && isOwn((n.arguments as unknown[])[0]))
      return 'String() of its own function';
    if (n.type === 'TemplateLiteral' && (n.expressions as unknown[]).some(isOwn))
      return 'a template holding its own function';
    if (n.type === 'BinaryExpression' && n.operator === '+' && (isOwn(n.left) || isOwn(n.right)))
      return "'+' on its own function";
    if (nameOf(n) === '__filename' || (member(n, 'url') && (n.object as Node).type === 'MetaProperty')) path = true;
    if (member(n, 'filename') && (n.object as Node).type === 'MetaProperty') path = true;
    const callee = n.type === 'CallExpression' ? (n.callee as Node) : null;
    if (callee && FS_READS.has(nameOf(callee) ?? nameOf(callee.property) ?? '')) read = true;
  }
  return path && read ? 'a file read beside its own path (__filename, import.meta.url)' : null;
}

type Parse = typeof import('@babel/parser').parse;
let parser: Parse | null = null;

/** @babel/parser is CommonJS: the bundle hands it over as the default export. */
async function loadParser(): Promise<Parse> {
  const mod = await import('@babel/parser');
  return ((mod as unknown as { default?: typeof mod }).default ?? mod).parse;
}

function parsed(ext: string, bytes: Buffer, parse: Parse): ReturnType<Parse> {
  const source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  const { plugins, sourceType } = EXTENSIONS[ext];
  // CommonJS runs inside a function, so a return at the top level is valid there.
  return parse(source, {
    sourceType,
    plugins,
    allowReturnOutsideFunction: sourceType !== 'module',
    errorRecovery: false,
  });
}

/** The program of a JavaScript or TypeScript file, or null when it is neither or does not parse. */
export async function parseScript(file: string, bytes: Buffer): Promise<ReturnType<Parse>['program'] | null> {
  const ext = scriptKind(file);
  if (!ext) return null;
  parser ??= await loadParser();
  try {
    return parsed(ext, bytes, parser).program;
  } catch {
    return null;
  }
}

/** Null when both sides parse to the same tree, else why not. */
export async function compareScript(file: string, pair: SourcePair): Promise<string | null> {
  const ext = scriptKind(file);
  if (!ext) return 'not JavaScript or TypeScript';
  parser ??= await loadParser();
  let a: ReturnType<Parse>;
  let b: ReturnType<Parse>;
  try {
    a = parsed(ext, pair.old, parser);
  } catch (err) {
    return `the base side does not parse: ${(err as Error).message}`;
  }
  try {
    b = parsed(ext, pair.new, parser);
  } catch (err) {
    return `does not parse: ${(err as Error).message}`;
  }
  // Every directive in order, then each where it is attached (a pragma moved onto another call).
  const marks: [string[], string[]] = [
    (a.comments ?? []).filter(isDirective).map(text),
    (b.comments ?? []).filter(isDirective).map(text),
  ];
  if (!sameTree(a, b, marks, { nodes: 0 })) return 'the syntax tree differs';
  if (JSON.stringify(marks[0]) !== JSON.stringify(marks[1])) {
    const first = marks[0].find((m, i) => m !== marks[1][i]) ?? marks[1][marks[0].length];
    return `a comment tools act on is added, removed or moved: ${first.split('\0')[0]}`;
  }
  const reader = selfReader(b.program);
  if (reader) return `the file reads its own source at run time (${reader}), so its comments are data`;
  return null;
}
