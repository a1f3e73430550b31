// Which invariant each property test case exercises, and what a run of them
// says. Pure: cases and registry in, results out. A case belongs to an
// invariant through `<property name="invariant" value="ID"/>`, an
// `[invariant:ID]` token in its name, or (for libtest, whose test names are
// Rust paths and cannot hold brackets) a module `invariant_ID` in the
// `::`-path of its name, `__` for each `.` of the id; never through its name
// alone, and only
// when it comes from a file in the spec zone: a case elsewhere (a test the
// patch added, a file a runner option pulled in) cannot stand for a property.
// A parent case all of whose children name invariants is theirs (nesting.ts).
import path from 'node:path';
import { counted } from '../common/text.js';
import type { TestCase } from '../junit/types.js';
import { foldParents } from './nesting.js';
import type { Registry } from './registry.js';

export type InvariantStatus = 'passed' | 'failed' | 'error' | 'skipped' | 'missing';

/** What one case did in one run: an error fails, pytest's xfail is the failure it expects. */
export type Outcome = 'passed' | 'failed' | 'skipped';

export interface CaseOutcome {
  /** Matches the same case across the two runs: its file (or classname), name and occurrence. */
  key: string;
  name: string;
  outcome: Outcome;
}

export interface InvariantResult {
  id: string;
  /** failed: a case ran and failed; error: a case could not run; missing: no case. */
  status: InvariantStatus;
  /** Names of the cases that map to it (shown, never keys). */
  cases: string[];
  /** Each case's outcome, for judging it against the other run. */
  outcomes: CaseOutcome[];
  /** How many distinct cases ran for it: one is a fixture in disguise unless it draws many inputs (Hypothesis, fast-check). */
  case_count: number;
}

export interface Mapping {
  /** One per registered invariant, in registry order. */
  invariants: InvariantResult[];
  /** Ids named by cases that the registry does not list. */
  unregistered: { id: string; cases: string[] }[];
  /** How many cases map to at least one id (registered or not). */
  mapped: number;
  /** Cases that map to no id and did not pass: collection and import errors. */
  strays: { name: string; status: TestCase['status']; message: string }[];
  /** The first case that names no id, as the report names it: shows how the runner names cases. */
  unnamed?: string;
  /** Cases naming an id from a file outside the spec zone: never counted. */
  outside: { ids: string[]; name: string; file: string; placed: boolean }[];
  /** properties.min_cases: an invariant with fewer distinct cases is refused (0: off). */
  min_cases: number;
}

/** Where a run's cases came from, to tell spec files from the rest. */
export interface Placement {
  /** The tree the command ran in, for absolute `file` attributes. */
  root: string;
  inSpec(file: string): boolean;
  /** Whether a path (from the root) is a file in that tree. */
  exists(file: string): boolean;
  /** The tree's files whose path ends with `/suffix` (or is it), for a JVM class's source. */
  locate?(suffix: string): string[];
}

/** A dotted module or class name; a JVM nested class after a `$`. */
const MODULE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(\$[\w$]+)?$/;

const JVM_SOURCES = ['.java', '.kt', '.groovy', '.scala'];

/**
 * The repository path of the file a case came from: its `file` attribute, else
 * the module its classname names (pytest's `spec.properties.test_bill`, with
 * or without a class after it): the longest such path that is a file in the
 * tree; else the source of the JVM class it names (Surefire's and Gradle's
 * `shop.BillTest`, or `shop.BillTest$Nested`: `…/shop/BillTest.java`, and
 * where the tree has several, one outside the spec zone first, so an
 * ambiguous class is refused); else the whole dotted name as a path (which
 * then counts as outside). Null when the report does not say: node's runner
 * writes no file, and its classname is always `test`.
 */
export function caseFile(c: TestCase, place: Placement): string | null {
  if (c.file) {
    const rel = path.isAbsolute(c.file) ? path.relative(place.root, c.file) : path.normalize(c.file);
    return rel.split(path.sep).join('/');
  }
  if (!MODULE.test(c.classname)) return null;
  const parts = c.classname.split('.');
  const candidates = parts.map((_, i) => `${parts.slice(0, parts.length - i).join('/')}.py`);
  const py = candidates.find((f) => place.exists(f));
  if (py) return py;
  if (parts.length === 1) return null; // node's `test`, a class in no package
  const jvm = JVM_SOURCES.flatMap((ext) => place.locate?.(parts.join('/').replace(/\$.*$/, '') + ext) ?? []);
  if (jvm.length) return jvm.find((f) => !place.inSpec(f)) ?? jvm[0];
  return candidates[0];
}

const TOKEN = /\[invariant:([^\]\s]+)\]/g;
/** A module of a Rust test's path (`invariant_bill__double::doubles`): a segment before another, never the test's own name. */
const MODULE_TOKEN = /(?<=^|::)invariant_(\w+)(?=::)/g;

/** The ids a case names, each once, properties first. */
export function invariantIds(c: TestCase): string[] {
  const ids = c.properties
    .filter((p) => p.name === 'invariant')
    .map((p) => p.value.trim())
    .filter(Boolean);
  return [...new Set([...ids, ...nameIds(c.name)])];
}

/** The ids a case's name holds: `[invariant:ID]` tokens, and a Rust path's `invariant_ID` modules. */
export function nameIds(name: string): string[] {
  const ids: string[] = [];
  for (const m of name.matchAll(TOKEN)) ids.push(m[1]);
  for (const m of name.matchAll(MODULE_TOKEN)) ids.push(m[1].replaceAll('__', '.'));
  return ids;
}

const RANK: Record<TestCase['status'], number> = { skipped: 0, passed: 1, error: 2, failed: 3 };

/**
 * A case's outcome, read from the runner's own record: pending lives in the
 * registry alone, so pytest's xfail (a skipped element of type pytest.xfail)
 * is the failure it is, and an xpass the pass it is.
 */
export function outcomeOf(c: TestCase): Outcome {
  if (c.status === 'failed' || c.status === 'error') return 'failed';
  if (c.status === 'skipped') return c.skipType === 'pytest.xfail' ? 'failed' : 'skipped';
  return 'passed';
}

function statusOf(c: TestCase): TestCase['status'] {
  return c.status === 'skipped' && c.skipType === 'pytest.xfail' ? 'failed' : c.status;
}

export function mapCases(cases: TestCase[], registry: Registry, place: Placement, minCases = 0): Mapping {
  const byId = new Map<string, TestCase[]>();
  const strays: Mapping['strays'] = [];
  const outside: Mapping['outside'] = [];
  let mapped = 0;
  let unnamed: string | undefined;
  for (const c of foldParents(cases, (c) => invariantIds(c).length > 0)) {
    const ids = invariantIds(c);
    const file = ids.length ? caseFile(c, place) : null;
    if (file !== null && !place.inSpec(file)) {
      outside.push({ ids, name: c.name, file, placed: place.exists(file) });
      continue;
    }
    if (ids.length) mapped++;
    else unnamed ??= c.name;
    if (!ids.length && (c.status === 'failed' || c.status === 'error'))
      strays.push({ name: c.name, status: c.status, message: c.failures[0]?.message ?? '' });
    for (const id of ids) byId.set(id, [...(byId.get(id) ?? []), c]);
  }
  const registered = new Set(registry.invariants.map((i) => i.id));
  const invariants = registry.invariants.map(({ id }): InvariantResult => {
    const mine = byId.get(id) ?? [];
    // The worst case decides: one failure fails the invariant; all skipped is not a pass.
    const worst = mine.reduce<TestCase['status'] | null>(
      (w, c) => (w === null || RANK[statusOf(c)] > RANK[w] ? statusOf(c) : w),
      null,
    );
    const seen = new Map<string, number>();
    const outcomes = mine.map((c): CaseOutcome => {
      const where = `${caseFile(c, place) ?? c.classname}::${c.name}`;
      const n = (seen.get(where) ?? 0) + 1;
      seen.set(where, n);
      return { key: n > 1 ? `${where}#${n}` : where, name: c.name, outcome: outcomeOf(c) };
    });
    const ran = new Set(outcomes.filter((o) => o.outcome !== 'skipped').map((o) => o.key.replace(/#\d+$/, '')));
    return { id, status: worst ?? 'missing', cases: mine.map((c) => c.name), outcomes, case_count: ran.size };
  });
  const unregistered = [...byId]
    .filter(([id]) => !registered.has(id))
    .map(([id, cs]) => ({ id, cases: cs.map((c) => c.name) }));
  return { invariants, unregistered, mapped, strays, outside, min_cases: minCases, ...(unnamed && { unnamed }) };
}

const list = (xs: string[]) => xs.join(', ');

/**
 * Why a run cannot be judged case by case, as plain sentences; empty when its
 * cases map to the registry. How each invariant's cases fared is for the
 * states (states.ts), judged against the other run.
 */
export function headProblems(m: Mapping, registry: Registry): string[] {
  const problems: string[] = [];
  if (!m.mapped) problems.push(`no property test case maps to an invariant id${unmappedWhy(m)}`);
  if (m.min_cases > 1) {
    const few = m.invariants.filter((i) => i.status === 'passed' && i.case_count < m.min_cases);
    for (const i of few)
      problems.push(
        `invariant ${i.id} ran ${counted(i.case_count, 'distinct case')}, fewer than properties.min_cases (${m.min_cases}): a property of one literal input is a fixture in disguise (give it more cases, or draw its inputs with Hypothesis or fast-check and lower min_cases)`,
      );
  }
  for (const u of m.unregistered)
    problems.push(
      `test case ${JSON.stringify(u.cases[0])} names invariant ${u.id}, which ${registry.source} does not register`,
    );
  if (m.mapped && m.strays.length)
    problems.push(`test cases outside any invariant did not pass: ${list(m.strays.map((s) => s.name))}`);
  for (const o of m.outside) {
    problems.push(
      o.placed
        ? `test case ${JSON.stringify(o.name)} in ${o.file} names invariant ${list(o.ids)}, but ${o.file} is outside the spec zone: only cases in spec files count for an invariant (move it into the spec zone, reviewed, in a commit of its own, or drop the id)`
        : `test case ${JSON.stringify(o.name)} names invariant ${list(o.ids)}, but its report places it in ${o.file}, which is no file of the tree, so it cannot be shown to be a spec case (run the property command from the repository root, e.g. with pytest's rootdir there, so reports name files from the root)`,
    );
  }
  return problems;
}

/** Why no case maps: a failure before any case ran comes first (a file that does not load reports only that), then the naming. */
function unmappedWhy(m: Mapping): string {
  // Hypothesis refuses function-scoped fixtures such as record_property inside @given, so the id in the name comes first.
  const naming =
    'put an [invariant:ID] token in each case\'s name (a test or subtest title, or a pytest parametrize id: ids=["[invariant:ID]"]), or give the case a JUnit property named "invariant" (pytest: record_property("invariant", "ID"), in a test without @given)';
  const s = m.strays[0];
  // A runner that names a case by its function (Surefire without phrased names) drops an id written elsewhere.
  const seen = m.unnamed
    ? `; the report names a case ${JSON.stringify(m.unnamed)}: the id goes in the name the report gives`
    : '';
  if (!s) return ` (${naming}${seen})`;
  return `: ${s.status} in ${JSON.stringify(s.name)}${s.message ? `: ${s.message.split('\n')[0]}` : ''}, and a property file that does not load (an import that does not resolve, a build the command does not run first) reports only that, before any of its cases; the property command's output says why. Where every file loads, ${naming}`;
}
