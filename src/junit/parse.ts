// Parses a JUnit XML report as real runners write it into a Report: nested
// testsuites, failure/error/skipped, system-out/err, properties and Surefire's
// rerun and flaky records. The text is checked for well-formedness first
// (wellformed.ts), then fast-xml-parser builds the tree with entity processing
// off: the only references left are the five predefined ones and character
// references, decoded here.
import { XMLParser } from 'fast-xml-parser';
import { CannotJudge } from '../common/errors.js';
import { checkWellFormed, type StartRule } from './wellformed.js';
import { isTapStream, parseTap } from './tap.js';
import type { FailureRecord, Report, TestCase } from './types.js';

/** Surefire's records of earlier runs, after the primary failure or error. */
const RERUN_TAGS = ['rerunFailure', 'rerunError', 'flakyFailure', 'flakyError'] as const;
const LISTS = new Set([
  'testsuites',
  'testsuite',
  'testcase',
  'failure',
  'error',
  'skipped',
  'system-out',
  'system-err',
  'properties',
  'property',
  ...RERUN_TAGS,
  'stackTrace',
]);

const TEXT = '#text';
const CDATA = '#cdata';
const AT = '@_';
/** Elements whose content is taken raw, not parsed: the bulk of a big report, decoded once here. */
const RAW = ['system-out', 'system-err', 'failure', 'error'];

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: AT,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  cdataPropName: CDATA,
  stopNodes: RAW.map((tag) => `*.${tag}`),
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => LISTS.has(name),
  maxNestedTags: 1000,
});

type Node = Record<string, unknown>;

const SUITES = new Set(['testsuites', 'testsuite']);
const RECORDS = new Set(['failure', 'error', ...RERUN_TAGS]);
const RAW_SET = new Set(RAW);

/**
 * A report is read whole or refused: a test case or a failure the walk below
 * would never reach (inside another test case, or inside an element a JUnit
 * report does not have there) was silently skipped, and a failing case
 * skipped reads as a pass.
 */
const whole: StartRule = (name, open) => {
  if (open.some((o) => RAW_SET.has(o))) return null; // text to the parser, however it looks
  const parent = open[open.length - 1];
  if (name === 'testcase') {
    if (open.includes('testcase')) return 'a <testcase> inside another <testcase>: its result would never be read';
    const odd = open.find((o) => !SUITES.has(o));
    return odd
      ? `a <testcase> inside <${odd}>, which a JUnit report does not have there: its result would never be read`
      : null;
  }
  if (RECORDS.has(name) && parent !== undefined && parent !== 'testcase' && !SUITES.has(parent)) {
    return `a <${name}> inside <${parent}>, which a JUnit report does not have there: the failure would never be read`;
  }
  return null;
};

/** Parses report text, JUnit XML or a TAP stream; `file` names it in messages and in the Report. */
export function parseReport(input: string | Buffer, file: string): Report {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  if (isTapStream(bytes)) return parseTap(bytes, file);
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  checkWellFormed(text, file, whole);
  let tree: Node;
  try {
    tree = parser.parse(text) as Node;
  } catch (err) {
    throw new CannotJudge(`not a readable XML report: ${(err as Error).message.split('\n')[0]}`, { file });
  }
  const cases: TestCase[] = [];
  if (tree.testsuites === undefined && tree.testsuite === undefined) {
    const root = Object.keys(tree).find((k) => !k.startsWith('#') && !k.startsWith('?'));
    throw new CannotJudge(`not a JUnit report: the root element is <${root}>, not <testsuites> or <testsuite>`, {
      file,
    });
  }
  for (const t of list(tree.testsuites)) walk(asNode(t), [], cases);
  for (const t of list(tree.testsuite)) walk(asNode(t), [attr(t, 'name')], cases);
  return { file, cases };
}

/** Collects the cases of a suite element (`suites`: its own name and its parents'), depth first. */
function walk(suite: Node, suites: string[], cases: TestCase[]): void {
  for (const tc of list(suite.testcase)) cases.push(testCase(asNode(tc), suites));
  // A suite-level <failure>/<error> (a class that failed to load) has no testcase: keep it as one.
  const suiteLevel = [
    ...list(suite.failure).map((n) => record('failure', n)),
    ...list(suite.error).map((n) => record('error', n)),
  ];
  if (suiteLevel.length) {
    const name = attr(suite, 'name');
    cases.push({
      name: name || '(suite)',
      classname: name,
      status: suiteLevel[0].tag === 'error' ? 'error' : 'failed',
      failures: suiteLevel,
      properties: properties(suite),
      systemOut: texts(suite['system-out']),
      systemErr: texts(suite['system-err']),
      suites,
      suiteLevel: true,
    });
  }
  for (const inner of list(suite.testsuite)) walk(asNode(inner), [...suites, attr(inner, 'name')], cases);
}

function testCase(tc: Node, suites: string[]): TestCase {
  const failures = list(tc.failure).map((n) => record('failure', n));
  const errors = list(tc.error).map((n) => record('error', n));
  const reruns = RERUN_TAGS.flatMap((tag) => list(tc[tag]).map((n) => record(tag, n)));
  const status = failures.length ? 'failed' : errors.length ? 'error' : list(tc.skipped).length ? 'skipped' : 'passed';
  const file = attr(tc, 'file');
  const skip = status === 'skipped' ? attr(list(tc.skipped)[0], 'type') : '';
  return {
    name: attr(tc, 'name'),
    classname: attr(tc, 'classname') || attr(tc, 'class'),
    ...(file ? { file } : {}),
    status,
    ...(skip ? { skipType: skip } : {}),
    failures: [...failures, ...errors, ...reruns],
    properties: properties(tc),
    systemOut: texts(tc['system-out']),
    systemErr: texts(tc['system-err']),
    suites,
  };
}

function record(tag: string, node: unknown): FailureRecord {
  const n = asNode(node);
  // Surefire writes a rerun's trace in <stackTrace>, beside its own output.
  const trace = n.stackTrace !== undefined ? texts(n.stackTrace) : content(n);
  const out: FailureRecord = { tag, type: attr(n, 'type'), message: attr(n, 'message'), text: trace };
  if (n['system-out'] !== undefined) out.systemOut = texts(n['system-out']);
  if (n['system-err'] !== undefined) out.systemErr = texts(n['system-err']);
  return out;
}

function properties(node: Node): { name: string; value: string }[] {
  return list(node.properties).flatMap((p) =>
    list(asNode(p).property).map((q) => {
      const prop = asNode(q);
      const value = prop[`${AT}value`];
      return { name: attr(prop, 'name'), value: value === undefined ? content(prop) : attr(prop, 'value') };
    }),
  );
}

function list(v: unknown): unknown[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function asNode(v: unknown): Node {
  return typeof v === 'object' && v !== null ? (v as Node) : { [TEXT]: v ?? '' };
}

/** An attribute's value, normalized as XML says: literal white space becomes a space. */
function attr(node: unknown, name: string): string {
  const v = asNode(node)[AT + name];
  if (typeof v !== 'string') return '';
  return decode(/[\t\n\r]/.test(v) ? v.replace(/\r\n|[\t\n\r]/g, ' ') : v);
}

/** An element's text: its character data decoded, its CDATA sections as written. */
function content(node: Node): string {
  const raw = node[TEXT];
  const text = typeof raw === 'string' ? rawContent(raw) : '';
  const cdata = list(node[CDATA])
    .map((c) => lineEnds(String(c)))
    .join('');
  if (!cdata) return text.trim() ? text : '';
  return text.trim() ? text + cdata : cdata;
}

/** The content of a raw element (or plain text): CDATA kept as written, comments dropped, the rest decoded. */
function rawContent(raw: string): string {
  if (!raw.includes('<')) return decode(lineEnds(raw));
  let out = '';
  let pos = 0;
  for (const m of raw.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->/g)) {
    out += decode(lineEnds(raw.slice(pos, m.index))) + (m[1] !== undefined ? lineEnds(m[1]) : '');
    pos = m.index! + m[0].length;
  }
  return out + decode(lineEnds(raw.slice(pos)));
}

function texts(v: unknown): string {
  return list(v)
    .map((n) => content(asNode(n)))
    .join('');
}

/** XML's end-of-line handling: CRLF and lone CR read as LF. */
function lineEnds(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the references the well-formedness pass allowed, and nothing else. */
function decode(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(
    /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/g,
    (_, name: string, dec: string, hex: string) =>
      name ? PREDEFINED[name] : String.fromCodePoint(dec ? Number(dec) : parseInt(hex, 16)),
  );
}
