// The rules: what production code may not do to the process that tests it.
// One row per rule and language; each names what it matches after imports,
// aliases and string-spelled attributes are resolved (see scan.ts). The
// reasons and the real-world cases behind them are in docs/tamper.md.
import type { RuleId } from '../config/tamper-ids.js';
import { posix } from 'node:path';
import { langOf, type Lang } from './lang.js';
import { headOf, splitArgs, type Interest, type Ref, type Source, type Span } from './scan.js';

export type { RuleId } from '../config/tamper-ids.js';

/** What each rule guards against, in one sentence a refusal can print. */
export const WHY: Record<RuleId, string> = {
  'exit.process':
    'ends the process from code under test, so the runner never reports what failed (an exit status of 0 reads as green)',
  'exit.library': 'leaves the process from library code, which a test run reads as the run ending, not as a failure',
  'exit.hook':
    'runs code when the process exits, after the tests ran: the place to rewrite a report or the exit status',
  'framework.import':
    'loads or extends the test framework, which can change how its own tests are collected and judged',
  'env.sniff':
    'behaves differently when a test runner is watching, so the tests judge code that does not run in production',
  'caller.read': "reads the caller's stack or source, the way code special-cases the test that calls it",
  'hook.replace': 'replaces a process-wide hook, stream or module table that the test runner relies on to see results',
  'code.swap':
    "reaches other code's live objects through the garbage collector or swaps a function's code, the way a test is rewritten in memory",
  'eq.always':
    'compares without looking at what it is compared with, so every equality assertion on the object passes (or every inequality)',
  'report.write':
    'writes a file shaped like a test report (JUnit XML), which the runner or CI would read as the result',
  'source.opaque':
    'is code the runtime runs but this scan cannot read (compiled, native, a .pth, a file loaded as code under another extension, or source in another encoding)',
};

export interface Rule {
  id: RuleId;
  lang: Lang;
  find: (s: Source) => Span[];
}

/** `a.b` matches `a.b`, `a.b()` and `a.b.c`; `a.b.*` only what is under it. */
export function pathMatches(path: string, pat: string): boolean {
  if (pat.endsWith('.*')) return path.startsWith(pat.slice(0, -1)) || path.startsWith(pat.slice(0, -2) + '[');
  return path === pat || (path.startsWith(pat) && '.(['.includes(path[pat.length]));
}

/** The argument tokens of a reference's first call (which it makes: `r.args >= 0`). */
const firstArgs = (s: Source, r: Ref): Span => [r.args, s.close(r.args - 1)];

/** A pattern matches a chain only for what the chain itself adds to a value its head holds. */
const own = (r: Ref, pat: string) => !r.held || !pathMatches(r.held, pat.replace(/\.\*$/, ''));

/** A file's references by the head of what they resolve to and of how they are written: each rule reads only its heads' share. */
const byHead = new WeakMap<Source, { path: Map<string, Ref[]>; raw: Map<string, Ref[]> }>();
function refsWithHead(s: Source, key: 'path' | 'raw', head: string): Ref[] {
  let index = byHead.get(s);
  if (!index) {
    const made = { path: new Map<string, Ref[]>(), raw: new Map<string, Ref[]>() };
    const add = (k: 'path' | 'raw', h: string, r: Ref) => {
      const list = made[k].get(h);
      if (list) list.push(r);
      else made[k].set(h, [r]);
    };
    for (const r of s.refs) {
      const h = headOf(r.path);
      add('path', h, r);
      add('raw', r.raw === r.path ? h : headOf(r.raw), r);
    }
    byHead.set(s, (index = made));
  }
  return index[key].get(head) ?? [];
}
/**
 * Every head a rule reads references by: the scan builds a lone name's
 * reference only for these. The patterns of refs(), assigns() and killOwn()
 * add theirs; the finders below that read references otherwise name theirs here.
 */
const RULE_HEADS = new Set<string>([
  'process',
  'Error',
  'globalThis',
  'global',
  'window',
  'self',
  'ctypes',
  '_ctypes',
  // freshStack's constructors, read bare after `new`
  'TypeError',
  'RangeError',
  'Throwable',
  'Exception',
  'RuntimeException',
]);
const headsOf = (pats: string[]) => {
  const heads = [...new Set(pats.map(headOf))];
  for (const h of heads) RULE_HEADS.add(h);
  return heads;
};
const refs = (...pats: string[]) => {
  const heads = headsOf(pats);
  return (s: Source): Span[] =>
    heads.flatMap((h) =>
      refsWithHead(s, 'path', h)
        .filter((r) => pats.some((p) => pathMatches(r.path, p) && own(r, p)))
        .map((r): Span => [r.start, r.end]),
    );
};
const assigns = (...pats: string[]) => {
  const heads = headsOf(pats);
  return (s: Source): Span[] => {
    const written = (r: Ref) => r.assigned;
    const near = new Set(
      heads.flatMap((h) => [
        ...refsWithHead(s, 'raw', h).filter(written),
        ...refsWithHead(s, 'path', h).filter(written),
      ]),
    );
    return [...near]
      .filter((r) => pats.some((p) => (pathMatches(r.raw, p) || pathMatches(r.path, p)) && own(r, p)))
      .map((r) => [r.start, r.end]);
  };
};
/**
 * Spans of the single tokens that pass the test. `needle`: text every value
 * that passes holds; then only the tokens whose text holds it, and those
 * whose value was decoded from an escape, are tested.
 */
function tokensWhere(s: Source, test: (i: number) => boolean, needle?: RegExp): Span[] {
  const out: Span[] = [];
  if (needle) {
    for (const i of s.toks.holding(needle)) if (test(i)) out.push([i, i + 1]);
    return out;
  }
  for (let i = 0; i < s.toks.length; i++) if (test(i)) out.push([i, i + 1]);
  return out;
}
/** A test of a token: a string whose value matches re. */
const stringMatching = (re: RegExp) => (s: Source, i: number) => s.toks.k(i) === 'str' && re.test(s.toks.v(i)!);
/** The imports of these modules or of what is under them (`x.y`, `x/y`; a module that ends in `/`, only under it). */
const imports = (...mods: string[]) => {
  // Made once: a file may hold tens of thousands of imports, each tested against every module.
  const under = mods.flatMap((x) => (x.endsWith('/') ? [x] : [`${x}.`, `${x}/`]));
  return (s: Source): Span[] => {
    const out: Span[] = [];
    for (const { module, at } of s.imports) {
      let yes = mods.includes(module);
      for (let k = 0; k < under.length && !yes; k++) yes = module.startsWith(under[k]);
      if (yes) out.push([at, at + 1]);
    }
    return out;
  };
};
/** Names and strings (not docstrings) matching a pattern; every match holds needle. */
const words =
  (re: RegExp, needle: RegExp) =>
  (s: Source): Span[] =>
    tokensWhere(
      s,
      (i) => {
        const k = s.toks.k(i);
        return (k === 'id' || (k === 'str' && !isDocstring(s, i))) && re.test(s.toks.v(i)!);
      },
      needle,
    );
const raised = (...pats: string[]) => {
  const find = refs(...pats);
  return (s: Source): Span[] => find(s).filter(([i]) => s.toks.is(i - 1, 'raise'));
};
const all =
  (...finders: ((s: Source) => Span[])[]) =>
  (s: Source): Span[] =>
    finders.flatMap((f) => f(s));
/** Drops spans that start inside an allowed place (an entry point's body). */
const outside =
  (inside: (s: Source, i: number) => boolean, f: (s: Source) => Span[]) =>
  (s: Source): Span[] =>
    f(s).filter(([i]) => !inside(s, i));

function isDocstring(s: Source, i: number): boolean {
  const k = s.stmts.of(i);
  return k >= 0 && s.stmts.end(k) - s.stmts.start(k) === 1;
}

/**
 * Spans of the `a` matches whose statement holds a token that passes `b`.
 * `needle`: text every token that passes holds; then only the tokens whose
 * text holds it, and those decoded from an escape, are tested.
 */
const together =
  (a: (s: Source) => Span[], b: (s: Source, i: number) => boolean, needle?: RegExp) =>
  (s: Source): Span[] => {
    // Only the statements `a` matched in are read, each once (a file may hold thousands of `process.env` reads).
    const holds = new Map<number, boolean>();
    let held: number[] | null = null;
    return a(s).filter(([i]) => {
      const k = s.stmts.of(i);
      let yes = holds.get(k);
      if (yes === undefined) {
        const to = s.stmts.end(k);
        yes = false;
        if (needle) {
          held ??= s.toks.holding(needle);
          for (let c = firstAtOrAfter(held, s.stmts.start(k)); c < held.length && held[c] < to && !yes; c++)
            yes = b(s, held[c]);
        } else for (let x = s.stmts.start(k); x < to && !yes; x++) yes = b(s, x);
        holds.set(k, yes);
      }
      return yes;
    });
  };

/** The index of the first item of an ascending list at or after v (the list's length when none is). */
function firstAtOrAfter(list: readonly number[], v: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// --- entry points, where leaving the process is the code's job ---

/** Python: `if __name__ == "__main__":` blocks, `def main()` bodies, `__main__.py`. */
function inPythonEntry(s: Source, i: number): boolean {
  if (/(^|\/)__main__\.py$/.test(s.path)) return true;
  const { toks, stmts } = s;
  const isEntry = (k: number) => {
    const a = stmts.start(k);
    const b = stmts.end(k);
    const t: string[] = [];
    for (let x = a; x < b; x++) t.push(toks.k(x) === 'str' ? `'${toks.v(x)}'` : toks.v(x)!);
    const head = t.join(' ');
    return (
      /^if __name__ == '__main__' :|^if '__main__' == __name__ :/.test(head) || /^(async )?def _?main \(/.test(head)
    );
  };
  let k = s.stmts.of(i);
  if (k < 0) return false;
  // The statement itself (`if __name__ == "__main__": sys.exit(main())`), then each enclosing block.
  if (isEntry(k)) return true;
  let col = toks.col(stmts.start(k));
  for (k--; k >= 0 && col > 0; k--) {
    const first = toks.col(stmts.start(k));
    if (first >= col) continue;
    col = first;
    if (isEntry(k)) return true;
  }
  return false;
}

/** Go and Java: the body of a function or method named main. */
function inMainBody(s: Source, i: number): boolean {
  const { toks } = s;
  for (let k = 0; k < toks.length; k++) {
    if (!toks.is(k, 'main') || toks.k(k) !== 'id' || !toks.is(k + 1, '(')) continue;
    let j = s.close(k + 1) + 1;
    while (j < toks.length && !toks.is(j, '{') && !toks.is(j, ';') && j - k < 40) j++;
    if (toks.is(j, '{') && i > j && i < s.close(j)) return true;
  }
  return false;
}

// --- rules that need more than a path ---

/** `sys.modules[__name__] = ...`: a module replacing itself (the lazy-module idiom), not another. */
function selfModule(s: Source, i: number): boolean {
  const t = s.toks;
  for (let j = i; j < i + 6 && j < t.length; j++) if (t.is(j, '[')) return t.is(j + 1, '__name__') && t.is(j + 2, ']');
  return false;
}

/** `process.on('exit', ...)` and friends: the event named by a string. */
const exitListener = (s: Source): Span[] =>
  refsWithHead(s, 'path', 'process')
    .filter(
      (r) =>
        [
          'process.on()',
          'process.once()',
          'process.addListener()',
          'process.prependListener()',
          'process.prependOnceListener()',
        ].some((p) => r.path.startsWith(p)) && r.args >= 0,
    )
    .filter((r) => ['exit', 'beforeExit'].includes(s.stringAt(r.args) ?? ''))
    .map((r) => [r.start, r.end]);

/** `NODE_ENV` in the same statement as a string naming the test environment. */
const nodeEnvTest = (s: Source): Span[] =>
  together(words(/^NODE_ENV$/, /NODE_ENV/), stringMatching(/^test(ing)?$/i), /test/i)(s);

/** The test framework named next to the module table or the command line: `"pytest" in sys.modules`. */
const frameworkProbe = together(
  refs(
    'sys.modules',
    'sys.argv',
    'importlib.util.find_spec',
    'pkgutil.find_loader',
    'os.environ',
    'os.environb',
    'os.getenv',
    'process.argv',
    'process.execArgv',
    'process.env',
    'require.cache',
    'require.resolve',
    'os.Args',
    'os.Environ',
    'flag.Lookup',
    'flag.CommandLine',
  ),
  stringMatching(/pytest|unittest|jest|vitest|mocha|node:test|^-?test\.|\.test$/i),
  // what each of those holds
  /test|jest|mocha/i,
);

/** `typeof jest !== "undefined"`, `globalThis.describe`: the test runner's globals. */
const TEST_GLOBALS = /^(jest|vi|describe|it|test|expect|beforeEach|afterEach|beforeAll|afterAll|suite|mocha|jasmine)$/;
const testGlobals = (s: Source): Span[] => [
  ...tokensWhere(
    s,
    (i) =>
      s.toks.k(i) === 'id' && s.toks.is(i, 'typeof') && s.toks.k(i + 1) === 'id' && TEST_GLOBALS.test(s.toks.v(i + 1)!),
    /typeof/,
  ).map(([i]): Span => [i, i + 2]),
  ...['globalThis', 'global', 'window', 'self']
    .flatMap((h) => refsWithHead(s, 'raw', h))
    .filter(
      (r) =>
        /^(globalThis|global|window|self)\.(\w+)/.test(r.raw) &&
        TEST_GLOBALS.test(r.raw.split('.')[1].replace(/[([].*$/, '')),
    )
    .map((r): Span => [r.start, r.end]),
];

/** `Error.captureStackTrace(obj)` on a plain object; error classes pass `this` or the constructor to hide. */
const captureStack = (s: Source): Span[] =>
  refsWithHead(s, 'path', 'Error')
    .filter(
      (r) =>
        r.path.startsWith('Error.captureStackTrace()') &&
        r.args >= 0 &&
        !s.toks.is(r.args, 'this') &&
        splitArgs(s.toks, ...firstArgs(s, r)).length < 2,
    )
    .map((r) => [r.start, r.end]);

/** `new Error().stack`, `(new Error).stack`, `const e = new Error(); e.stack`. */
const freshStack = (members: RegExp, names: string[]) => {
  const ctors = new RegExp(`^(${names.join('|')})\\(\\)`);
  return (s: Source): Span[] => {
    // Only a reference whose path starts at a constructor can pass ctors.
    const made = names.flatMap((h) => refsWithHead(s, 'path', h));
    const out: Span[] = made.filter((r) => ctors.test(r.path) && members.test(r.path)).map((r) => [r.start, r.end]);
    if (!made.length) return out;
    const at = new Map(made.map((r) => [r.start, r]));
    for (const i of s.toks.holding(/new/)) {
      if (!s.toks.is(i, 'new') || s.toks.k(i) !== 'id') continue;
      const r = at.get(i + 1);
      if (!r || !ctors.test(r.path.replace(/$/, '()'))) continue;
      let j = r.end;
      if (s.toks.is(j, ')')) j++;
      if (s.toks.is(j, '.') && members.test(`.${s.toks.v(j + 1)}`) && j > r.end) out.push([i, j + 2]);
    }
    return out;
  };
};

// --- comparison that does not look at what it compares ---

/** Names that never make a Python expression depend on anything. */
const PY_CONSTANT = new Set(['True', 'False', 'None', 'not', 'and', 'or', 'is', 'in', 'if', 'else']);

/** Parameter names in the tokens [a, b) of a parameter list: the names before any default or annotation. */
function paramNames(s: Source, a: number, b: number): string[][] {
  return splitArgs(s.toks, a, b).map(([x, y]) => {
    let end = x;
    while (end < y && !(s.toks.isOp(end, '=') || s.toks.isOp(end, ':'))) end++;
    const names: string[] = [];
    for (let k = x; k < end; k++) if (s.toks.k(k) === 'id') names.push(s.toks.v(k)!);
    return names;
  });
}

/** Does the token range read any of the names (not as a member of something else)? */
function reads(s: Source, a: number, b: number, names: string[]): boolean {
  for (let k = a; k < b; k++)
    if (s.toks.k(k) === 'id' && names.includes(s.toks.v(k)!) && !s.toks.is(k - 1, '.')) return true;
  return false;
}

/** Python: `__eq__`/`__ne__` (a def, a lambda, or a function bound to the name) whose result does not depend on its argument. */
const pythonEq = (s: Source): Span[] => {
  const { toks } = s;
  /** Each function's name and the token of its last def: read when a name is bound to `__eq__` (seldom). */
  let defs: Map<string, number> | undefined;
  const defsOf = () => {
    defs = new Map<string, number>();
    for (const d of toks.holding(/def/)) {
      const i = d + 1;
      if (toks.k(i) === 'id' && toks.is(i - 1, 'def') && toks.is(i + 1, '(')) defs.set(toks.v(i)!, i);
    }
    return defs;
  };
  const out: Span[] = [];
  for (const i of toks.holding(/__eq__|__ne__/)) {
    const k = toks.k(i);
    if ((k !== 'id' && k !== 'str') || !(toks.is(i, '__eq__') || toks.is(i, '__ne__'))) continue;
    if (k === 'id' && toks.is(i - 1, 'def')) {
      if (pyDefIgnoresArg(s, i)) out.push([i - 1, i + 1]);
      continue;
    }
    // `__eq__ = lambda s, o: True`, `{"__eq__": lambda …}`, `setattr(C, "__eq__", f)`, `__eq__ = always`
    const j = i + 2;
    if (!(toks.is(i + 1, '=') || toks.is(i + 1, ':') || toks.is(i + 1, ','))) continue;
    if (toks.is(j, 'lambda')) {
      if (pyLambdaIgnoresArg(s, j)) out.push([i, j + 1]);
    } else if (toks.k(j) === 'id' && !toks.is(j + 1, '(')) {
      const def = (defs ?? defsOf()).get(toks.v(j)!);
      if (def !== undefined && pyDefIgnoresArg(s, def)) out.push([i, j + 1]);
    }
  }
  return out;
};

function pyLambdaIgnoresArg(s: Source, at: number): boolean {
  const { toks } = s;
  let colon = at + 1;
  while (colon < toks.length && !toks.isOp(colon, ':') && toks.k(colon) !== 'nl') colon++;
  let end = colon + 1;
  for (let depth = 0; end < toks.length && toks.k(end) !== 'nl'; end++) {
    const v = toks.k(end) === 'op' ? toks.v(end)! : '';
    if ('([{'.includes(v) && v) depth++;
    else if (')]}'.includes(v) && v) {
      if (depth-- === 0) break;
    } else if (v === ',' && depth === 0) break;
  }
  const args = paramNames(s, at + 1, colon)
    .slice(1)
    .flat();
  return !reads(s, colon + 1, end, args) && !reads(s, colon + 1, end, ['NotImplemented']);
}

/** A def whose body never reads the parameters after `self` (and returns something other than NotImplemented), or returns a constant first thing. */
function pyDefIgnoresArg(s: Source, name: number): boolean {
  const { toks, stmts } = s;
  const open = name + 1;
  const args = paramNames(s, open + 1, s.close(open))
    .slice(1)
    .flat();
  let colon = s.close(open) + 1;
  while (colon < toks.length && !toks.isOp(colon, ':')) colon++; // past `-> T`
  const header = s.stmts.of(colon);
  if (header < 0) return false;
  // The body: the rest of the header line, or the statements indented under it.
  const body: Span[] = [[colon + 1, stmts.end(header)]];
  const defCol = toks.col(stmts.start(header));
  for (let k = header + 1; k < stmts.length && toks.col(stmts.start(k)) > defCol; k++)
    body.push([stmts.start(k), stmts.end(k)]);
  const returns = body.filter(([a]) => toks.is(a, 'return'));
  const honest = (a: number, b: number) => reads(s, a, b, ['NotImplemented']);
  if (!body.some(([a, b]) => reads(s, a, b, args)) && returns.some(([a, b]) => !honest(a, b))) return true;
  // A constant returned before anything that could branch: `return (True)`, `return not None`.
  for (const [a, b] of body) {
    if (a >= b || (b - a === 1 && toks.k(a) === 'str')) continue; // docstring
    if (toks.is(a, 'return')) return b > a + 1 && constantFrom(s, a + 1, b);
    if (/^(if|elif|else|for|while|try|with|match|raise|assert|async|yield|def|class)$/.test(toks.v(a)!)) return false;
  }
  return false;
}

/** Whether the tokens [a, b) are a constant: numbers, constant names, parentheses and signs. */
function constantFrom(s: Source, a: number, b: number): boolean {
  for (let x = a; x < b; x++) {
    const k = s.toks.k(x);
    const v = s.toks.v(x)!;
    if (!(k === 'num' || (k === 'op' && '()-+~'.includes(v)) || (k === 'id' && PY_CONSTANT.has(v)))) return false;
  }
  return true;
}

/** JavaScript and Java: `equals`, `asymmetricMatch`, `[Symbol.hasInstance]` that never read their argument; `[Symbol.toPrimitive]` returning a literal. */
const cEq =
  (...names: string[]) =>
  (s: Source): Span[] => {
    const { toks } = s;
    const out: Span[] = [];
    // A name starts a candidate at its own token, `Symbol` at the `[` before it.
    let last = -1;
    for (const t of toks.holding(new RegExp([...names, 'Symbol'].join('|')))) {
      for (let i = Math.max(t - 1, last + 1); i <= t; i++) cEqAt(s, i, names, out);
      last = t;
    }
    return out;
  };

/** The comparison function that starts at token i, when it ignores its argument, added to out. */
function cEqAt(s: Source, i: number, names: string[], out: Span[]): void {
  const { toks } = s;
  let j: number;
  let primitive = false;
  if (toks.k(i) === 'id' && names.some((n) => toks.is(i, n))) {
    // a member access is a call of it, unless it is assigned (`A.prototype.equals = …`)
    if (toks.is(i - 1, '.') && !toks.is(i + 1, '=')) return;
    j = i + 1;
  } else if (
    toks.is(i, '[') &&
    toks.is(i + 1, 'Symbol') &&
    toks.is(i + 2, '.') &&
    (toks.is(i + 3, 'hasInstance') || toks.is(i + 3, 'toPrimitive')) &&
    toks.is(i + 4, ']')
  ) {
    primitive = toks.is(i + 3, 'toPrimitive');
    j = i + 5;
  } else return;
  const a = cEqIgnoresArg(s, j, primitive);
  if (a !== null) out.push([i, a + 1]);
}

/** The function from token j (after its name): the start of its body when it ignores its argument (or, `primitive`, returns a literal), else null. */
function cEqIgnoresArg(s: Source, j: number, primitive: boolean): number | null {
  const { toks } = s;
  if (toks.is(j, '=') || toks.is(j, ':')) j++;
  if (toks.is(j, 'async')) j++;
  if (toks.is(j, 'function')) j++;
  let params: string[];
  if (toks.k(j) === 'id' && toks.is(j + 1, '=>')) {
    params = [toks.v(j)!];
    j++;
  } // o => true
  else if (toks.is(j, '(')) {
    params = paramNames(s, j + 1, s.close(j)).flat();
    j = s.close(j) + 1;
    if (toks.is(j, ':')) while (j < toks.length && !['{', '=>', ';', ','].includes(toks.v(j)!)) j++; // a return type
    if (toks.is(j, 'throws')) while (j < toks.length && !toks.is(j, '{') && !toks.is(j, ';')) j++;
  } else return null;
  if (toks.is(j, '=>') && !toks.is(j + 1, '{')) {
    const a = j + 1;
    let b = a;
    for (let depth = 0; b < toks.length; b++) {
      const v = toks.k(b) === 'op' ? toks.v(b)! : '';
      if (v && '([{'.includes(v)) depth++;
      else if (v && ')]}'.includes(v)) {
        if (depth-- === 0) break;
      } else if ((v === ',' || v === ';') && depth === 0) break;
    }
    const literal = b === a + 1 && /^(num|str)$/.test(toks.k(a)!);
    return (primitive ? literal : !reads(s, a, b, params)) ? a : null;
  }
  if (toks.is(j, '=>')) j++;
  if (!toks.is(j, '{')) return null;
  const a = j + 1;
  const b = s.close(j);
  const ends = (x: number) => toks.is(x, ';') || toks.is(x, '}');
  const first = a + 1;
  const literal =
    toks.is(a, 'return') &&
    first < toks.length &&
    (/^(num|str)$/.test(toks.k(first)!) || /^(true|false|null)$/.test(toks.v(first)!)) &&
    ends(a + 2);
  let returnsValue = false;
  for (let x = a; x < b && !returnsValue; x++)
    returnsValue = toks.is(x, 'return') && x + 1 < toks.length && !ends(x + 1);
  return (primitive ? literal : literal || (returnsValue && !reads(s, a, b, params))) ? a : null;
}

/** A string that names a test report, or a write of a file whose name looks like one. */
const REPORT_NAME = /junit|\.xml\b|test-results|surefire-reports/i;
/** Last names of calls that may write a file. */
const WRITERS = new Set([
  'write_text',
  'write_bytes',
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'createWriteStream',
  'copyFile',
  'copyFileSync',
  'rename',
  'renameSync',
  'replace',
  'move',
  'copy',
  'copyfile',
  'copy2',
  'WriteFile',
  'Create',
  'OpenFile',
  'write',
  'dump',
  'writeString',
  'newBufferedWriter',
  'newOutputStream',
]);
const reportWrite = (s: Source): Span[] => {
  const { toks } = s;
  const named = (_: Source, i: number) =>
    toks.k(i) === 'str'
      ? !isDocstring(s, i) && REPORT_NAME.test(toks.v(i)!)
      : toks.k(i) === 'id' && !toks.is(i - 1, '.') && s.textsAt(i).some((t) => REPORT_NAME.test(t));
  const junit = tokensWhere(s, (i) => toks.k(i) === 'str' && !isDocstring(s, i) && /junit/i.test(toks.v(i)!), /junit/i);
  const writes = (x: Source): Span[] =>
    x.refs.flatMap((r): Span[] => {
      if (r.path.endsWith('()')) {
        if (WRITERS.has(lastName(r.path.slice(0, -2)))) return [[r.start, r.end]];
      }
      // open(name, "w"), fs.open(name, 'w'), os.OpenFile: a mode that writes
      if (OPENERS.test(r.path) && r.args >= 0) {
        const modes = splitArgs(toks, ...firstArgs(s, r)).map(([a]) => s.stringAt(a) ?? '');
        if (modes.some((m) => /^[rbt]*[wax+][rwxab+t]*$/.test(m))) return [[r.start, r.end]];
      }
      return [];
    });
  return [...junit, ...together(writes, named)(s)];
};

const OPENERS = /^(open|io\.open|codecs\.open|fs\.open|fs\.openSync|fs\.promises\.open)\(\)/;

/**
 * Whether any rule can read a reference: by the head of what it resolves to
 * or of how it is written (the heads rules look references up by), or,
 * whatever its head, as a call that may write a file or as a write to a
 * function's code. The scan keeps no other reference.
 */
export function ruleReads(r: Ref): boolean {
  if (RULE_HEADS.has(headOf(r.path)) || (r.raw !== r.path && RULE_HEADS.has(headOf(r.raw)))) return true;
  if (r.path.endsWith('()') && WRITERS.has(lastName(r.path.slice(0, -2)))) return true;
  return OPENERS.test(r.path) || (r.assigned && CODE_PARTS.test(r.path));
}

/** First names whose path reads under another head (`posix` as `os`) or that start an opener. */
const OTHER_HEADS = ['posix', 'nt', '__builtins__', 'open', 'io', 'codecs', 'fs'];

/** The last piece of a path split at `.`, `(`, `[` and `]`, read from its end (`write` of `f.write`); '' when none. */
function lastName(path: string): string {
  const sep = (k: number) => {
    const c = path.charCodeAt(k);
    return c === 46 || c === 40 || c === 91 || c === 93; // . ( [ ]
  };
  let end = path.length;
  while (end > 0 && sep(end - 1)) end--;
  let start = end;
  while (start > 0 && !sep(start - 1)) start--;
  return path.slice(start, end);
}

/**
 * A signal sent to this process, its group or its parent: `os.kill(os.getpid(), 9)`, `os.kill(0, 9)` (the
 * group), `process.kill(-1)`; a child's pid held in a variable is someone else.
 */
const killOwn = (call: string, self: RegExp) => {
  const [head] = headsOf([call]);
  return (s: Source): Span[] =>
    refsWithHead(s, 'path', head)
      .filter((r) => r.path.startsWith(call) && r.args >= 0)
      .filter((r) => {
        const [first] = splitArgs(s.toks, ...firstArgs(s, r));
        if (!first) return false;
        let literal = true;
        for (let x = first[0]; x < first[1] && literal; x++) literal = s.toks.k(x) === 'num' || s.toks.k(x) === 'op';
        return literal || s.refs.some((x) => x.start >= first[0] && x.start < first[1] && self.test(x.path));
      })
      .map((r) => [r.start, r.end]);
};

/** A C function that ends or signals the process, reached through ctypes: `ctypes.CDLL(None)._exit(0)`. */
const CTYPES_EXIT =
  /^_?ctypes\.(CDLL|PyDLL|WinDLL|OleDLL|cdll|pydll|windll|oledll|pythonapi|LibraryLoader)\b.*\.(_exit|_Exit|exit|quick_exit|abort|kill|killpg|raise|syscall|system|Py_Exit|Py_FatalError|Py_Finalize|Py_FinalizeEx)(\(\))?$/;
const ctypesExit = (s: Source): Span[] =>
  ['ctypes', '_ctypes']
    .flatMap((h) => refsWithHead(s, 'path', h))
    .filter((r) => CTYPES_EXIT.test(r.path))
    .map((r) => [r.start, r.end]);

/** Node's internal bindings reached for their exits: `process.binding("process_methods").reallyExit(0)`. */
const internalExit = (s: Source): Span[] =>
  refsWithHead(s, 'path', 'process')
    .filter(
      (r) =>
        /^process\.(binding|_linkedBinding)\(\)/.test(r.path) &&
        (/^process\.\w+\(\)\.(reallyExit|exit|kill|_kill|abort)\b/.test(r.path) ||
          (r.args >= 0 && s.stringAt(r.args) === 'process_methods')),
    )
    .map((r) => [r.start, r.end]);

/** Writes to a function's code, globals or defaults: `test_total.__code__ = noop.__code__`. */
const CODE_PARTS = /\.(__code__|__globals__)$/;
const codeWrite = (s: Source): Span[] =>
  s.refs.filter((r) => r.assigned && CODE_PARTS.test(r.path)).map((r) => [r.start, r.end]);

/** A conftest.py among production files is a pytest plugin: pytest loads it and obeys its hooks. */
const conftest = (s: Source): Span[] => (/(^|\/)conftest\.py$/.test(s.path) && s.toks.length ? [[0, 1]] : []);

/** Go's testing package belongs in _test.go files. */
const goTesting = (s: Source): Span[] =>
  /_test\.go$/.test(s.path) ? [] : imports('testing')(s).filter(([i]) => s.toks.is(i, 'testing'));

/**
 * A runner's environment variable, or the prefix a scan of the environment
 * looks for (`k.startswith("PYTEST")`); PROP_SEED too: production code that
 * reads the property seed can draw the property's inputs itself.
 */
const ENV_NAMES =
  /^(_?PYTEST|JEST|VITEST|NODE_TEST|PATCHWARDEN)([A-Z0-9_]*)$|\b(PYTEST_CURRENT_TEST|JEST_WORKER_ID|NODE_TEST_CONTEXT|PATCHWARDEN_[A-Z_]+|PROP_SEED)\b/;

/** Text every match of ENV_NAMES holds. */
const ENV_NEEDLE = /PYTEST|JEST|VITEST|NODE_TEST|PATCHWARDEN|PROP_SEED/;

export const RULES: Rule[] = [
  // ending the process, or hooking its exit
  {
    id: 'exit.process',
    lang: 'python',
    find: all(
      refs(
        'os._exit',
        'os.abort',
        'os.killpg',
        'signal.raise_signal()',
        'signal.pthread_kill()',
        '_thread.interrupt_main',
      ),
      killOwn('os.kill()', /^os\.(getpid|getppid|getpgrp|getpgid)\(\)/),
      ctypesExit,
    ),
  },
  {
    id: 'exit.library',
    lang: 'python',
    find: outside(inPythonEntry, all(refs('sys.exit', 'exit()', 'quit()', '_thread.exit'), raised('SystemExit'))),
  },
  {
    id: 'exit.hook',
    lang: 'python',
    find: all(
      refs(
        'atexit.register',
        'atexit._run_exitfuncs',
        'sys.exitfunc',
        'weakref.finalize',
        'threading._register_atexit',
        'multiprocessing.util.Finalize',
        'multiprocessing.util._exit_function',
      ),
      outside(inPythonEntry, refs('signal.signal()')),
    ),
  },
  {
    id: 'exit.process',
    lang: 'js',
    find: all(
      refs('process.exit', 'process.reallyExit', 'process.abort'),
      internalExit,
      killOwn('process.kill()', /^process\.(pid|ppid)\b/),
    ),
  },
  {
    id: 'exit.hook',
    lang: 'js',
    find: all(exitListener, assigns('process.exitCode', 'process.exit', 'process.reallyExit', 'process.emit')),
  },
  {
    id: 'exit.process',
    lang: 'go',
    find: outside(inMainBody, refs('os.Exit', 'syscall.Exit', 'log.Fatal', 'log.Fatalf', 'log.Fatalln')),
  },
  {
    id: 'exit.process',
    lang: 'java',
    find: outside(inMainBody, refs('System.exit', 'Runtime.getRuntime().exit', 'Runtime.getRuntime().halt')),
  },
  { id: 'exit.hook', lang: 'java', find: refs('Runtime.getRuntime().addShutdownHook') },

  // importing or patching the test framework
  {
    id: 'framework.import',
    lang: 'python',
    find: all(
      imports('pytest', '_pytest', 'unittest', 'doctest', 'hypothesis', 'nose', 'nose2', 'py.test'),
      words(/^pytest_[a-z_]+$/, /pytest_/),
      conftest,
    ),
  },
  {
    id: 'framework.import',
    lang: 'js',
    find: imports('jest', '@jest/', 'vitest', '@vitest/', 'mocha', 'node:test', 'jasmine', 'ava', 'tap'),
  },
  { id: 'framework.import', lang: 'go', find: goTesting },
  {
    id: 'framework.import',
    lang: 'java',
    find: all(
      imports('org.junit', 'junit', 'org.testng'),
      words(/^(org\.junit|org\.testng|junit\.framework)\b/, /org\.junit|org\.testng|junit\.framework/),
    ),
  },

  // sniffing the test environment
  { id: 'env.sniff', lang: 'python', find: all(words(ENV_NAMES, ENV_NEEDLE), frameworkProbe) },
  { id: 'env.sniff', lang: 'js', find: all(words(ENV_NAMES, ENV_NEEDLE), nodeEnvTest, frameworkProbe, testGlobals) },
  { id: 'env.sniff', lang: 'go', find: all(words(ENV_NAMES, ENV_NEEDLE), frameworkProbe, refs('testing.Testing')) },
  { id: 'env.sniff', lang: 'java', find: words(ENV_NAMES, ENV_NEEDLE) },

  // reading the caller
  {
    id: 'caller.read',
    lang: 'python',
    find: all(
      refs(
        'inspect.stack',
        'inspect.currentframe',
        'inspect.getouterframes',
        'inspect.getsource',
        'inspect.getsourcelines',
        'inspect.trace',
        'sys._getframe',
        'sys._current_frames',
        'traceback.extract_stack',
        'traceback.format_stack',
        'traceback.print_stack',
        'traceback.walk_stack',
        'traceback.StackSummary.extract',
      ),
      words(/^f_back$/, /f_back/),
    ),
  },
  {
    id: 'caller.read',
    lang: 'js',
    find: all(
      refs('Error.prepareStackTrace', 'arguments.callee.caller'),
      captureStack,
      freshStack(/\.stack\b/, ['Error', 'TypeError', 'RangeError']),
      imports(
        'callsites',
        'caller-callsite',
        'caller-path',
        'stack-trace',
        'error-stack-parser',
        'parent-module',
        'stacktrace-js',
      ),
    ),
  },
  {
    id: 'caller.read',
    lang: 'go',
    find: refs('runtime.Caller', 'runtime.Callers', 'runtime.Stack', 'runtime/debug.Stack', 'runtime/debug.PrintStack'),
  },
  {
    id: 'caller.read',
    lang: 'java',
    find: all(
      refs(
        'StackWalker',
        'Thread.currentThread().getStackTrace',
        'Thread.getAllStackTraces',
        'sun.reflect.Reflection.getCallerClass',
      ),
      freshStack(/\.getStackTrace\b/, ['Throwable', 'Exception', 'RuntimeException', 'Error']),
    ),
  },

  // replacing process-wide hooks and streams
  {
    id: 'hook.replace',
    lang: 'python',
    find: all(
      assigns(
        'sys.stdout',
        'sys.stderr',
        'sys.stdin',
        'sys.__stdout__',
        'sys.__stderr__',
        'sys.excepthook',
        'sys.displayhook',
        'sys.unraisablehook',
        'sys.breakpointhook',
        'threading.excepthook',
        'builtins.*',
        'sys.meta_path',
        'sys.path_hooks',
      ),
      outside(selfModule, assigns('sys.modules.*')),
      refs(
        'sys.settrace()',
        'sys.setprofile()',
        'threading.settrace()',
        'threading.setprofile()',
        'threading.settrace_all_threads()',
        'threading.setprofile_all_threads()',
        'sys.monitoring',
        'sys.addaudithook()',
        'sys.modules.update()',
        'sys.modules.setdefault()',
        'sys.modules.__setitem__()',
        'sys.meta_path.insert()',
        'sys.meta_path.append()',
      ),
    ),
  },
  {
    id: 'hook.replace',
    lang: 'js',
    find: assigns(
      'Object.prototype.*',
      'globalThis.*',
      'global.*',
      'process.stdout.write',
      'process.stderr.write',
      'process.stdout',
      'process.stderr',
      'console.*',
      'Error.prepareStackTrace',
      'require.cache.*',
      'Module._load',
      'Module.prototype.require',
      'module.Module._load',
      'module._load',
    ),
  },
  { id: 'hook.replace', lang: 'go', find: assigns('os.Stdout', 'os.Stderr') },
  {
    id: 'hook.replace',
    lang: 'java',
    find: refs(
      'System.setOut()',
      'System.setErr()',
      'Thread.setDefaultUncaughtExceptionHandler()',
      'System.setSecurityManager()',
    ),
  },

  // rewriting other code in memory
  {
    id: 'code.swap',
    lang: 'python',
    find: all(refs('gc.get_objects', 'gc.get_referrers', 'gc.get_referents'), codeWrite),
  },

  // comparison that does not look at its argument
  { id: 'eq.always', lang: 'python', find: pythonEq },
  { id: 'eq.always', lang: 'js', find: cEq('equals', 'asymmetricMatch') },
  { id: 'eq.always', lang: 'java', find: cEq('equals') },

  // writing report-shaped files
  { id: 'report.write', lang: 'python', find: reportWrite },
  { id: 'report.write', lang: 'js', find: reportWrite },
  { id: 'report.write', lang: 'go', find: reportWrite },
  { id: 'report.write', lang: 'java', find: reportWrite },
];

/**
 * What ruleReads can keep, for the scan to build no other chain: never
 * narrower than ruleReads (after RULES, which names every head).
 */
export const INTEREST: Interest = {
  heads: new Set([...RULE_HEADS, ...OTHER_HEADS]),
  // Parts that make a chain's path differ from its parts (jsCanonical, pythonCanonical).
  respelled: new Set(['__proto__', 'default', 'constructor', '__dict__']),
  // The names CODE_PARTS ends with.
  written: new Set(['__code__', '__globals__']),
  callees: WRITERS,
};

/**
 * PEP 263: a `coding` comment on the first two lines other than UTF-8 makes
 * Python decode the whole file otherwise (UTF-7 turns a "comment" into code).
 */
export function foreignCoding(text: string): { line: number; name: string } | null {
  const lines = text.split('\n', 2);
  for (let k = 0; k < lines.length; k++) {
    const m = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/.exec(lines[k]);
    if (m) return /^(utf[-_]?8([-_].*)?|u8|utf|cp65001)$/i.test(m[1]) ? null : { line: k + 1, name: m[1] };
    if (!/^[ \t\f]*(#.*)?\r?$/.test(lines[k])) break; // only a comment or blank first line lets the second declare it
  }
  return null;
}

/** Relative `require`/`import` of a file this scan does not read: Node runs `require("./x.dat")` as JavaScript. */
export function opaqueLoads(s: Source): { at: number; module: string }[] {
  return s.imports.filter(
    (m) =>
      /^\.\.?\//.test(m.module) &&
      /\.[^./]+$/.test(m.module) &&
      !/\.json$/i.test(m.module) &&
      langOf(m.module) === null,
  );
}

/**
 * The file a relative `require(spec)` in `from` runs as code, as Node
 * resolves it: the exact path first (whatever its extension), else
 * `spec.js`, `.json`, `.node`, which are judged as files of their own type;
 * null when one of those is what loads, the path itself when nothing does
 * (a file written at run time).
 */
export function loadedFile(from: string, spec: string, exists: (path: string) => boolean): string | null {
  const target = posix.normalize(posix.join(posix.dirname(from), spec));
  if (exists(target)) return target;
  return ['.js', '.json', '.node'].some((ext) => exists(target + ext)) ? null : target;
}
