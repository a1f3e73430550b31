// The rules: what production code may not do to the process that tests it.
// One row per rule and language; each names what it matches after imports,
// aliases and string-spelled attributes are resolved (see scan.ts). The
// reasons and the real-world cases behind them are in docs/tamper.md.
import type { RuleId } from '../config/tamper-ids.js';
import type { Lang } from './lang.js';
import { splitArgs, type Ref, type Source, type Span } from './scan.js';

export type { RuleId } from '../config/tamper-ids.js';

/** What each rule guards against, in one sentence a refusal can print. */
export const WHY: Record<RuleId, string> = {
  'exit.process': 'ends the process from code under test, so the runner never reports what failed (an exit status of 0 reads as green)',
  'exit.library': 'leaves the process from library code, which a test run reads as the run ending, not as a failure',
  'exit.hook': 'runs code when the process exits, after the tests ran: the place to rewrite a report or the exit status',
  'framework.import': 'loads or extends the test framework, which can change how its own tests are collected and judged',
  'env.sniff': 'behaves differently when a test runner is watching, so the tests judge code that does not run in production',
  'caller.read': 'reads the caller\'s stack or source, the way code special-cases the test that calls it',
  'hook.replace': 'replaces a process-wide hook, stream or module table that the test runner relies on to see results',
  'eq.always': 'compares equal to anything, so every equality assertion on the object passes',
  'report.write': 'writes a file shaped like a test report (JUnit XML), which the runner or CI would read as the result',
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

/** A pattern matches a chain only for what the chain itself adds to a value its head holds. */
const own = (r: Ref, pat: string) => !r.held || !pathMatches(r.held, pat.replace(/\.\*$/, ''));
const refs = (...pats: string[]) => (s: Source): Span[] =>
  s.refs.filter((r) => pats.some((p) => pathMatches(r.path, p) && own(r, p))).map((r) => [r.start, r.end]);
const assigns = (...pats: string[]) => (s: Source): Span[] =>
  s.refs.filter((r) => r.assigned && pats.some((p) => (pathMatches(r.raw, p) || pathMatches(r.path, p)) && own(r, p))).map((r) => [r.start, r.end]);
const imports = (...mods: string[]) => (s: Source): Span[] =>
  s.imports.filter((m) => mods.some((x) => m.module === x || m.module.startsWith(x.endsWith('/') ? x : x + '.') || m.module.startsWith(x + '/'))).map((m) => [m.at, m.at + 1]);
/** Names and strings (not docstrings) matching a pattern. */
const words = (re: RegExp) => (s: Source): Span[] =>
  s.toks.flatMap((t, i): Span[] => ((t.k === 'id' || (t.k === 'str' && !isDocstring(s, i))) && re.test(t.v) ? [[i, i + 1]] : []));
const raised = (...pats: string[]) => (s: Source): Span[] => refs(...pats)(s).filter(([i]) => s.toks[i - 1]?.v === 'raise');
const all = (...finders: ((s: Source) => Span[])[]) => (s: Source): Span[] => finders.flatMap((f) => f(s));
/** Drops spans that start inside an allowed place (an entry point's body). */
const outside = (inside: (s: Source, i: number) => boolean, f: (s: Source) => Span[]) => (s: Source): Span[] =>
  f(s).filter(([i]) => !inside(s, i));

function isDocstring(s: Source, i: number): boolean {
  const st = s.stmts[s.stmtOf[i]];
  return st !== undefined && st[1] - st[0] === 1;
}

/** Statements holding both a match of `a` and one of `b`: spans of the `a` matches. */
const together = (a: (s: Source) => Span[], b: (s: Source) => Span[]) => (s: Source): Span[] => {
  const stmts = new Set(b(s).map(([i]) => s.stmtOf[i]));
  return a(s).filter(([i]) => stmts.has(s.stmtOf[i]));
};

// --- entry points, where leaving the process is the code's job ---

/** Python: `if __name__ == "__main__":` blocks, `def main()` bodies, `__main__.py`. */
function inPythonEntry(s: Source, i: number): boolean {
  if (/(^|\/)__main__\.py$/.test(s.path)) return true;
  const { toks, stmts } = s;
  const isEntry = (k: number) => {
    const [a, b] = stmts[k];
    const t = toks.slice(a, b).map((x) => (x.k === 'str' ? `'${x.v}'` : x.v));
    const head = t.join(' ');
    return /^if __name__ == '__main__' :|^if '__main__' == __name__ :/.test(head) || /^(async )?def _?main \(/.test(head);
  };
  let k = s.stmtOf[i];
  if (k < 0) return false;
  // The statement itself (`if __name__ == "__main__": sys.exit(main())`), then each enclosing block.
  if (isEntry(k)) return true;
  let col = toks[stmts[k][0]].col;
  for (k--; k >= 0 && col > 0; k--) {
    const first = toks[stmts[k][0]];
    if (first.col >= col) continue;
    col = first.col;
    if (isEntry(k)) return true;
  }
  return false;
}

/** Go and Java: the body of a function or method named main. */
function inMainBody(s: Source, i: number): boolean {
  const { toks } = s;
  for (let k = 0; k < toks.length; k++) {
    if (toks[k].v !== 'main' || toks[k].k !== 'id' || toks[k + 1]?.v !== '(') continue;
    let j = s.close(k + 1) + 1;
    while (j < toks.length && toks[j].v !== '{' && toks[j].v !== ';' && j - k < 40) j++;
    if (toks[j]?.v === '{' && i > j && i < s.close(j)) return true;
  }
  return false;
}

// --- rules that need more than a path ---

/** `sys.modules[__name__] = ...`: a module replacing itself (the lazy-module idiom), not another. */
function selfModule(s: Source, i: number): boolean {
  const t = s.toks;
  for (let j = i; j < i + 6 && j < t.length; j++) if (t[j].v === '[') return t[j + 1]?.v === '__name__' && t[j + 2]?.v === ']';
  return false;
}

/** `process.on('exit', ...)` and friends: the event named by a string. */
const exitListener = (s: Source): Span[] =>
  s.refs.filter((r) => ['process.on()', 'process.once()', 'process.addListener()', 'process.prependListener()', 'process.prependOnceListener()'].some((p) => r.path.startsWith(p)) && r.calls[0])
    .filter((r) => ['exit', 'beforeExit'].includes(s.stringAt(r.calls[0][0]) ?? '')).map((r) => [r.start, r.end]);

/** `NODE_ENV` in the same statement as a string naming the test environment. */
const nodeEnvTest = (s: Source): Span[] =>
  together(words(/^NODE_ENV$/), (x) => x.toks.flatMap((t, i): Span[] => (t.k === 'str' && /^test(ing)?$/i.test(t.v) ? [[i, i + 1]] : [])))(s);

/** The test framework named next to the module table or the command line: `"pytest" in sys.modules`. */
const frameworkProbe = (s: Source): Span[] =>
  together(
    refs('sys.modules', 'sys.argv', 'importlib.util.find_spec', 'pkgutil.find_loader', 'process.argv', 'process.execArgv', 'require.cache', 'require.resolve', 'os.Args', 'flag.Lookup', 'flag.CommandLine'),
    (x) => x.toks.flatMap((t, i): Span[] => (t.k === 'str' && /pytest|unittest|jest|vitest|mocha|node:test|^-?test\.|\.test$/i.test(t.v) ? [[i, i + 1]] : [])),
  )(s);

/** `typeof jest !== "undefined"`, `globalThis.describe`: the test runner's globals. */
const TEST_GLOBALS = /^(jest|vi|describe|it|test|expect|beforeEach|afterEach|beforeAll|afterAll|suite|mocha|jasmine)$/;
const testGlobals = (s: Source): Span[] => [
  ...s.toks.flatMap((t, i): Span[] => (t.k === 'id' && t.v === 'typeof' && s.toks[i + 1]?.k === 'id' && TEST_GLOBALS.test(s.toks[i + 1].v) ? [[i, i + 2]] : [])),
  ...s.refs.filter((r) => /^(globalThis|global|window|self)\.(\w+)/.test(r.raw) && TEST_GLOBALS.test(r.raw.split('.')[1].replace(/[([].*$/, ''))).map((r): Span => [r.start, r.end]),
];

/** `Error.captureStackTrace(obj)` on a plain object; error classes pass `this` or the constructor to hide. */
const captureStack = (s: Source): Span[] =>
  s.refs.filter((r) => r.path.startsWith('Error.captureStackTrace()') && r.calls[0] && s.toks[r.calls[0][0]]?.v !== 'this' && splitArgs(s.toks, r.calls[0][0], r.calls[0][1]).length < 2).map((r) => [r.start, r.end]);

/** `new Error().stack`, `(new Error).stack`, `const e = new Error(); e.stack`. */
const freshStack = (members: RegExp, ctors: RegExp) => (s: Source): Span[] => {
  const out: Span[] = s.refs.filter((r) => ctors.test(r.path) && members.test(r.path)).map((r) => [r.start, r.end]);
  const at = new Map(s.refs.map((r) => [r.start, r]));
  s.toks.forEach((t, i) => {
    if (t.v !== 'new' || t.k !== 'id') return;
    const r = at.get(i + 1);
    if (!r || !ctors.test(r.path.replace(/$/, '()'))) return;
    let j = r.end;
    if (s.toks[j]?.v === ')') j++;
    if (s.toks[j]?.v === '.' && members.test(`.${s.toks[j + 1]?.v}`) && j > r.end) out.push([i, j + 2]);
  });
  return out;
};

/** A comparison method whose body returns a constant: `def __eq__(self, o): return True`. */
const constantCompare = (methods: Record<string, RegExp>) => (s: Source): Span[] => {
  const { toks } = s;
  const out: Span[] = [];
  toks.forEach((t, i) => {
    if (t.k !== 'id' || !Object.hasOwn(methods, t.v)) return;
    const constant = methods[t.v];
    if (s.lang === 'python') {
      if (toks[i - 1]?.v === 'def' && toks[i + 1]?.v === '(') {
        if (pythonBodyReturns(s, s.close(i + 1) + 1, constant)) out.push([i - 1, i + 1]);
      } else if (toks[i + 1]?.v === '=' && toks[i + 2]?.v === 'lambda') {
        let j = i + 3;
        while (j < toks.length && toks[j].v !== ':' && toks[j].k !== 'nl') j++;
        if (constant.test(toks[j + 1]?.v ?? '') && toks[j + 1].k === 'id' && [',', ')', undefined, ''].includes(toks[j + 2]?.k === 'nl' ? '' : toks[j + 2]?.v)) out.push([i, j + 2]);
      }
      return;
    }
    // name(...) [: type | throws X] { return CONST ... } | name(...) => CONST | name = (...) => CONST
    let j = i + 1;
    if (toks[j]?.v === '=' || toks[j]?.v === ':') j++;
    if (toks[j]?.v === 'function') j++;
    if (toks[j]?.v !== '(') return;
    j = s.close(j) + 1;
    while (j < toks.length && !['{', '=>', ';'].includes(toks[j].v) && j - i < 40) j++;
    if (toks[j]?.v === '=>') {
      if (constant.test(toks[j + 1]?.v ?? '') && toks[j + 1].k !== 'str') out.push([i, j + 2]);
      if (toks[j + 1]?.v !== '{') return;
      j++;
    }
    if (toks[j]?.v === '{' && toks[j + 1]?.v === 'return' && constant.test(toks[j + 2]?.v ?? '') && toks[j + 2].k !== 'str' && [';', '}'].includes(toks[j + 3]?.v)) out.push([i, j + 3]);
  });
  return out;
};

/** The first statements of a Python body, up to the first that could branch: does it return the constant? */
function pythonBodyReturns(s: Source, colon: number, constant: RegExp): boolean {
  const { toks, stmts } = s;
  let j = colon;
  while (j < toks.length && !(toks[j].k === 'op' && toks[j].v === ':')) j++; // past `-> T`
  const header = s.stmtOf[j];
  const inline = toks[j + 1] && toks[j + 1].k !== 'nl';
  const returns = (k: number) => {
    const [a, b] = k === header ? [j + 1, stmts[k][1]] : stmts[k];
    return toks[a]?.v === 'return' && b - a === 2 && constant.test(toks[a + 1].v) && toks[a + 1].k !== 'str';
  };
  if (inline) return returns(header);
  const defCol = toks[stmts[header][0]].col;
  let bodyCol = -1;
  for (let k = header + 1; k < stmts.length; k++) {
    const [a, b] = stmts[k];
    const col = toks[a].col;
    if (col <= defCol) return false;
    if (bodyCol < 0) bodyCol = col;
    if (col > bodyCol) continue;
    if (b - a === 1 && toks[a].k === 'str') continue; // docstring
    if (returns(k)) return true;
    if (/^(if|elif|else|for|while|try|with|match|return|raise|assert|async|yield)$/.test(toks[a].v)) return false;
  }
  return false;
}

/** A string that names a test report, or a write of a file whose name looks like one. */
const REPORT_NAME = /junit|\.xml\b|test-results|surefire-reports/i;
const WRITERS = /^(write_text|write_bytes|writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|copyFile|copyFileSync|rename|renameSync|replace|move|copy|copyfile|copy2|WriteFile|Create|OpenFile|write|dump|writeString|newBufferedWriter|newOutputStream)$/;
const reportWrite = (s: Source): Span[] => {
  const { toks } = s;
  const named = (i: number) => (toks[i].k === 'str' ? !isDocstring(s, i) && REPORT_NAME.test(toks[i].v) : toks[i].k === 'id' && toks[i - 1]?.v !== '.' && s.textsAt(i).some((t) => REPORT_NAME.test(t)));
  const junit = toks.flatMap((t, i): Span[] => (t.k === 'str' && !isDocstring(s, i) && /junit/i.test(t.v) ? [[i, i + 1]] : []));
  const writes = (x: Source): Span[] => x.refs.flatMap((r): Span[] => {
    const last = r.path.replace(/\(\)$/, '').split(/[.([\]]+/).filter(Boolean).pop() ?? '';
    if (WRITERS.test(last) && r.path.endsWith('()')) return [[r.start, r.end]];
    // open(name, "w"), fs.open(name, 'w'), os.OpenFile: a mode that writes
    if (/^(open|io\.open|codecs\.open|fs\.open|fs\.openSync|fs\.promises\.open)\(\)/.test(r.path) && r.calls[0]) {
      const modes = splitArgs(toks, r.calls[0][0], r.calls[0][1]).map(([a]) => s.stringAt(a) ?? '');
      if (modes.some((m) => /^[rbt]*[wax+][rwxab+t]*$/.test(m))) return [[r.start, r.end]];
    }
    return [];
  });
  const names = (): Span[] => toks.flatMap((_, i): Span[] => (named(i) ? [[i, i + 1]] : []));
  return [...junit, ...together(writes, names)(s)];
};

/** A conftest.py among production files is a pytest plugin: pytest loads it and obeys its hooks. */
const conftest = (s: Source): Span[] => (/(^|\/)conftest\.py$/.test(s.path) && s.toks.length ? [[0, 1]] : []);

/** Go's testing package belongs in _test.go files. */
const goTesting = (s: Source): Span[] => (/_test\.go$/.test(s.path) ? [] : imports('testing')(s).filter(([i]) => s.toks[i].v === 'testing'));

const ENV_NAMES = /^(PYTEST_[A-Z_]*|_PYTEST_RAISE|JEST_WORKER_ID|VITEST[A-Z_]*|NODE_TEST_CONTEXT|PATCHWARDEN_[A-Z_]*)$|\b(PYTEST_CURRENT_TEST|JEST_WORKER_ID|NODE_TEST_CONTEXT|PATCHWARDEN_[A-Z_]+)\b/;

export const RULES: Rule[] = [
  // ending the process, or hooking its exit
  { id: 'exit.process', lang: 'python', find: all(refs('os._exit', 'os.abort', 'signal.raise_signal()'), together(refs('os.kill()'), refs('os.getpid()'))) },
  { id: 'exit.library', lang: 'python', find: outside(inPythonEntry, all(refs('sys.exit', 'exit()', 'quit()'), raised('SystemExit'))) },
  { id: 'exit.hook', lang: 'python', find: refs('atexit.register', 'atexit._run_exitfuncs', 'sys.exitfunc') },
  { id: 'exit.process', lang: 'js', find: all(refs('process.exit', 'process.reallyExit', 'process.abort'), together(refs('process.kill()'), refs('process.pid'))) },
  { id: 'exit.hook', lang: 'js', find: all(exitListener, assigns('process.exitCode', 'process.exit', 'process.reallyExit', 'process.emit')) },
  { id: 'exit.process', lang: 'go', find: outside(inMainBody, refs('os.Exit', 'syscall.Exit', 'log.Fatal', 'log.Fatalf', 'log.Fatalln')) },
  { id: 'exit.process', lang: 'java', find: outside(inMainBody, refs('System.exit', 'Runtime.getRuntime().exit', 'Runtime.getRuntime().halt')) },
  { id: 'exit.hook', lang: 'java', find: refs('Runtime.getRuntime().addShutdownHook') },

  // importing or patching the test framework
  { id: 'framework.import', lang: 'python', find: all(imports('pytest', '_pytest', 'unittest', 'nose', 'nose2', 'py.test'), words(/^pytest_[a-z_]+$/), conftest) },
  { id: 'framework.import', lang: 'js', find: imports('jest', '@jest/', 'vitest', '@vitest/', 'mocha', 'node:test', 'jasmine', 'ava', 'tap') },
  { id: 'framework.import', lang: 'go', find: goTesting },
  { id: 'framework.import', lang: 'java', find: all(imports('org.junit', 'junit', 'org.testng'), words(/^(org\.junit|org\.testng|junit\.framework)\b/)) },

  // sniffing the test environment
  { id: 'env.sniff', lang: 'python', find: all(words(ENV_NAMES), frameworkProbe) },
  { id: 'env.sniff', lang: 'js', find: all(words(ENV_NAMES), nodeEnvTest, frameworkProbe, testGlobals) },
  { id: 'env.sniff', lang: 'go', find: all(words(ENV_NAMES), frameworkProbe, refs('testing.Testing')) },
  { id: 'env.sniff', lang: 'java', find: words(ENV_NAMES) },

  // reading the caller
  { id: 'caller.read', lang: 'python', find: all(refs('inspect.stack', 'inspect.currentframe', 'inspect.getouterframes', 'inspect.getsource', 'inspect.getsourcelines', 'inspect.trace', 'sys._getframe', 'sys._current_frames', 'traceback.extract_stack', 'traceback.format_stack', 'traceback.print_stack', 'traceback.walk_stack', 'traceback.StackSummary.extract'), words(/^f_back$/)) },
  { id: 'caller.read', lang: 'js', find: all(refs('Error.prepareStackTrace', 'arguments.callee.caller'), captureStack, freshStack(/\.stack\b/, /^(Error|TypeError|RangeError)\(\)/), imports('callsites', 'caller-callsite', 'caller-path', 'stack-trace', 'error-stack-parser', 'parent-module', 'stacktrace-js')) },
  { id: 'caller.read', lang: 'go', find: refs('runtime.Caller', 'runtime.Callers', 'runtime.Stack', 'runtime/debug.Stack', 'runtime/debug.PrintStack') },
  { id: 'caller.read', lang: 'java', find: all(refs('StackWalker', 'Thread.currentThread().getStackTrace', 'Thread.getAllStackTraces', 'sun.reflect.Reflection.getCallerClass'), freshStack(/\.getStackTrace\b/, /^(Throwable|Exception|RuntimeException|Error)\(\)/)) },

  // replacing process-wide hooks and streams
  { id: 'hook.replace', lang: 'python', find: all(
    assigns('sys.stdout', 'sys.stderr', 'sys.stdin', 'sys.__stdout__', 'sys.__stderr__', 'sys.excepthook', 'sys.displayhook', 'sys.unraisablehook', 'sys.breakpointhook', 'threading.excepthook', 'builtins.*', 'sys.meta_path', 'sys.path_hooks'),
    (s) => assigns('sys.modules.*')(s).filter(([i]) => !selfModule(s, i)),
    refs('sys.settrace()', 'sys.setprofile()', 'threading.settrace()', 'threading.setprofile()', 'sys.addaudithook()', 'sys.modules.update()', 'sys.modules.setdefault()', 'sys.modules.__setitem__()', 'sys.meta_path.insert()', 'sys.meta_path.append()'),
  ) },
  { id: 'hook.replace', lang: 'js', find: assigns('Object.prototype.*', 'globalThis.*', 'global.*', 'process.stdout.write', 'process.stderr.write', 'process.stdout', 'process.stderr', 'console.*', 'Error.prepareStackTrace', 'require.cache.*', 'Module._load', 'Module.prototype.require', 'module.Module._load', 'module._load') },
  { id: 'hook.replace', lang: 'go', find: assigns('os.Stdout', 'os.Stderr') },
  { id: 'hook.replace', lang: 'java', find: refs('System.setOut()', 'System.setErr()', 'Thread.setDefaultUncaughtExceptionHandler()', 'System.setSecurityManager()') },

  // comparison that cannot fail
  { id: 'eq.always', lang: 'python', find: constantCompare({ __eq__: /^True$/, __ne__: /^False$/ }) },
  { id: 'eq.always', lang: 'js', find: constantCompare({ equals: /^true$/, asymmetricMatch: /^true$/ }) },
  { id: 'eq.always', lang: 'java', find: constantCompare({ equals: /^true$/ }) },

  // writing report-shaped files
  { id: 'report.write', lang: 'python', find: reportWrite },
  { id: 'report.write', lang: 'js', find: reportWrite },
  { id: 'report.write', lang: 'go', find: reportWrite },
  { id: 'report.write', lang: 'java', find: reportWrite },
];
