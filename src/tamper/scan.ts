// Reads one source file as the rules need it: its tokens, its statements, the
// names its imports and assignments bind, and every reference chain
// (`os._exit(0)`, `getattr(os, "_exit")`, `process["exit"]`) resolved through
// those bindings to the thing it names. Rules match what a chain resolves to,
// so an alias, a string-spelled attribute, a destructured binding or a call
// split over lines counts as the plain spelling.
import { countAtMost, lex, SHAPE_KEYS, shapeKeyOf, type Tokens } from './lex.js';
import type { Lang } from './lang.js';

export interface Ref {
  /** What the chain names after bindings are followed, e.g. `os._exit()` (calls as `()`). */
  path: string;
  /** The same before a global object prefix (`globalThis.`, `window.`) is dropped. */
  raw: string;
  /** Token range [start, end). */
  start: number;
  end: number;
  /**
   * The token after the `(` of the chain's first call, -1 when it makes none;
   * its arguments run to the `)` that closes it (firstArgs in rules.ts). The
   * rules read no other call's, so a reference keeps no list of them.
   */
  args: number;
  /** The chain is written to (`=`, or setattr / Object.defineProperty and friends). */
  assigned: boolean;
  /**
   * When the head name holds a value computed elsewhere (`frame = inspect.currentframe()`),
   * what that value resolves to: a rule counts here only for what this chain adds to it.
   */
  held: string;
}

export interface Import {
  module: string;
  at: number;
}

/** A token range [start, end) a rule points at. */
export type Span = [number, number];

export interface Source {
  lang: Lang;
  path: string;
  toks: Tokens;
  /** Token range of each statement, and the statement of a token. */
  stmts: Statements;
  refs: Ref[];
  imports: Import[];
  /** A string token's value, or the string a name is bound to. */
  stringAt(i: number): string | null;
  /** The strings a token stands for: its own value, or the strings in what a name was last assigned. */
  textsAt(i: number): readonly string[];
  /** Index of the bracket closing the one at i. */
  close(i: number): number;
}

/**
 * A name's last simple assignment: the chain it names or the string it
 * holds; `rhs`, the token its value starts at (the strings of that
 * statement are what the name stands for: `texts`, read when first asked);
 * `head`, what Skim makes of it, also when first asked.
 */
// `str`: the token of the string a name is bound to, whose value (a long one decoded only when read) is read when asked for.
type Binding = ({ parts: string[]; rhs?: number; texts?: string[] } | { str: number }) & { head?: Head };

/** Objects whose members are globals: `globalThis.process` is `process`. */
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self']);
/** Calls that read a member by a name given as a string. */
const GETTERS = new Set(['getattr()', 'Reflect.get()']);
/** Calls that write a member by a name given as a string (target, name, ...). */
const SETTERS = new Set([
  'setattr()',
  'object.__setattr__()',
  'type.__setattr__()',
  'Reflect.set()',
  'Object.defineProperty()',
  'Reflect.defineProperty()',
  'Object.defineProperties()',
  'Object.assign()',
  'Object.setPrototypeOf()',
]);
/** Calls whose result reaches the members of their argument: `vars(os)["_exit"]`, `Object.getPrototypeOf(process).exit`. */
const THROUGH = new Set(['vars()', 'Object.getPrototypeOf()', 'Reflect.getPrototypeOf()']);
/** Calls that load a module by name. */
const LOADERS: Record<Lang, Set<string>> = {
  python: new Set(['__import__()', 'builtins.__import__()', 'importlib.import_module()', 'importlib.__import__()']),
  js: new Set(['require()', 'import()', 'module.require()']),
  go: new Set(),
  java: new Set(['Class.forName()']),
};

/** Each call above by its last name (`get` of `Reflect.get()`): its names, and the call as the sets spell it. */
const SPECIAL_BY_LAST = new Map<string, { names: string[]; call: string }[]>();
for (const set of [GETTERS, SETTERS, THROUGH, ...Object.values(LOADERS)])
  for (const call of set) {
    const names = call.slice(0, -2).split('.');
    const last = names[names.length - 1];
    SPECIAL_BY_LAST.set(last, [...(SPECIAL_BY_LAST.get(last) ?? []), { names, call }]);
  }
const SPECIAL_LAST: ReadonlySet<string> = new Set(SPECIAL_BY_LAST.keys());

/** The special call a chain of these parts makes when called (`Reflect.get()`), else '': compared part by part, nothing joined. */
function specialCall(parts: readonly string[]): string {
  const list = SPECIAL_BY_LAST.get(parts[parts.length - 1]);
  if (list)
    for (const { names, call } of list)
      if (names.length === parts.length && names.every((n, k) => n === parts[k])) return call;
  return '';
}

/** What a name that is bound nowhere resolves to as a chain's head: nothing (shared, never written). */
const NO_PARTS: string[] = [];

/** The first name of a path (`os` of `os._exit()`): a pattern matches only paths with its own head. */
export function headOf(path: string): string {
  let k = 0;
  while (k < path.length && path[k] !== '.' && path[k] !== '(' && path[k] !== '[') k++;
  return k === path.length ? path : path.slice(0, k);
}

export function joinPath(parts: string[]): string {
  let out = parts[0] ?? '';
  for (let k = 1; k < parts.length; k++) out += parts[k] === '()' || parts[k] === '[]' ? parts[k] : '.' + parts[k];
  return out;
}

/**
 * What the rules can read, so that the scan gives a path to no other chain:
 * a chain whose first name (after bindings) is one of `heads`, one with a
 * part in `respelled` (its path reads under another name), a write whose
 * last name is one of `written`, or a call whose last name is one of
 * `callees` (a name that is no plain word counts as any of these).
 */
export interface Interest {
  heads: ReadonlySet<string>;
  respelled: ReadonlySet<string>;
  written: ReadonlySet<string>;
  callees: ReadonlySet<string>;
}

/**
 * `reads`: whether a rule can read a reference; the file keeps only those
 * (without it, every one). `interest`: what `reads` can keep, told before a
 * chain is built: a chain that cannot be one gets no parts and no path
 * (most chains of a large file). Without it every chain is built.
 */
export function readSource(
  text: string,
  lang: Lang,
  path: string,
  reads?: (r: Ref) => boolean,
  interest?: Interest,
): Source {
  const toks = lex(text, lang, /\.[jt]sx$/i.test(path));
  const shape = structure(toks, lang);
  const { pairs, stmts } = shape;
  const bindings = new Map<string, Binding>();
  const src: Source = {
    lang,
    path,
    toks,
    stmts,
    refs: [],
    imports: [],
    close: (i) => pairs.closing(i) ?? toks.length - 1,
    stringAt: (i) => stringOf(toks, bindings, i),
    textsAt: (i) => textsOf(src, bindings, i),
  };
  // Names hold only ASCII word characters unless the file holds other characters or a `\u` escape.
  const plain = !/[^\x00-\x7f]/.test(text) && !text.includes('\\u');
  const chains = new Chains(src, bindings);
  const skim = interest && new Skim(src, chains, interest, plain);
  const stars: string[] = [];
  collectBindings(src, shape, bindings, src.imports, stars, (i) => chains.at(i));
  collectRefs(src, chains, stars, skim, (r) => {
    if (!reads || reads(r)) src.refs.push(r);
  });
  return src;
}

/** A string token's value, or the string a name is bound to. */
function stringOf(toks: Tokens, bindings: Map<string, Binding>, i: number): string | null {
  const k = toks.k(i);
  if (k === 'str') return toks.v(i)!;
  if (k !== 'id' || !bindings.size) return null;
  const b = bindings.get(toks.v(i)!);
  return b && 'str' in b ? toks.v(b.str)! : null;
}

/** The strings a token stands for: its own value, or the strings in what a name was last assigned. */
function textsOf(src: Source, bindings: Map<string, Binding>, i: number): readonly string[] {
  const { toks } = src;
  const k = toks.k(i);
  if (k === 'str') return [toks.v(i)!];
  const b = k === 'id' && bindings.size ? bindings.get(toks.v(i)!) : undefined;
  if (!b) return NO_TEXTS;
  if ('str' in b) return [toks.v(b.str)!];
  if (b.rhs === undefined) return NO_TEXTS;
  if (!b.texts) {
    const to = src.stmts.end(src.stmts.of(b.rhs));
    b.texts = [];
    for (let x = b.rhs; x < to; x++) if (toks.k(x) === 'str') b.texts.push(toks.v(x)!);
  }
  return b.texts;
}

/** Every reference a rule can read: each chain the main pass meets, offered to `keep`. */
function collectRefs(
  src: Source,
  chains: Chains,
  stars: string[],
  skim: Skim | undefined,
  keep: (r: Ref) => void,
): void {
  const { toks, lang, close } = src;
  const bindings = chains.bindings;
  const interest = skim?.interest;
  for (let i = 0; i < toks.length; i++) {
    const kind = toks.k(i);
    if (kind !== 'id' && !(kind === 'op' && toks.opCode(i) === 40)) continue;
    const prev = toks.k(i - 1);
    if (kind === 'op') {
      // A parenthesized chain that goes on after its `)`; a call's parentheses are the chain before them.
      const after = close(i) + 1;
      const a = toks.opCode(after);
      if (!(a === 46 || a === 91 || (a === 0 && toks.isOp(after, '?.')))) continue;
      const p = toks.opCode(i - 1);
      const called = prev === 'str' || (prev === 'id' && !EXPRESSION_AFTER.has(toks.v(i - 1)!)) || p === 41 || p === 93;
      if (called) continue;
      const c = chains.at(i);
      if (c && c.end > close(i) + 1) keep(chains.ref(c.parts, i, c.end, c.args, assignOp(toks, c.end)));
      continue;
    }
    if (prev === 'op' && (toks.opCode(i - 1) === 46 || toks.is(i - 1, '?.'))) continue;
    if (lang === 'python' && prev === 'id' && (toks.is(i - 1, 'def') || toks.is(i - 1, 'class'))) continue;
    if (skim && !stars.length && !skim.mayMatter(i)) continue;
    const c = chains.at(i);
    if (!c) continue;
    const assigned = assignOp(toks, c.end);
    // Assigning a bare name rebinds the name; it writes nothing it named before.
    const parts = assigned && c.end === i + 1 ? [toks.v(i)!] : c.parts;
    if (!interest || mayRead(parts, assigned, interest)) keep(chains.ref(parts, i, c.end, c.args, assigned));
    const set = c.setter;
    if (set && (!interest || mayRead(set.parts, true, interest)))
      keep(chains.ref(set.parts, set.start, set.end, -1, true));
    // `from os import *`: a name bound nowhere in the file may come from a star import.
    if (stars.length && !bindings.has(toks.v(i)!))
      for (const m of stars) keep(chains.ref([...m.split('.'), ...parts], i, c.end, c.args, assigned));
  }
}

const WORD = /^[\w$]+$/;

/** Whether a path whose first part is `first` starts at a head: a part that is no plain word may hold a `.` (`require("process.exit")`). */
function atHead(first: string, it: Interest, word: boolean): boolean {
  return it.heads.has(first) || (!word && it.heads.has(headOf(first)));
}

/** Whether `reads` can keep the reference to a chain of these parts: `interest` told from the parts. */
function mayRead(parts: readonly string[], assigned: boolean, it: Interest): boolean {
  if (atHead(parts[0], it, WORD.test(parts[0]))) return true;
  for (const p of parts) if (it.respelled.has(p)) return true;
  const last = parts[parts.length - 1];
  if (assigned) return last !== '()' && last !== '[]' && (it.written.has(last) || !WORD.test(last));
  if (last !== '()') return false;
  // A call: its last name, however the names before it began.
  for (let k = parts.length - 2; k >= 0; k--)
    if (parts[k] !== '()' && parts[k] !== '[]') return !WORD.test(parts[k]) || it.callees.has(parts[k]);
  return false;
}

/** What a bound name's chain starts as, for Skim: whether it matters already, its last name and its last part. */
type Head = { matters: boolean; name: string; end: string };

/**
 * The same as mayRead told from a chain's tokens before it is built: the
 * head through its binding, then each member, subscript and call as
 * Chains.follow walks them. Never false where the built chain would be
 * kept; true for any chain with a special call (it may load a module or
 * write a member) or a subscript by a string.
 */
// What continues a chain at token j (Skim and Chains read chains by these
// steps alone, so what one skips the other cannot build): a member (its name
// at j + 1), a step over `?.` before a call or over JavaScript's non-null
// `!` before `.`, a subscript, a call, or nothing.
const MEMBER = 0;
const OVER = 1;
const SUBSCRIPT = 2;
const CALL = 3;
const END = 4;
function stepAt(toks: Tokens, lang: Lang, j: number): number {
  const c = toks.opCode(j); // read once: most chains end at their first token after the head
  const optional = c === 0 && toks.isOp(j, '?.');
  if (c === 46 || optional) {
    if (toks.k(j + 1) === 'id') return MEMBER;
    return optional && toks.is(j + 1, '(') ? OVER : END;
  }
  if (c === 33) return lang === 'js' && toks.opCode(j + 1) === 46 ? OVER : END;
  if (c === 91) return SUBSCRIPT;
  return c === 40 ? CALL : END;
}

class Skim {
  /** interest.respelled as a list, compared in place with each member's name. */
  private readonly respelled: string[];
  /** The shape keys of the heads and the bound names (1: some name has it), made for this many bindings (-1: not yet). */
  private readonly shapes = new Uint8Array(SHAPE_KEYS);
  private shapesOf = -1;
  constructor(
    private readonly src: Source,
    private readonly chains: Chains,
    readonly interest: Interest,
    /** No name in the file can be other than a plain word (ASCII, no escape). */
    private readonly plain: boolean,
  ) {
    this.respelled = [...interest.respelled];
  }

  /**
   * Whether the name token i may be a head or a bound name, by its length
   * and first character alone (Tokens.shapeKey): most names are neither,
   * and are then never sliced or looked up. Only for a plain file, where
   * every name is a word (a name decoded to `process.exit` has the shape of
   * neither head it starts with).
   */
  private mayBeNamed(i: number): boolean {
    const { bindings } = this.chains;
    // The bindings are all made before the first chain is read; a name bound later would change their count.
    if (this.shapesOf !== bindings.size) {
      this.shapes.fill(0);
      for (const name of this.interest.heads) this.shapes[shapeKeyOf(name)] = 1;
      for (const name of bindings.keys()) this.shapes[shapeKeyOf(name)] = 1;
      this.shapesOf = bindings.size;
    }
    return this.shapes[this.src.toks.shapeKey(i)] === 1;
  }

  /** Whether s is a plain word; `token`: s is a name token's (a binding's parts may come from strings). */
  private word(s: string, token: boolean): boolean {
    return (token && this.plain) || WORD.test(s);
  }

  /** What the bound name's chain starts as (kept on its binding: most are met many times). */
  private head(name: string, b: Binding): Head {
    if (b.head) return b.head;
    const it = this.interest;
    const parts = this.chains.resolve([name]);
    let last = '';
    for (let k = parts.length - 1; k >= 0 && !last; k--) if (parts[k] !== '()' && parts[k] !== '[]') last = parts[k];
    const matters = atHead(parts[0], it, WORD.test(parts[0])) || parts.some((p) => it.respelled.has(p));
    b.head = { matters, name: last, end: parts[parts.length - 1] };
    return b.head;
  }

  /** Whether the chain at the name i may be kept. */
  mayMatter(i: number): boolean {
    const { src, interest: it } = this;
    const { toks } = src;
    /** The head's last name and last part (`()`, `[]` or a name): the name token's own (sliced when first needed), or its binding's. */
    let headName: string | undefined;
    let headEnd: string | undefined;
    let bound = false;
    if (!this.plain || this.mayBeNamed(i)) {
      const name = toks.v(i)!;
      if (atHead(name, it, this.word(name, true))) return true;
      headName = headEnd = name;
      const b = this.chains.bindings.size ? this.chains.bindings.get(name) : undefined;
      bound = b !== undefined;
      if (b) {
        const h = this.head(name, b);
        if (h.matters) return true;
        headName = h.name;
        headEnd = h.end;
      }
    }
    /** The token of the last member's name (-1: none yet); the last part: -1 the head's, -2 a call or subscript, else that member. */
    let member = -1;
    let at = -1;
    /** The last member's name, sliced when first needed (at a call, or to tell the callee). */
    let memberName: string | undefined;
    let call = headEnd === '()';
    let j = i + 1;
    for (let step = stepAt(toks, src.lang, j); step !== END; step = stepAt(toks, src.lang, j)) {
      if (step === MEMBER) {
        at = member = j + 1;
        memberName = undefined;
        for (let r = 0; r < this.respelled.length; r++) if (toks.is(at, this.respelled[r])) return true;
        call = false;
        j += 2;
      } else if (step === OVER) j++;
      else if (step === SUBSCRIPT) {
        const end = src.close(j);
        if (end === j + 2 && src.stringAt(j + 1) !== null) return true;
        at = -2;
        call = false;
        j = end + 1;
      } else {
        if (
          at >= 0
            ? SPECIAL_LAST.has((memberName ??= toks.v(at)!))
            : at === -1 && SPECIAL_LAST.has((headEnd ??= toks.v(i)!))
        )
          return true;
        at = -2;
        call = true;
        j = src.close(j) + 1;
      }
    }
    if (assignOp(toks, j)) {
      // A write counts by its last member; a bare name assigned is rebound (its own name was told above).
      if (at < 0) return false;
      const last = (memberName ??= toks.v(at)!);
      return it.written.has(last) || !this.word(last, true);
    }
    if (!call) return false;
    if (member < 0) {
      headName ??= toks.v(i)!;
      return it.callees.has(headName) || !this.word(headName, !bound);
    }
    const last = memberName ?? toks.v(member)!;
    return it.callees.has(last) || !this.word(last, true);
  }
}

/** A chain; `setter`, what a setter call in it writes (`Object.defineProperty(o, "k", …)` writes `o.k`), built into a reference only when it may be kept. */
type Setter = { parts: string[]; start: number; end: number };
type Chain = { parts: string[]; end: number; args: number; setter: Setter | null };

/** Reference chains read from a file's tokens through its bindings. */
class Chains {
  private readonly toks: Tokens;
  private readonly lang: Lang;
  /** The `(` of each loader call whose import is recorded: a bound chain is read again by the refs' walk. */
  private readonly loads = new Set<number>();
  constructor(
    private readonly src: Source,
    readonly bindings: Map<string, Binding>,
  ) {
    this.toks = src.toks;
    this.lang = src.lang;
  }

  /** Follows a head name through the bindings (bounded: bindings may loop). */
  resolve(parts: string[], depth = 0): string[] {
    const b = depth < 8 && this.bindings.size ? this.bindings.get(parts[0]) : undefined;
    if (!b || !('parts' in b) || b.parts[0] === parts[0]) return parts;
    return [...this.resolve(b.parts, depth + 1), ...parts.slice(1)].slice(0, 24);
  }

  private moduleParts(name: string): string[] {
    if (this.lang === 'python' || this.lang === 'java') return name.split('.');
    return [name.replace(/^node:/, '')];
  }

  /** The chain starting at the name (or the parenthesized chain) at i; null when i does not start one. */
  at(i: number, depth = 0): Chain | null {
    const { toks } = this;
    if (depth > 4) return null;
    if (toks.isOp(i, '(')) {
      // `(await import("node:process")).default.exit`, `(os)._exit`: the chain goes on after the `)`.
      const c = this.at(toks.k(i + 1) === 'id' && toks.is(i + 1, 'await') ? i + 2 : i + 1, depth + 1);
      return c && c.end === this.src.close(i) ? this.follow(i, c.parts, c.end + 1, c.args, c.setter, depth) : null;
    }
    if (toks.k(i) !== 'id') return null;
    return this.follow(i, this.resolve([toks.v(i)!]), i + 1, -1, null, depth);
  }

  /** The members, subscripts and calls after a chain's head. */
  private follow(i: number, head: string[], from: number, args: number, setter: Setter | null, depth: number): Chain {
    const { toks, lang, src } = this;
    const chain: Chain = { parts: head, end: from, args, setter }; // head is fresh: resolve() and a chain's own parts are never shared
    let j = from;
    for (let step = stepAt(toks, lang, j); step !== END; step = stepAt(toks, lang, j)) {
      if (step === MEMBER) {
        chain.parts.push(toks.v(j + 1)!);
        j += 2;
      } else if (step === OVER) j++;
      else if (step === SUBSCRIPT) {
        const end = src.close(j);
        const name = end === j + 2 ? src.stringAt(j + 1) : null;
        // `sys.modules["os"]._exit` is the module itself.
        if (name !== null && lang === 'python' && joinPath(chain.parts) === 'sys.modules' && toks.is(end + 1, '.'))
          chain.parts = this.moduleParts(name);
        else chain.parts.push(name ?? '[]');
        j = end + 1;
      } else j = this.call(i, j, chain, depth);
    }
    chain.end = j;
    return chain;
  }

  /** The call whose `(` is at j in the chain starting at i: its arguments, and what a special call makes of the chain. */
  private call(i: number, j: number, chain: Chain, depth: number): number {
    const { toks, lang, src } = this;
    const end = src.close(j);
    if (chain.args < 0) chain.args = j + 1;
    const parts = chain.parts;
    const here = specialCall(parts);
    // A loader of another language is no special call here.
    if (here === '' || !(GETTERS.has(here) || SETTERS.has(here) || THROUGH.has(here) || LOADERS[lang].has(here))) {
      parts.push('()');
      return end + 1;
    }
    const args = splitArgs(toks, j + 1, end);
    const first = args[0] ? this.at(args[0][0], depth + 1) : null;
    const name = args[1] && args[1][1] - args[1][0] === 1 ? src.stringAt(args[1][0]) : null;
    const loaded =
      LOADERS[lang].has(here) && args[0] && args[0][1] - args[0][0] === 1 ? src.stringAt(args[0][0]) : null;
    if (GETTERS.has(here) && first && first.end === args[0][1] && name !== null) chain.parts = [...first.parts, name];
    else if (THROUGH.has(here) && first && first.end === args[0][1] && args.length === 1)
      chain.parts = [...first.parts];
    else if (loaded !== null) {
      if (!this.loads.has(j)) src.imports.push({ module: loaded, at: i });
      this.loads.add(j);
      chain.parts = this.moduleParts(loaded);
    } else {
      if (SETTERS.has(here) && first && first.end === args[0][1]) {
        const target =
          name !== null &&
          here !== 'Object.assign()' &&
          here !== 'Object.defineProperties()' &&
          here !== 'Object.setPrototypeOf()'
            ? [...first.parts, name]
            : [...first.parts, '[]'];
        chain.setter = { parts: target, start: i, end: end + 1 };
      }
      parts.push('()');
    }
    return end + 1;
  }

  private canonicalParts(parts: string[]): string[] {
    return this.lang === 'python' ? pythonCanonical(parts) : this.lang === 'js' ? jsCanonical(parts) : parts;
  }

  /** The reference to the chain `parts` written over tokens [start, end). */
  ref(parts: string[], start: number, end: number, args: number, assigned: boolean): Ref {
    const { toks, bindings } = this;
    const name = toks.k(start) === 'id' && bindings.size ? toks.v(start)! : '';
    const head = name && bindings.has(name) ? this.resolve([name]) : NO_PARTS;
    const held = head.includes('()') ? joinPath(this.canonicalParts(head)) : '';
    const raw = joinPath(parts);
    const same = this.canonicalParts(parts);
    return { path: same === parts ? raw : joinPath(same), raw, start, end, args, assigned, held };
  }
}

/** Keywords after which `(` opens an expression, not a call's arguments. */
const EXPRESSION_AFTER = new Set([
  'return',
  'await',
  'yield',
  'in',
  'of',
  'typeof',
  'void',
  'not',
  'and',
  'or',
  'else',
  'case',
  'throw',
  'new',
  'delete',
  'if',
  'elif',
  'while',
  'is',
  'lambda',
  'assert',
]);

function assignOp(toks: Tokens, i: number): boolean {
  if (toks.k(i) !== 'op') return false;
  // Most operators are one character: only `=` of those assigns (read without slicing it).
  const c = toks.opCode(i);
  if (c !== 0) return c === 61;
  const v = toks.v(i)!;
  if (!v.endsWith('=')) return false;
  return v === '=' || /^[-+*/%&|^@]=$|^(\*\*|\/\/|>>|<<|\?\?|&&|\|\|)=$/.test(v);
}

/** `posix` and `nt` are `os` under its platform name; `__builtins__` is `builtins`; `os.__dict__["_exit"]` is `os._exit`. */
function pythonCanonical(parts: string[]): string[] {
  if (!parts.includes('__dict__') && !/^(posix|nt|__builtins__)$/.test(parts[0])) return parts;
  const out = parts.filter((p, k) => !(k && p === '__dict__'));
  if (out[0] === 'posix' || out[0] === 'nt') out[0] = 'os';
  else if (out[0] === '__builtins__') out[0] = 'builtins';
  return out;
}

/** `globalThis.process` is `process`; an ES module's `default` and an object's `__proto__` (or `constructor.prototype`) reach the same members. */
function jsCanonical(parts: string[]): string[] {
  if (!GLOBAL_OBJECTS.has(parts[0]) && !parts.some((p) => p === '__proto__' || p === 'default' || p === 'constructor'))
    return parts;
  const out = GLOBAL_OBJECTS.has(parts[0]) && parts.length > 1 ? parts.slice(1) : [...parts];
  for (let k = out.length - 1; k > 0; k--) {
    if (out[k] === '__proto__' || (k === 1 && out[k] === 'default')) out.splice(k, 1);
    else if (out[k] === 'constructor' && out[k + 1] === 'prototype') out.splice(k, 2);
  }
  return out;
}

/** Splits the tokens [start, end) at top-level commas. */
export function splitArgs(toks: Tokens, start: number, end: number): Span[] {
  const out: Span[] = [];
  let depth = 0;
  let from = start;
  for (let i = start; i < end; i++) {
    const c = toks.opCode(i);
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 0) {
      out.push([from, i]);
      from = i + 1;
    }
  }
  if (end > from) out.push([from, end]);
  return out;
}

/** The token ranges of a file's statements, in two typed arrays: minified code holds millions of statements. */
export class Statements {
  length = 0;
  private starts: Int32Array;
  private ends: Int32Array;
  constructor(tokens: number) {
    // A statement holds a few tokens; the arrays grow by half when a file has more.
    const n = (tokens >> 2) + 16;
    this.starts = new Int32Array(n);
    this.ends = new Int32Array(n);
  }
  /** The first token of statement k; -1 when there is none (k is -1 for a separator). */
  start(k: number): number {
    return k >= 0 && k < this.length ? this.starts[k] : -1;
  }
  /** The token after statement k; -1 when there is none. */
  end(k: number): number {
    return k >= 0 && k < this.length ? this.ends[k] : -1;
  }
  /**
   * The statement that holds token i, -1 for a separator: found by a binary
   * search of the starts, where an array of every token's statement was as
   * large as the token arrays (new memory costs more than the search).
   */
  of(i: number): number {
    const lo = countAtMost(this.starts, this.length, i);
    return lo > 0 && i < this.ends[lo - 1] ? lo - 1 : -1;
  }
  push(start: number, end: number): void {
    if (this.length === this.starts.length) {
      const n = Math.ceil(this.length * 1.5);
      const grow = (a: Int32Array) => {
        const b = new Int32Array(n);
        b.set(a);
        return b;
      };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    this.starts[this.length] = start;
    this.ends[this.length++] = end;
  }
}

/**
 * The closing bracket of each opening one, kept as how many tokens later it
 * comes, in two bytes a token (0: none); a longer distance is kept apart.
 * An index of every token's pair took four bytes a token, and on this scale
 * new memory costs more than the look-up (the token arrays are most of a
 * scan's memory).
 */
class Pairs {
  private readonly near: Uint16Array;
  private readonly far = new Map<number, number>();
  constructor(tokens: number) {
    this.near = new Uint16Array(tokens);
  }
  set(open: number, close: number): void {
    const d = close - open;
    this.near[open] = Math.min(d, 0xffff);
    if (d >= 0xffff) this.far.set(open, close);
  }
  /** The bracket closing the one at i; undefined when none does (or i is no opening bracket). */
  closing(i: number): number | undefined {
    const d = this.near[i];
    if (!d) return undefined;
    return d === 0xffff ? this.far.get(i) : i + d;
  }
}

/**
 * A file's shape, from one walk of its tokens: the closing bracket of each
 * opening one; the statements
 * (Python's end at a logical newline or `;`, the others' at `;`, `{` and
 * `}`); and where a binding may start, so that collectBindings reads only
 * those tokens: `heads`, each `import`, `from` and `export`; `names`, each
 * name before `=`, `:` or `:=`, and in JavaScript each `{` after a name
 * (`const { a } = …`), with (Python) how deep in brackets it is.
 */
interface Shape {
  pairs: Pairs;
  stmts: Statements;
  heads: number[];
  names: number[];
  depths: number[];
}

function structure(toks: Tokens, lang: Lang): Shape {
  const n = toks.length;
  const shape: Shape = {
    pairs: new Pairs(n),
    stmts: new Statements(n),
    heads: [],
    names: [],
    depths: [],
  };
  const { pairs, stmts, heads, names, depths } = shape;
  const open: number[] = [];
  /** The opener's code of each closer's: `(` 40 of `)` 41, `[` 91 of `]` 93, `{` 123 of `}` 125. */
  const opener = (c: number) => (c === 41 ? 40 : c - 2);
  const python = lang === 'python';
  let from = 0;
  /** Ends the statement before token i; a separator (`;`, newline) belongs to none. */
  const end = (i: number, separator: boolean) => {
    if (i > from) stmts.push(from, i);
    from = separator ? i + 1 : i;
  };
  /** Python's bracket depth, as an assignment reads it: a stray closer stops at 0. */
  let depth = 0;
  let prevName = false;
  for (let i = 0; i < n; i++) {
    const c = toks.opCode(i);
    const kind = c === 0 ? toks.k(i) : 'op';
    if (c === 40 || c === 91 || c === 123) {
      open.push(i);
      depth++;
    } else if (c === 41 || c === 93 || c === 125) {
      // A stray closer (bad or partial code) closes nothing.
      if (open.length && toks.opCode(open[open.length - 1]) === opener(c)) pairs.set(open.pop()!, i);
      depth = Math.max(0, depth - 1);
    }
    if (kind === 'id') {
      if (toks.is(i, 'import') || toks.is(i, 'from') || toks.is(i, 'export')) heads.push(i);
    } else if (prevName && (c === 61 || c === 58 || (kind === 'op' && toks.is(i, ':=')))) {
      names.push(i - 1);
      if (python) depths.push(depth);
    } else if (prevName && c === 123 && lang === 'js') names.push(i);
    prevName = kind === 'id';
    if (c === 59 || (!python && (c === 123 || c === 125)) || kind === 'nl') end(i, true);
    // Go ends a statement at a line break after a name, literal or closing bracket.
    else if (
      lang === 'go' &&
      i + 1 < n &&
      toks.line(i + 1) > toks.endLine(i) &&
      (kind !== 'op' || /^([)\]}]|\+\+|--)$/.test(toks.v(i)!))
    )
      end(i + 1, false);
  }
  end(n, true);
  return shape;
}

/** What an unbound name stands for: no strings (shared; most names are unbound). */
const NO_TEXTS: readonly string[] = [];

type ChainAt = (i: number) => { parts: string[]; end: number } | null;

/** Imports and simple assignments: the names a file binds, and the modules it loads. */
function collectBindings(
  src: Source,
  shape: Shape,
  bindings: Map<string, Binding>,
  imports: Import[],
  stars: string[],
  chainAt: ChainAt,
) {
  const { toks, lang } = src;
  const bindChain = (name: string, at: number) => {
    const rhs = toks.k(at) === 'id' && (toks.is(at, 'new') || toks.is(at, 'await')) ? at + 1 : at;
    if (toks.k(rhs) === 'str') {
      bindings.set(name, { str: rhs });
      return;
    }
    const c = chainAt(rhs);
    // `node = node.parent` says nothing new about what `node` names.
    if (!c || (toks.k(rhs) === 'id' && toks.is(rhs, name))) return;
    // A copy at its size: the chain's list grew by half plus 16 at its first push, and a binding is kept to the end.
    bindings.set(name, { parts: c.parts.slice(), rhs });
  };
  // An import starts a statement or a line (Go and JavaScript may end statements at a newline).
  for (const s of shape.heads) {
    const stmt = src.stmts.of(s);
    if (src.stmts.start(stmt) !== s && s > 0 && toks.endLine(s - 1) === toks.line(s)) continue;
    const e = stmt >= 0 ? src.stmts.end(stmt) : toks.length;
    const word = toks.v(s);
    if (lang === 'python' && word !== 'export') pythonImport(toks, s, e, bindings, imports, stars);
    else if (lang === 'js' && word !== 'from') jsImport(toks, s, e, bindings, imports);
    else if (lang === 'go' && word === 'import') goImport(toks, s, e, bindings, imports);
    else if (lang === 'java' && word === 'import') javaImport(toks, s, e, bindings, imports);
  }
  const declares = (i: number) => toks.is(i, 'const') || toks.is(i, 'let') || toks.is(i, 'var');
  for (let n = 0; n < shape.names.length; n++) {
    const i = shape.names[n];
    // NAME = chain, NAME := chain, NAME: Type = chain
    if (toks.k(i) === 'id') {
      if (toks.k(i - 1) === 'op' && (toks.opCode(i - 1) === 46 || toks.is(i - 1, '?.'))) continue;
      let j = i + 1;
      const declared = lang === 'js' ? declares(i - 1) : lang === 'python' && src.stmts.start(src.stmts.of(i)) === i;
      if (declared && toks.isOp(j, ':')) {
        const to = src.stmts.end(src.stmts.of(i));
        while (j < to && !toks.isOp(j, '=')) j++;
      }
      // In Python, `NAME = x` inside brackets is a keyword argument or a parameter's default: it names no
      // module or function, though its string still tells what `open(path, mode="w")` does.
      const assigns =
        toks.isOp(j, ':=') ||
        (toks.isOp(j, '=') && (lang !== 'python' || shape.depths[n] === 0 || toks.k(j + 1) === 'str'));
      if (assigns && j + 1 < toks.length && !toks.is(i, '_')) bindChain(toks.v(i)!, j + 1);
    }
    // const { a, b: c, d: { e } } = chain
    else if (declares(i - 1)) {
      const end = src.close(i);
      if (toks.is(end + 1, '=')) {
        const rhs = toks.is(end + 2, 'await') ? end + 3 : end + 2;
        const c = chainAt(rhs);
        if (c) destructure(toks, i, end, c.parts, bindings, src.close);
      }
    }
  }
}

function destructure(
  toks: Tokens,
  open: number,
  close: number,
  from: string[],
  bindings: Map<string, Binding>,
  closeOf: (i: number) => number,
) {
  for (const [s, e] of splitArgs(toks, open + 1, close)) {
    const key = toks.k(s);
    if (key !== 'id' && key !== 'str') continue;
    const member = [...from, toks.v(s)!];
    if (toks.is(s + 1, ':') && s + 2 < toks.length) {
      const target = s + 2;
      if (toks.isOp(target, '{')) destructure(toks, target, closeOf(target), member, bindings, closeOf);
      else if (toks.k(target) === 'id') bindings.set(toks.v(target)!, { parts: member });
    } else if (key === 'id' && s < e) bindings.set(toks.v(s)!, { parts: member });
  }
}

function pythonImport(
  toks: Tokens,
  s: number,
  e: number,
  bindings: Map<string, Binding>,
  imports: Import[],
  stars: string[],
) {
  const dotted = (i: number): [string, number] => {
    let name = '';
    while (i < e && (toks.isOp(i, '.') || toks.isOp(i, '...'))) name += toks.v(i++); // relative
    while (i < e && toks.k(i) === 'id') {
      name += toks.v(i++);
      if (!toks.is(i, '.') || toks.k(i + 1) !== 'id') break;
      name += toks.v(i++);
    }
    return [name, i];
  };
  if (toks.is(s, 'import')) {
    for (const [a, b] of splitArgs(toks, s + 1, e)) {
      const [name, i] = dotted(a);
      if (!name) continue;
      imports.push({ module: name, at: a });
      if (toks.is(i, 'as') && i + 1 < b) bindings.set(toks.v(i + 1)!, { parts: name.split('.') });
      else bindings.set(name.split('.')[0], { parts: [name.split('.')[0]] });
    }
    return;
  }
  const [mod, i] = dotted(s + 1);
  if (!toks.is(i, 'import')) return;
  imports.push({ module: mod, at: s });
  let from = i + 1;
  let to = e;
  if (toks.is(from, '(')) {
    to = Math.min(e, toks.length);
    from++;
  }
  for (const [a, b] of splitArgs(toks, from, to)) {
    if (toks.is(a, '*')) stars.push(mod);
    if (toks.k(a) !== 'id') continue;
    const name = toks.v(a)!;
    imports.push({ module: `${mod}.${name}`, at: a });
    const alias = toks.is(a + 1, 'as') && a + 2 < b + 1 ? toks.v(a + 2)! : name;
    bindings.set(alias, { parts: [...mod.split('.'), name] });
  }
}

function jsImport(toks: Tokens, s: number, e: number, bindings: Map<string, Binding>, imports: Import[]) {
  // import x, { a as b } from 'm' / import * as x from 'm' / import 'm' / export ... from 'm'
  // (the `{` of a named import ends the statement split, so look ahead past it)
  let fromAt = -1;
  for (let i = s; i < Math.min(toks.length, e + 200); i++) {
    if (toks.k(i) === 'str' && (toks.is(i - 1, 'from') || i === s + 1)) {
      fromAt = i;
      break;
    }
    if (toks.isOp(i, ';')) break;
  }
  if (toks.is(s, 'import') && toks.is(s + 1, '(')) return; // a dynamic import is a chain
  if (fromAt < 0) return;
  const mod = toks.v(fromAt)!;
  imports.push({ module: mod, at: s });
  if (!toks.is(s, 'import')) return;
  const parts = [mod.replace(/^node:/, '')];
  for (let i = s + 1; i < fromAt; i++) {
    if (toks.isOp(i, '*') && toks.is(i + 1, 'as')) {
      bindings.set(toks.v(i + 2)!, { parts });
      i += 2;
      continue;
    }
    if (toks.isOp(i, '{')) {
      let j = i + 1;
      while (j < fromAt && !toks.is(j, '}')) {
        if (toks.k(j) === 'id' && !toks.is(j, 'type')) {
          const as = toks.is(j + 1, 'as');
          bindings.set(toks.v(as ? j + 2 : j)!, { parts: [...parts, toks.v(j)!] });
          j += as ? 3 : 1;
        } else j++;
      }
      i = j;
      continue;
    }
    if (toks.k(i) === 'id' && !toks.is(i, 'type') && (toks.is(i + 1, ',') || i + 1 === fromAt - 1))
      bindings.set(toks.v(i)!, { parts });
  }
}

function goImport(toks: Tokens, s: number, e: number, bindings: Map<string, Binding>, imports: Import[]) {
  let i = s + 1;
  const end = toks.is(i, '(') ? Math.max(e, toks.length) : e;
  for (; i < end; i++) {
    if (toks.isOp(i, ')')) break;
    if (toks.k(i) !== 'str') continue;
    const v = toks.v(i)!;
    imports.push({ module: v, at: i });
    const alias =
      toks.k(i - 1) === 'id' && !toks.is(i - 1, 'import') ? toks.v(i - 1)! : v.slice(v.lastIndexOf('/') + 1);
    if (alias !== '_' && alias !== '.') bindings.set(alias, { parts: [v] });
  }
}

function javaImport(toks: Tokens, s: number, e: number, bindings: Map<string, Binding>, imports: Import[]) {
  let i = s + 1;
  if (toks.is(i, 'static')) i++;
  let name = '';
  while (i < e && (toks.k(i) === 'id' || toks.isOp(i, '.') || toks.isOp(i, '*'))) name += toks.v(i++);
  const mod = name.replace(/\.\*$/, '');
  imports.push({ module: mod, at: s });
  if (!name.endsWith('*')) bindings.set(mod.slice(mod.lastIndexOf('.') + 1), { parts: mod.split('.') });
}
