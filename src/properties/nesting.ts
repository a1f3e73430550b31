// Parent cases whose children are all properties. A runner reports a parent
// beside its children: go and gotestsum fail `TestX` when its subtest
// `TestX/[invariant:ID]` fails, Surefire reports an `@AfterAll` failure as a
// case with no name in the class, and a `<failure>` directly in a
// `<testsuite>` (node's suites, a class that failed to load) is read as a
// case of that suite. Such a parent names no invariant, yet its failure is
// its children's: it belongs to the invariants its children name. Pure.
import type { TestCase } from '../junit/types.js';

/** Where a case sits: its file (or classname) and its enclosing suites. */
const container = (c: TestCase) => `${c.file ?? c.classname}\0${c.suites.join('\0')}`;

const failing = (c: TestCase) => c.status === 'failed' || c.status === 'error';

/**
 * Whether `parent` encloses `child`, at any depth: go's subtests (`TestX/…`
 * beside `TestX`), the cases of its class and nested classes (`C`, `C$…`)
 * for a case with no name, the cases of its suite for a suite-level one.
 */
function encloses(parent: TestCase, child: TestCase): boolean {
  // A suite-level case's suites end with its own suite.
  if (parent.suiteLevel) return parent.suites.every((s, i) => child.suites[i] === s);
  if (parent.name === '')
    return (
      parent.classname !== '' &&
      (child.classname === parent.classname ? child.name !== '' : child.classname.startsWith(`${parent.classname}$`))
    );
  return child.name.startsWith(`${parent.name}/`) && container(child) === container(parent);
}

/**
 * The cases, with each parent whose enclosed cases all name an invariant (or
 * are such parents themselves) folded into them: the parent is left out, and
 * when it fails while none of them fails (a panic after the subtests, a
 * `t.Cleanup` or a suite hook failing), each of them that names an invariant
 * fails in its stead, so its failure fails every child's invariant in that
 * run and never reads as a pass. A parent with a child outside every
 * invariant stays as it is. `names`: whether a case names an invariant.
 */
export function foldParents(cases: TestCase[], names: (c: TestCase) => boolean): TestCase[] {
  const named = cases.map(names);
  // Only a case that names nothing can be such a parent; go's subtests sit beside it.
  const beside = new Map<string, number[]>();
  cases.forEach((c, i) => {
    const group = beside.get(container(c));
    if (group) group.push(i);
    else beside.set(container(c), [i]);
  });
  const everywhere = cases.map((_, i) => i);
  const below = cases.map((p, i) => {
    if (named[i]) return [];
    const pool = p.suiteLevel || p.name === '' ? everywhere : beside.get(container(p))!;
    return pool.filter((j) => j !== i && encloses(p, cases[j]));
  });
  const memo = new Map<number, boolean>();
  const parent = (i: number): boolean => {
    if (!memo.has(i)) {
      memo.set(i, false); // a case that encloses itself through another is no parent
      memo.set(i, below[i].length > 0 && below[i].every((j) => named[j] || parent(j)));
    }
    return memo.get(i)!;
  };
  const blamed = new Map<number, TestCase>();
  cases.forEach((p, i) => {
    if (!parent(i) || !failing(p) || below[i].some((j) => failing(cases[j]))) return;
    for (const j of below[i]) if (named[j] && !blamed.has(j)) blamed.set(j, p);
  });
  return cases.flatMap((c, i) => {
    if (parent(i)) return [];
    const p = blamed.get(i);
    return p ? [failedFor(c, p)] : [c];
  });
}

/** A child failed in its parent's stead, its message naming the parent. */
function failedFor(c: TestCase, p: TestCase): TestCase {
  const first = p.failures[0];
  const why = first?.message || first?.text.split('\n')[0] || '';
  const message = `its parent case ${JSON.stringify(p.name || p.classname)} failed while it passed${why ? `: ${why}` : ''}`;
  return {
    ...c,
    status: 'failed',
    failures: [{ tag: 'failure', type: '', message, text: first?.text ?? '' }, ...c.failures],
  };
}
