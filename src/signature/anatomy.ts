// Takes a failure record apart: the exception that ended the test, its
// message, and the part of the text that holds its stack. Runners wrap the
// real failure differently; each wrapper is undone here.
import type { FailureRecord } from '../junit/types.js';

export interface Anatomy {
  /** Exception type as written (may be qualified), '' when none is named. */
  exc: string;
  /** The exception's message as the runner wrote it, before normalization. */
  message: string;
  /** Where the frames are read from. */
  trace: string;
}

// `Name: message` or `Name [CODE]: message` at the start of a line.
const HEADER =
  /^\s*(?:Uncaught |Error: |(?:OneTimeSetUp|SetUp|TearDown|OneTimeTearDown) ?: )?((?:[A-Za-z_$][\w$]*(?:\.|::|\\))*[A-Za-z_$][\w$]*(?:Error|Exception|Failure|Failed|Fault|Panic|Warning|Exit|Interrupt|Timeout|Rejection|Problem|Throwable|Unavailable)|Error|Failed|AssertionError|Exception)(?: \[([^\]]*)\])?(?: ?:(?: (.*))?)?$/;

/** The type a header names: node writes an error its runner rebuilt as `Error [InventoryError]`, a code as `Error [ERR_X]`. */
function headerType(h: RegExpExecArray): string {
  return h[1] === 'Error' && h[2] && /^[A-Za-z_$][\w$]*$/.test(h[2]) && !/^[A-Z0-9_]+$/.test(h[2]) ? h[2] : h[1];
}

export function anatomy(rec: FailureRecord): Anatomy {
  const text = rec.text;
  return (
    nodeCause(text) ??
    goTest(text) ??
    pythonE(rec) ??
    pythonTraceback(text || rec.message) ??
    jvmCaused(text) ??
    plain(rec)
  );
}

/**
 * Go's test output as gotestsum and go-junit-report keep it (`message="Failed"`,
 * no type): a `panic:` is the exception, its goroutine dump the trace; else
 * the test's own `file_test.go:N: text` lines are the message.
 */
function goTest(text: string): Anatomy | null {
  if (!/^(?:=== RUN|--- FAIL:)/m.test(text)) return null;
  const panic = /^panic: (.*?)(?: \[recovered\])?$/m.exec(text);
  if (panic) return { exc: 'panic', message: panic[1], trace: text.slice(panic.index) };
  const logged: string[] = [];
  for (const l of text.split('\n')) {
    if (/^ {4}\S+\.go:\d+: /.test(l)) logged.push(l.trim());
    else if (logged.length && /^ {8}/.test(l)) logged.push(l.trim());
  }
  return logged.length ? { exc: '', message: logged.join('\n'), trace: text } : null;
}

/** A Python traceback as Python prints it: the exception is its last unindented line. */
function pythonTraceback(text: string): Anatomy | null {
  if (!text.includes('Traceback (most recent call last):')) return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^([A-Za-z_][\w.]*)(?:: (.*))?$/.exec(lines[i]);
    if (m && (m[2] !== undefined || /(?:Error|Exception|Exit|Interrupt|Warning)$/.test(m[1]))) {
      return { exc: m[1], message: [m[2] ?? '', ...lines.slice(i + 1)].join('\n').trim(), trace: text };
    }
  }
  return null;
}

/** node's runner: `Error [ERR_TEST_FAILURE] ... cause: RealError: message` and the real stack. */
function nodeCause(text: string): Anatomy | null {
  if (!text.includes('ERR_TEST_FAILURE')) return null;
  const at = text.search(/^\s*cause: /m);
  if (at === -1) return null;
  const cause = text.slice(at).replace(/^\s*cause: /, '');
  const body = cause.split('\n');
  const first = body[0];
  const h = HEADER.exec(first);
  // The message runs up to the first stack line or the inspected properties.
  const end = body.findIndex((l, i) => i > 0 && /^\s*(?:at |\{$|[a-zA-Z]+: )/.test(l));
  const msgLines = [h ? (h[3] ?? '') : first, ...body.slice(1, end === -1 ? body.length : end)];
  return { exc: h ? headerType(h) : '', message: msgLines.join('\n').trim(), trace: cause };
}

/** pytest: the `E   ` lines hold the exception; the last block of them is the one raised. */
function pythonE(rec: FailureRecord): Anatomy | null {
  const lines = rec.text.split('\n');
  let block: string[] = [];
  let current: string[] = [];
  for (const l of lines) {
    const m = /^E {1,}(.*)$/.exec(l);
    if (m) current.push(m[1]);
    else if (current.length) {
      block = current;
      current = [];
    }
  }
  if (current.length) block = current;
  if (!block.length) return null;
  const lead = /^\s*([\w.]+): ?(.*)$/.exec(block[0]);
  const tail = /^\S.*?:\d+: ([\w.]+)$/m.exec(lines.filter((l) => /^\S.*?:\d+: [\w.]+$/.test(l)).pop() ?? '');
  if (lead && /^[A-Za-z_][\w.]*$/.test(lead[1]) && !/^assert\b/.test(block[0])) {
    return { exc: lead[1], message: [lead[2], ...block.slice(1)].join('\n'), trace: rec.text };
  }
  return {
    exc: tail?.[1] ?? (/^assert\b/.test(block[0]) ? 'AssertionError' : ''),
    message: block.join('\n'),
    trace: rec.text,
  };
}

/** JVM: the root cause (the last `Caused by:`) is the exception that explains the failure, unless an assertion wraps it. */
function jvmCaused(text: string): Anatomy | null {
  const parts = text.split(/^\s*Caused by: /m);
  if (parts.length < 2) return null;
  // An assertion that failed over a caught exception is the failure itself.
  const outer = /^\s*([\w.$]+)(?:: ([^\n]*))?/.exec(parts[0]);
  if (outer && /(?:Assertion|Comparison|ExpectationFailed)\w*(?:Error|Exception)$/.test(outer[1])) {
    return { exc: outer[1], message: (outer[2] ?? '') + messageContinuation(parts[0]), trace: text };
  }
  const root = parts[parts.length - 1];
  const first = root.split('\n')[0];
  const m = /^([\w.$]+)(?:: (.*))?$/.exec(first);
  // Frames of the root cause first, then of each wrapper outward.
  const trace = [...parts.slice(1).reverse(), parts[0]].join('\n');
  return { exc: m ? m[1] : '', message: m ? (m[2] ?? '') + messageContinuation(root) : first, trace };
}

function messageContinuation(section: string): string {
  const lines = section.split('\n').slice(1);
  const end = lines.findIndex((l) => /^\s*at |^\s*\.\.\. \d+ more/.test(l));
  const more = lines.slice(0, end === -1 ? lines.length : end).join('\n');
  return more.trim() ? '\n' + more : '';
}

/** Everything else: the `type` attribute, or a `Name: message` header in the text or message. */
function plain(rec: FailureRecord): Anatomy {
  const lines = rec.text.split('\n');
  const idx = lines.findIndex((l) => HEADER.test(l));
  if (idx !== -1 && idx < 5) {
    const h = HEADER.exec(lines[idx])!;
    const rest = lines.slice(idx + 1);
    const end = rest.findIndex((l) => /^\s*(?:at |#\d+ |File "|\d+: |goroutine |❯ )|^\s*\S+\.\w+:\d+\s*$/.test(l));
    const message = [h[3] ?? '', ...rest.slice(0, end === -1 ? rest.length : end)].join('\n').trim();
    return {
      exc: usefulType(rec.type) || headerType(h),
      message: message || rec.message,
      trace: rec.text || rec.message,
    };
  }
  const fromMessage = HEADER.exec(rec.message.split('\n')[0]);
  if (fromMessage && !usefulType(rec.type)) {
    return {
      exc: headerType(fromMessage),
      message: [fromMessage[3] ?? '', ...rec.message.split('\n').slice(1)].join('\n').trim(),
      trace: rec.text || rec.message,
    };
  }
  return {
    exc: usefulType(rec.type),
    message: rec.message || rec.text.split('\n').slice(0, 5).join('\n'),
    trace: rec.text || rec.message,
  };
}

/** A `type` attribute that names an exception, not a runner's category. */
function usefulType(type: string): string {
  const t = type.trim();
  if (
    !t ||
    /\s/.test(t) ||
    /^(?:testCodeFailure|hookFailure|failure|error|Failure|Error|AssertionFailure|exception|fail|FAIL|ERROR)$/.test(t)
  )
    return t === 'Error' ? 'Error' : '';
  return t;
}

/** The simple name of a possibly qualified exception type. */
export function simpleName(exc: string): string {
  return (
    exc
      .split(/\.|::|\\/)
      .filter(Boolean)
      .pop()
      ?.replace(/\$/g, '.') ?? ''
  );
}
