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

interface Pending {
  indent: number;
  ok: boolean;
  name: string;
  directive: 'skip' | 'todo' | null;
  yaml: Map<string, string>;
  yamlText: string[];
  comments: string[];
  suites: string[];
}

// ASCII bytes the loop looks for.
const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;

export function parseTap(bytes: Buffer, file: string): Report {
  const cases: TestCase[] = [];
  // The names announced by `# Subtest:` at each indent: a test's parents.
  const announced: string[] = [];
  const plans = new Map<number, number>();
  const counted = new Map<number, number>();
  let current: Pending | null = null;
  let inYaml = false;
  let yamlIndent = 0;
  let blockKey: string | null = null;
  let blockIndent = -1;
  let blockFirst = false;
  let lineNo = 0;
  const length = bytes.length;
  // Whether the ASCII text `s` is at byte `i`.
  const at = (i: number, s: string) => {
    if (i + s.length > length) return false;
    for (let k = 0; k < s.length; k++) if (bytes[i + k] !== s.charCodeAt(k)) return false;
    return true;
  };

  const flush = () => {
    if (current) {
      const c = toCase(current);
      if (c) cases.push(c);
    }
    current = null;
  };

  // Line by line over the bytes; a line is decoded only when it may matter
  // (most of a large stream is the tests' own output, passed over undecoded).
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let pos = bom; pos <= length; ) {
    let end = bytes.indexOf(LF, pos);
    if (end < 0) end = length;
    const next = end + 1;
    lineNo++;
    let first = pos;
    while (first < end && (bytes[first] === SPACE || bytes[first] === TAB)) first++;
    const indent = first - pos;
    const c = bytes[first];
    const lineEnd = end > pos && bytes[end - 1] === CR ? end - 1 : end;
    const p = current as Pending | null;
    if (inYaml && p?.ok) {
      // A passing test's block says nothing but whether it was a suite: passed over undecoded.
      pos = next;
      if (indent === yamlIndent && lineEnd - first === 3 && at(first, '...')) inYaml = false;
      else if (indent === yamlIndent && at(first, "type: 'suite'")) p.yaml.set('type', 'suite');
      continue;
    }
    if (inYaml && p) {
      const line = bytes.toString('utf8', pos, lineEnd);
      pos = next;
      if (indent === yamlIndent && line.trim() === '...') {
        inYaml = false;
        blockKey = null;
        continue;
      }
      p.yamlText.push(line.slice(Math.min(indent, yamlIndent)));
      if (blockKey !== null && (first === lineEnd || indent > blockIndent)) {
        const body = line.slice(blockIndent + 2);
        p.yaml.set(blockKey, blockFirst ? body : `${p.yaml.get(blockKey)}\n${body}`);
        blockFirst = false;
        continue;
      }
      blockKey = null;
      const kv = indent === yamlIndent ? /^\s*([\w-]+):(?:\s+(.*))?$/.exec(line) : null;
      if (kv) {
        const value = kv[2] ?? '';
        if (/^[|>][-+]?$/.test(value) || value === '') {
          blockKey = kv[1];
          blockIndent = yamlIndent;
          blockFirst = true;
          p.yaml.set(kv[1], '');
        } else p.yaml.set(kv[1], scalar(value));
      }
      continue;
    }
    // Only lines that start like TAP are read; a comment only after a failing test.
    const maybe =
      c === 0x6f /* o */ ||
      c === 0x6e /* n */ ||
      c === 0x31 /* 1 */ ||
      c === 0x42 /* B */ ||
      (c === HASH && ((p !== null && !p.ok) || at(first, '# Subtest:')));
    if (!maybe) {
      pos = next;
      continue;
    }
    const line = bytes.toString('utf8', pos, lineEnd);
    pos = next;
    const bail = c === 0x42 ? BAIL.exec(line) : null;
    if (bail) {
      flush();
      // A stream that bailed out stopped: its unrun tests must not read as passes.
      cases.push(errorCase('Bail out!', bail[1] || 'the TAP stream bailed out', []));
      return { file, cases };
    }
    const sub = c === HASH ? SUBTEST.exec(line) : null;
    if (sub) {
      flush();
      announced.length = indent / 4;
      announced[indent / 4] = sub[1].trim();
      continue;
    }
    const plan = c === 0x31 ? PLAN.exec(line) : null;
    if (plan) {
      plans.set(indent, Number(plan[2]));
      continue;
    }
    const t = c === 0x6f || c === 0x6e ? TEST_LINE.exec(line) : null;
    if (t) {
      flush();
      counted.set(indent, (counted.get(indent) ?? 0) + 1);
      for (const k of counted.keys())
        if (k > indent) {
          checkPlan(plans, counted, k, file, lineNo);
          counted.delete(k);
          plans.delete(k);
        }
      const { name, directive } = description(t[4]);
      current = {
        indent,
        ok: !t[2],
        name,
        directive,
        yaml: new Map(),
        yamlText: [],
        comments: [],
        suites: indent < 4 ? [] : announced.slice(0, Math.floor(indent / 4)).filter(Boolean),
      };
      // The YAML block opens on the next line, two spaces in from its test line.
      let q = next;
      while (bytes[q] === SPACE) q++;
      const after = q + 3 < length && bytes[q + 3] === CR ? q + 4 : q + 3;
      if (at(q, '---') && (after >= length || bytes[after] === LF)) {
        inYaml = true;
        yamlIndent = q - next;
        pos = after + 1;
        lineNo++;
      }
      continue;
    }
    // Comments after a failing test line are its diagnostics (Test::More, bats).
    const comment = /^\s*#\s?(.*)$/.exec(line);
    if (comment && current && !current.ok) current.comments.push(comment[1]);
  }
  flush();
  if (inYaml) throw new CannotJudge('a diagnostic block (---) is never closed (...): the stream was cut off', { file });
  for (const k of counted.keys()) checkPlan(plans, counted, k, file, lineNo);
  if (!plans.has(0) && counted.size)
    throw new CannotJudge('the TAP stream has no plan (1..N): it may have been cut off, so it is not read', { file });
  return { file, cases };
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

function toCase(p: Pending): TestCase | null {
  const y = p.yaml;
  // node: a suite (describe) and a parent whose subtests failed are no cases of their own; their tests are.
  if (y.get('type') === 'suite' || y.get('failureType') === 'subtestsFailed') return null;
  // One literal, not a spread of a shared base: spreading 50,000 cases cost more than reading the stream.
  const status = p.directive === 'skip' ? 'skipped' : p.ok ? 'passed' : 'failed';
  return {
    name: p.name,
    classname: p.suites.join('.'),
    // A SKIP ran nothing. A failing TODO test still failed: judged like a failure, as node's JUnit reporter writes it.
    status,
    failures: status === 'failed' ? [record(p)] : [],
    properties: [],
    systemOut: '',
    systemErr: '',
    suites: p.suites,
  };
}

/**
 * The failure as a JUnit reader would have it. node's YAML (error, code, name,
 * operator, stack) is laid out as its JUnit reporter prints the same error,
 * so one failure has one signature whichever reporter wrote it.
 */
function record(p: Pending): FailureRecord {
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
  const message = y.get('message') ?? p.comments.find((c) => c.trim()) ?? p.name;
  const text = [...p.yamlText, ...p.comments].join('\n');
  return { tag: 'failure', type: '', message: message.trim(), text: text || message };
}
