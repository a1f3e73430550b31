// Stack frames out of the trace text runners put in a failure: Python (pytest
// long/short/native styles), V8, JVM (Java, Kotlin, Scala), Go, Rust, PHP,
// .NET and Ruby. A frame is a function name and the file it lives in; the
// file decides whether the frame is the project's, and the line only finds
// the asserting expression in a test file (sign.ts): neither enters a hash.

export interface Frame {
  fn: string;
  /** Forward slashes; null when the trace names no file (then it cannot be the project's). */
  file: string | null;
  /** The line in that file, where the trace gives one, and the column where it gives that too. */
  line?: number;
  column?: number;
  /** The source line as the trace quotes it (Python's tracebacks do). */
  src?: string;
  /** The qualified type the function belongs to, where the runtime names it by namespace (.NET). */
  owner?: string;
  /** The trace gave a path and a line only; `fn` is the file's class, refined from the source where it is there. */
  pathOnly?: true;
}

/** Frames of one trace, innermost first. */
export function extractFrames(trace: string): Frame[] {
  const lines = trace.split('\n');
  for (const { read, needle } of READERS) {
    if (needle !== null && !trace.includes(needle)) continue;
    const frames = read(lines);
    if (frames.length) return frames;
  }
  return [];
}

type Reader = (lines: string[]) => Frame[];

/** Answers kept per line reader: a bound on what a report of unique lines holds. */
const LINES_KEPT = 10_000;

/**
 * A reader whose frames each sit on one line. A report's failures share
 * most of their frames (the same helpers, the same runner), so a line is
 * read once and its frame (or none) kept by its text; frames are never
 * changed once read.
 */
function lineByLine(frame: (line: string) => Frame | null): Reader {
  const known = new Map<string, Frame | null>();
  return (lines) => {
    const out: Frame[] = [];
    for (const l of lines) {
      let f = known.get(l);
      if (f === undefined) {
        f = frame(l);
        if (known.size === LINES_KEPT) known.clear();
        known.set(l, f);
      }
      if (f) out.push(f);
    }
    return out;
  };
}

const slash = (p: string) => p.replace(/\\/g, '/');

// Python, `--tb=native` and plain tracebacks: `File "x.py", line 3, in name`
// and the source line under it; outermost first.
const pythonNative: Reader = (lines) => {
  const out: Frame[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*File "([^"]+)", line (\d+), in (\S+)/.exec(lines[i]);
    if (m) out.push({ fn: m[3], file: slash(m[1]), line: Number(m[2]), ...quoted(lines[i + 1]) });
  }
  return out.reverse();
};

/** A source line a Python trace quotes under a location (indented, not another location). */
function quoted(l: string | undefined): { src?: string } {
  return l !== undefined && /^\s+\S/.test(l) && !/^\s*File "/.test(l) ? { src: l.trim() } : {};
}

// pytest's own styles, in one pass because `--tb=auto` mixes them: a short
// frame is `x.py:3: in name` and its source line; a long one is the
// function's source from its `def` line, the failing line marked `>`, closed
// by `x.py:3: ` or `x.py:3: ExcType`. Outermost first.
const pytest: Reader = (lines) => {
  const out: Frame[] = [];
  let fn: string | null = null;
  let failing: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const short = /^(\S.*?):(\d+): in (\S+)$/.exec(l);
    if (short) {
      out.push({ fn: short[3], file: slash(short[1]), line: Number(short[2]), ...quoted(lines[i + 1]) });
      fn = null;
      failing = undefined;
      continue;
    }
    const def = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/.exec(l);
    if (def && fn === null) fn = def[1];
    if (/^>\s/.test(l)) failing = l.slice(1).trim();
    const loc = /^([^\s>E].*?\.pyx?):(\d+):(?: (?:[\w.]+)?)?$/.exec(l);
    if (loc) {
      out.push({
        fn: fn ?? '<module>',
        file: slash(loc[1]),
        line: Number(loc[2]),
        ...(failing ? { src: failing } : {}),
      });
      fn = null;
      failing = undefined;
    }
  }
  return out.reverse();
};

// V8: `    at name (file:1:2)`, `    at file:1:2`, `at async name (...)`, `at new Name (...)`.
const v8 = lineByLine((l) => {
  const m = /^\s*at (?:async )?(?:new )?(?:(.+?) \((.+?)(?::(\d+))?(?::(\d+))?\)|(.+?):(\d+)(?::(\d+))?)\s*$/.exec(l);
  if (!m) return null;
  if (m[1] !== undefined) return { fn: jsName(m[1]), file: jsFile(m[2]), ...lineOf(m[3], m[4]) };
  if (/\.(?:[cm]?[jt]sx?|vue|svelte)$/.test(m[5]))
    return { fn: '<anonymous>', file: jsFile(m[5]), ...lineOf(m[6], m[7]) };
  return null;
});

// vitest: `❯ name file:L:C` or `❯ file:L:C`; innermost first.
const vitest = lineByLine((l) => {
  const m = /^\s*❯ (?:(.+?) )?(\S+?):(\d+)(?::(\d+))?\s*$/.exec(l);
  return m ? { fn: m[1] ? jsName(m[1]) : '<anonymous>', file: jsFile(m[2]), ...lineOf(m[3], m[4]) } : null;
});

function lineOf(n: string | undefined, col?: string): { line?: number; column?: number } {
  return n ? { line: Number(n), ...(col ? { column: Number(col) } : {}) } : {};
}

function jsName(name: string): string {
  let n = name
    .replace(/ \[as [^\]]+\]$/, '')
    .replace(/^Object\./, '')
    .replace(/^(?:async|new) /, '');
  if (n === '<anonymous>' || n === 'Object.<anonymous>' || n === '') n = '<anonymous>';
  return n;
}

function jsFile(loc: string): string | null {
  if (/^(?:node:|internal\/|native$|<anonymous>$)/.test(loc)) return null;
  return slash(
    loc
      .replace(/^file:\/\//, '')
      .replace(/^webpack:\/\/[^/]*\//, '')
      .replace(/\?.*$/, '')
      .replace(/:\d+(?::\d+)?$/, ''),
  );
}

// JVM: `\tat com.acme.Bill.total(Bill.java:12)`; innermost first, `Caused by:` sections after.
const jvm = lineByLine((l) => {
  const m =
    /^\s*at (?:[\w.$-]+\/)*([\w$.<>]+)\.([\w$<> -]+)\(([\w$-]+\.\w+(?::\d+)?|Unknown Source(?::\d+)?|Native Method|Compiled Code)\)/.exec(
      l,
    );
  if (!m) return null;
  const cls = m[1];
  const file = /^([\w$-]+\.(?:java|kt|kts|scala|groovy|clj)):?(\d*)$/.exec(m[3]);
  const pkg = cls.includes('.') ? cls.slice(0, cls.lastIndexOf('.')).replace(/\./g, '/') + '/' : '';
  const simple = cls.slice(cls.lastIndexOf('.') + 1);
  return { fn: jvmName(simple, m[2]), file: file ? pkg + file[1] : null, ...lineOf(file?.[2]) };
});

function jvmName(cls: string, method: string): string {
  // Lambdas and anonymous classes carry counters that move when code is added.
  const m = /^lambda\$(.+?)\$\d+$/.exec(method);
  return `${cls.replace(/\$\d+/g, '$<n>')}.${m ? `${m[1]}.lambda` : method}`;
}

// Go: `pkg/path.Func(...)` then `\t/abs/file.go:12 +0x1d`; innermost first.
const go: Reader = (lines) => {
  const out: Frame[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const fn = /^(\S+?)\((?:[^()]|\.\.\.)*\)$/.exec(lines[i].trim());
    const file = /^\s+(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$/.exec(lines[i + 1]);
    if (fn && file && !lines[i].startsWith(' ')) {
      out.push({
        fn: goName(fn[1]),
        file: GO_STD.test(fn[1]) || !/[./]/.test(fn[1]) ? null : slash(file[1]),
        line: Number(file[2]),
      });
      i++;
    }
  }
  return out;
};

// The standard library, the runtime and builtins (panic), whose sources sit in GOROOT/src.
const GO_STD =
  /^(?:runtime|testing|reflect|sync|syscall|os|fmt|internal|net|io|encoding|strings|strconv|sort|time|context|errors|bufio|bytes|log|math|panic)[./]/;

function goName(name: string): string {
  // github.com/acme/bill.(*Bill).Total.func1 -> (*Bill).Total.func<n>
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  return (dot === -1 ? base : base.slice(dot + 1))
    .replace(/\.func\d+/g, '.func<n>')
    .replace(/\.gowrap\d+/g, '.gowrap<n>');
}

// Rust backtraces: `  12: crate::module::func` then `at ./src/file.rs:3:5`; innermost first.
const rust: Reader = (lines) => {
  const out: Frame[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fn = /^\s*\d+: (?:0x[0-9a-f]+ - )?(.+?)(?:::h[0-9a-f]{16})?$/.exec(lines[i]);
    if (!fn) continue;
    const at = /^\s+at (.+?\.rs):\d+(?::\d+)?$/.exec(lines[i + 1] ?? '');
    out.push({ fn: rustName(fn[1]), file: at ? slash(at[1]) : null });
    if (at) i++;
  }
  return out;
};

function rustName(path: string): string {
  const parts = path
    .replace(/<[^<>]*>/g, (m) => m.replace(/::/g, '.'))
    .split('::')
    .filter((p) => p !== '{{closure}}');
  const last = parts[parts.length - 1] ?? path;
  const owner = parts[parts.length - 2];
  return owner && /^[A-Z<]/.test(owner) ? `${owner}::${last}` : last;
}

// PHP: `#0 /src/Bill.php(12): Acme\Tax->rate()`: the call made at that line.
// The function running at a line is the one the next frame called, and the
// innermost one runs where the exception says it was thrown (`in file:line`).
const php: Reader = (lines) => {
  const calls: { file: string; call: string }[] = [];
  let thrownIn: string | null = null;
  for (const l of lines) {
    const h = /(?:thrown )?in (\S+\.php)(?::|\(| on line )\d+/.exec(l);
    if (h && thrownIn === null && !/^#\d/.test(l.trim())) thrownIn = slash(h[1]);
    const m = /^\s*#\d+ (.+?\.php)\(\d+\): (.+?)\(/.exec(l);
    if (m) calls.push({ file: slash(m[1]), call: m[2] });
  }
  const out: Frame[] = [];
  for (let k = 0; k < calls.length; k++) {
    const file = k === 0 ? thrownIn : calls[k - 1].file;
    out.push({ fn: phpName(calls[k].call), file });
  }
  return out;
};

// PHPUnit 9: path-only lines, `/src/Bill.php:28`, innermost first; PSR-4 names a file after its class.
const phpPaths = lineByLine((l) => {
  const m = /^\s*((?:[A-Za-z]:)?[^\s:]*?([\w-]+)\.php):(\d+)\s*$/.exec(l);
  return m ? { fn: m[2], file: slash(m[1]), line: Number(m[3]), pathOnly: true } : null;
});

/** The method a line of PHP source sits in, `Class::method`; null outside one. */
export function phpMethodAt(source: string, cls: string, line: number): string | null {
  const lines = source.split(/\r?\n/);
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const m = /\bfunction\s+&?\s*([A-Za-z_]\w*)\s*\(/.exec(lines[i]);
    if (m) return `${cls}::${m[1]}`;
  }
  return null;
}

function phpName(call: string): string {
  return call.replace(/^.*\\/, '').replace(/\{closure[^}]*\}/, '{closure}');
}

// .NET: `   at Acme.Bill.Total(Int32 x) in /src/Bill.cs:line 12`; innermost first.
const dotnet = lineByLine((l) => {
  const m = /^\s*at ([\w.`<>$+|[\],]+?)\.([\w<>`$|]+)(?:\[[^\]]*\])?\([^)]*\)(?: in (.+?):line (\d+))?\s*$/.exec(l);
  if (!m) return null;
  const cls = m[1].slice(m[1].lastIndexOf('.') + 1);
  // async state machines: <Total>d__3.MoveNext -> Total
  const sm = /^<(\w+)>d__\d+$/.exec(cls);
  return {
    fn: sm ? sm[1] : `${cls}.${m[2]}`,
    file: m[3] ? slash(m[3]) : null,
    owner: m[1].replace(/\+.*$/, ''),
    ...lineOf(m[4]),
  };
});

// Ruby: `/app/models/bill.rb:12:in 'Bill#total'` (or a backquote); innermost first.
const ruby = lineByLine((l) => {
  const m = /^\s*(?:#\s*)?(\S+?\.rb):\d+:in [`']([^']+)'/.exec(l);
  return m ? { fn: m[2].replace(/^(?:block|rescue|ensure) (?:\(\d+ levels\) )?in /, ''), file: slash(m[1]) } : null;
});

// Most specific shapes first: each trace is one runtime's. Each with the
// text every frame of its shape holds: a trace without it is not read line
// by line for frames it cannot have.
const READERS: { read: Reader; needle: string | null }[] = [
  { read: pythonNative, needle: 'File "' },
  { read: jvm, needle: 'at ' },
  { read: dotnet, needle: 'at ' },
  { read: v8, needle: 'at ' },
  { read: vitest, needle: '❯ ' },
  { read: go, needle: '.go:' },
  { read: rust, needle: null },
  { read: php, needle: '.php(' },
  { read: phpPaths, needle: '.php:' },
  { read: ruby, needle: '.rb:' },
  { read: pytest, needle: null },
];
