// TAP 13 and 14, as node's `--test-reporter=tap`, node-tap, Perl's prove and
// bats write it, read into the same test cases as a JUnit report. Only ever
// from a reporter's file: a command's standard output is shared with the code
// under test, which could print `ok` lines of its own.
//
// One pass over the bytes, no YAML library: a diagnostic block is read as
// the flat `key: value` lines the reporters write (quoted, plain or `|-`
// block scalars; nested values kept as text), so reading stays linear, and
// only the lines that may matter are ever decoded.
import { CannotJudge } from '../common/errors.js';
import type { FailureRecord, Report, TestCase } from './types.js';

const TEST_LINE = /^(\s*)(not )?ok\b(?:\s+(\d+))?(?:\s*-)?\s*(.*)$/;
const PLAN = /^(\s*)1\.\.(\d+)\b/;
const SUBTEST = /^\s*# Subtest:\s*(.*)$/;
const BAIL = /^\s*Bail out!\s*(.*)$/;

/** Whether a report's bytes are a TAP stream (by its first meaningful line), not XML. */
export function isTapStream(bytes: Buffer): boolean {
  const head = bytes.toString('utf8', 0, 4096).replace(/^\uFEFF/, '');
  const first = /^\s*(\S[^\n]*)/.exec(head)?.[1] ?? '';
  return /^(?:TAP version 1[34]\b|1\.\.\d|(?:not )?ok\b|# Subtest:)/.test(first);
}

/** A failing test's block and comments, kept until the next test line closes it. */
interface Failing {
  yaml: Map<string, string>;
  yamlText: string[];
  comments: string[];
}

// ASCII bytes the reader looks for.
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;

/** Whether the ASCII text `s` is at byte `i`, before `end`. */
function at(bytes: Buffer, i: number, end: number, s: string): boolean {
  if (i + s.length > end) return false;
  for (let k = 0; k < s.length; k++) if (bytes[i + k] !== s.charCodeAt(k)) return false;
  return true;
}

/** Whether bytes[from, to) hold no CR and no byte that may start U+2028 or U+2029 (0xE2). */
function plain(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] === CR || bytes[i] === 0xe2) return false;
  return true;
}

/** Whether byte `b` (when `present`) is an ASCII word character, as `\b` reads one. */
function word(b: number, present: boolean): boolean {
  return present && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f);
}

export interface TapReader {
  /** Reads the lines of bytes[start, end), each ending in a line feed; false once the stream is done (bailed out). */
  lines(bytes: Buffer, start: number, end: number): boolean;
  /** Reads the last line, bytes[start, end) (no line feed, possibly empty), and returns the report, or refuses a stream that is not whole. */
  finish(bytes: Buffer, start: number, end: number): Report;
}

/** Parses a whole TAP stream held in memory. */
export function parseTap(bytes: Buffer, file: string, failingOnly = false): Report {
  const reader = tapReader(file, failingOnly);
  const last = bytes.lastIndexOf(LF) + 1;
  reader.lines(bytes, 0, last);
  return reader.finish(bytes, last, bytes.length);
}

/**
 * A TAP stream read line by line as its bytes arrive (read.ts feeds it a
 * file chunk by chunk). A line is decoded only when it may matter: most of a
 * large stream is the tests' own output, passed over undecoded, and a test
 * that passed keeps no block, only whether it was a suite. `failingOnly`
 * (what signing reads) keeps the failing cases alone: a passing test is then
 * counted against its plan and nothing more.
 */
export function tapReader(file: string, failingOnly = false): TapReader {
  return new TapStream(file, failingOnly);
}

/** The reader's state between lines; its methods are the kinds of line. */
class TapStream implements TapReader {
  private readonly file: string;
  private readonly failingOnly: boolean;
  private readonly cases: TestCase[] = [];
  // The names announced by `# Subtest:` at each indent: a test's parents.
  // Most are never asked for (a test at indent 0 has none), so a name is
  // decoded only when a test below it is kept; until then `spans` holds where
  // it lies in `spanBytes` (start and end per level, start -1 once decoded),
  // the chunk being read, before which is let go every name is decoded.
  private readonly announced: string[] = [];
  private readonly spans: number[] = [];
  private spanBytes: Buffer | null = null;
  private readonly plans = new Map<number, number>();
  private readonly counted = new Map<number, number>();
  // The test line read last, until the next one (or the end) makes it a case.
  private open = false;
  private ok = false;
  private name = '';
  private directive: 'skip' | 'todo' | null = null;
  private suites: string[] = [];
  private suite = false;
  private failing: Failing | null = null;
  // The line after a test line may open its YAML block (`---`, two spaces in).
  private blockNext = false;
  private inYaml = false;
  private yamlIndent = 0;
  private blockKey: string | null = null;
  private blockIndent = -1;
  private blockFirst = false;
  private lineNo = 0;
  private bom = true;
  private done = false;

  constructor(file: string, failingOnly: boolean) {
    this.file = file;
    this.failingOnly = failingOnly;
  }

  lines(bytes: Buffer, start: number, end: number): boolean {
    for (let pos = start; pos < end && !this.done; ) {
      const lf = bytes.indexOf(LF, pos);
      this.line(bytes, pos, lf);
      pos = lf + 1;
    }
    this.decodeNames();
    return !this.done;
  }

  finish(bytes: Buffer, start: number, end: number): Report {
    const file = this.file;
    if (!this.done) this.line(bytes, start, end);
    if (this.done) return { file, cases: this.cases };
    this.flush();
    if (this.inYaml)
      throw new CannotJudge('a diagnostic block (---) is never closed (...): the stream was cut off', { file });
    for (const k of this.counted.keys()) checkPlan(this.plans, this.counted, k, file, this.lineNo);
    if (!this.plans.has(0) && this.counted.size)
      throw new CannotJudge('the TAP stream has no plan (1..N): it may have been cut off, so it is not read', {
        file,
      });
    return { file, cases: this.cases };
  }

  private decodeNames() {
    const { announced, spans } = this;
    for (let l = 0; l < announced.length; l++)
      if (spans[2 * l] >= 0) {
        announced[l] = this.spanBytes!.toString('utf8', spans[2 * l], spans[2 * l + 1]).trim();
        spans[2 * l] = -1;
      }
  }

  private flush() {
    if (this.open) {
      const c = toCase(this.ok, this.name, this.directive, this.suites, this.suite, this.failing);
      if (c && (!this.failingOnly || c.status === 'failed')) this.cases.push(c);
    }
    this.open = false;
    this.failing = null;
  }

  // A test line: the one before it made a case, this one counted against its plan.
  private test(indent: number, passed: boolean) {
    this.flush();
    const { counted, plans } = this;
    counted.set(indent, (counted.get(indent) ?? 0) + 1);
    // Deeper subtests end here, their plans checked (none where this indent is the only one counted).
    if (counted.size > 1)
      for (const k of counted.keys())
        if (k > indent) {
          checkPlan(plans, counted, k, this.file, this.lineNo);
          counted.delete(k);
          plans.delete(k);
        }
    this.ok = passed;
    this.open = !passed || !this.failingOnly;
    this.blockNext = true;
  }

  // A line of a failing test's block, decoded and read as `key: value`.
  private blockLine(f: Failing, bytes: Buffer, pos: number, first: number, lineEnd: number, indent: number) {
    const text = bytes.toString('utf8', pos, lineEnd);
    const yamlIndent = this.yamlIndent;
    if (indent === yamlIndent && text.trim() === '...') {
      this.inYaml = false;
      this.blockKey = null;
      return;
    }
    f.yamlText.push(text.slice(Math.min(indent, yamlIndent)));
    if (this.blockKey !== null && (first === lineEnd || indent > this.blockIndent)) {
      const body = text.slice(this.blockIndent + 2);
      f.yaml.set(this.blockKey, this.blockFirst ? body : `${f.yaml.get(this.blockKey)}\n${body}`);
      this.blockFirst = false;
      return;
    }
    this.blockKey = null;
    const kv = indent === yamlIndent ? /^\s*([\w-]+):(?:\s+(.*))?$/.exec(text) : null;
    if (kv) {
      const value = kv[2] ?? '';
      if (/^[|>][-+]?$/.test(value) || value === '') {
        this.blockKey = kv[1];
        this.blockIndent = yamlIndent;
        this.blockFirst = true;
        f.yaml.set(kv[1], '');
      } else f.yaml.set(kv[1], scalar(value));
    }
  }

  // A line that may be TAP, decoded: a bail out, a subtest, a plan, a test line, or a failing test's comment.
  private tapLine(bytes: Buffer, pos: number, lineEnd: number, indent: number, c: number) {
    const text = bytes.toString('utf8', pos, lineEnd);
    const bail = c === 0x42 ? BAIL.exec(text) : null;
    if (bail) {
      this.flush();
      // A stream that bailed out stopped: its unrun tests must not read as passes.
      this.cases.push(errorCase('Bail out!', bail[1] || 'the TAP stream bailed out', []));
      this.done = true;
      return;
    }
    const sub = c === HASH ? SUBTEST.exec(text) : null;
    if (sub) {
      this.flush();
      const level = Math.floor(indent / 4);
      this.announced.length = level;
      this.announced[level] = sub[1].trim();
      this.spans[level * 2] = -1;
      return;
    }
    const plan = c === 0x31 ? PLAN.exec(text) : null;
    if (plan) {
      this.plans.set(indent, Number(plan[2]));
      return;
    }
    const t = c === 0x6f || c === 0x6e ? TEST_LINE.exec(text) : null;
    if (t) {
      this.test(indent, !t[2]);
      if (!this.open) return;
      const d = description(t[4]);
      this.name = d.name;
      this.directive = d.directive;
      if (indent >= 4) this.decodeNames();
      this.suites = indent < 4 ? [] : this.announced.slice(0, Math.floor(indent / 4)).filter(Boolean);
      this.suite = false;
      this.failing = this.ok ? null : { yaml: new Map(), yamlText: [], comments: [] };
      return;
    }
    // Comments after a failing test line are its diagnostics (Test::More, bats).
    const comment = /^\s*#\s?(.*)$/.exec(text);
    if (comment && this.failing) this.failing.comments.push(comment[1]);
  }

  // One line, bytes[pos, end) without its line feed. Kept small, the rare
  // lines read by the methods above: this one runs for every line.
  private line(bytes: Buffer, pos: number, end: number) {
    this.lineNo++;
    if (this.bom) {
      this.bom = false;
      if (end - pos >= 3 && bytes[pos] === 0xef && bytes[pos + 1] === 0xbb && bytes[pos + 2] === 0xbf) pos += 3;
    }
    const lineEnd = end > pos && bytes[end - 1] === CR ? end - 1 : end;
    if (this.blockNext && this.opensBlock(bytes, pos, lineEnd, end)) return;
    let first = pos;
    while (first < end && (bytes[first] === SPACE || bytes[first] === TAB)) first++;
    const indent = first - pos;
    if (this.inYaml) {
      this.yamlLine(bytes, pos, first, lineEnd, end, indent);
      return;
    }
    const c = first < end ? bytes[first] : -1;
    // Only lines that start like TAP are read; a comment only after a failing test.
    if (c === HASH) {
      if (!at(bytes, first, end, '# Subtest:')) {
        if (this.failing) this.tapLine(bytes, pos, lineEnd, indent, c);
        return;
      }
      if (this.subtestSpan(bytes, first, lineEnd, indent)) return;
    } else if (c === 0x6f /* o */) {
      const passed =
        this.failingOnly &&
        bytes[first + 1] === 0x6b /* k */ &&
        !word(bytes[first + 2], first + 2 < lineEnd) &&
        plain(bytes, first + 2, lineEnd);
      if (passed) {
        this.test(indent, true);
        return;
      }
    } else if (c !== 0x6e /* n */ && c !== 0x31 /* 1 */ && c !== 0x42 /* B */) return;
    this.tapLine(bytes, pos, lineEnd, indent, c);
  }

  /** The line after a test line: whether it opens the test's YAML block (`---`). */
  private opensBlock(bytes: Buffer, pos: number, lineEnd: number, end: number): boolean {
    this.blockNext = false;
    let q = pos;
    while (q < lineEnd && bytes[q] === SPACE) q++;
    if (lineEnd - q !== 3 || !at(bytes, q, end, '---')) return false;
    this.inYaml = true;
    this.yamlIndent = q - pos;
    return true;
  }

  /** A line inside a YAML block. A passing test's block says nothing but whether it was a suite: passed over undecoded. */
  private yamlLine(bytes: Buffer, pos: number, first: number, lineEnd: number, end: number, indent: number) {
    if (this.failing) this.blockLine(this.failing, bytes, pos, first, lineEnd, indent);
    else if (indent === this.yamlIndent && lineEnd - first === 3 && at(bytes, first, end, '...')) this.inYaml = false;
    else if (indent === this.yamlIndent && at(bytes, first, end, "type: 'suite'")) this.suite = true;
  }

  /**
   * A `# Subtest:` line read from its bytes where nothing in it needs
   * decoding (no CR, no U+2028/U+2029 that would keep the patterns from
   * matching it): its name is kept as a span, decoded only when asked for.
   */
  private subtestSpan(bytes: Buffer, first: number, lineEnd: number, indent: number): boolean {
    if (!plain(bytes, first + 10, lineEnd)) return false;
    this.flush();
    // The names deeper than this one are dropped (the length left as is where it is already right).
    // A subtest is four spaces in per level; an odd indent counts as the level it reaches.
    const level = Math.floor(indent / 4);
    if (this.announced.length !== level + 1) this.announced.length = level;
    this.announced[level] = '';
    this.spans[level * 2] = first + 10;
    this.spans[level * 2 + 1] = lineEnd;
    this.spanBytes = bytes;
    return true;
  }
}

function checkPlan(
  plans: Map<number, number>,
  counted: Map<number, number>,
  indent: number,
  file: string,
  line: number,
) {
  const planned = plans.get(indent);
  const seen = counted.get(indent) ?? 0;
  if (planned !== undefined && planned !== seen)
    throw new CannotJudge(
      `the plan says 1..${planned} but ${seen} test line${seen === 1 ? '' : 's'} follow${seen === 1 ? 's' : ''}${indent ? ' in a subtest' : ''}: the stream is not whole`,
      { file, line },
    );
}

/** `name # SKIP why`, `# TODO`, `# time=12ms`: the name ends at the first unescaped `#` (`\#` is a literal one). */
function description(desc: string): { name: string; directive: 'skip' | 'todo' | null } {
  if (!desc.includes('#')) return { name: desc.trim(), directive: null };
  const m = /^((?:[^#\\]|\\.)*?)\s*#\s*(.*)$/.exec(desc);
  const name = (m ? m[1] : desc).replace(/\\#/g, '#').trim();
  const directive = m ? /^(SKIP|TODO)\b/i.exec(m[2])?.[1].toLowerCase() : undefined;
  return { name, directive: (directive as 'skip' | 'todo' | undefined) ?? null };
}

/** A YAML scalar as the reporters write it: single- or double-quoted, or plain. */
function scalar(v: string): string {
  if (v.startsWith("'") && v.endsWith("'") && v.length > 1) return v.slice(1, -1).replace(/''/g, "'");
  if (v.startsWith('"') && v.endsWith('"') && v.length > 1) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  return v;
}

function errorCase(name: string, message: string, suites: string[]): TestCase {
  return {
    name,
    classname: suites.join('.'),
    status: 'error',
    failures: [{ tag: 'error', type: '', message, text: message }],
    properties: [],
    systemOut: '',
    systemErr: '',
    suites,
  };
}

function toCase(
  ok: boolean,
  name: string,
  directive: 'skip' | 'todo' | null,
  suites: string[],
  suite: boolean,
  failing: Failing | null,
): TestCase | null {
  const y = failing?.yaml;
  // node: a suite (describe) and a parent whose subtests failed are no cases of their own; their tests are.
  if (suite || y?.get('type') === 'suite' || y?.get('failureType') === 'subtestsFailed') return null;
  // One literal, not a spread of a shared base: spreading 50,000 cases cost more than reading the stream.
  const status = directive === 'skip' ? 'skipped' : ok ? 'passed' : 'failed';
  return {
    name,
    classname: suites.join('.'),
    // A SKIP ran nothing. A failing TODO test still failed: judged like a failure, as node's JUnit reporter writes it.
    status,
    failures: status === 'failed' && failing ? [record(name, failing)] : [],
    properties: [],
    systemOut: '',
    systemErr: '',
    suites,
  };
}

/**
 * The failure as a JUnit reader would have it. node's YAML (error, code, name,
 * operator, stack) is laid out as its JUnit reporter prints the same error,
 * so one failure has one signature whichever reporter wrote it.
 */
function record(name: string, p: Failing): FailureRecord {
  const y = p.yaml;
  if (y.has('error') && y.has('failureType')) {
    const error = y.get('error')!;
    const code = y.get('code');
    const name = y.get('name') ?? 'Error';
    const tag = code && code !== 'ERR_TEST_FAILURE' ? ` [${code}]` : '';
    const stack = (y.get('stack') ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l) => `      at ${l}`);
    const inspected = ['code', 'operator'].flatMap((k) => (y.has(k) ? [`    ${k}: '${y.get(k)}',`] : []));
    const text = [
      `Error [ERR_TEST_FAILURE]: ${error}`,
      `  code: 'ERR_TEST_FAILURE',`,
      `  failureType: '${y.get('failureType')}',`,
      `  cause: ${name}${tag}: ${error.split('\n').join('\n  ')}`,
      ...stack,
      ...(inspected.length ? ['  {', ...inspected, '  }'] : []),
      '}',
    ].join('\n');
    return { tag: 'failure', type: y.get('failureType')!, message: error.replace(/\n/g, ''), text };
  }
  // node-tap and others: a message and a stack in the block, else the comments after the line.
  const message = y.get('message') ?? p.comments.find((c) => c.trim()) ?? name;
  const text = [...p.yamlText, ...p.comments].join('\n');
  return { tag: 'failure', type: '', message: message.trim(), text: text || message };
}
