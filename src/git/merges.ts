// What each merge of a walk authored: every path where its tree differs from
// the tree git's own merge of its parents writes (`merge-tree --write-tree`,
// git >= 2.38). An honest merge differs nowhere; a merge that takes one side
// whole (`commit-tree X^{tree} -p MAIN -p X`) differs wherever it undid the
// other side. Where the two sides conflict, git's merge holds conflict
// markers there, so every resolved conflict counts as the merge's own, and
// the rest as git merged it. An octopus or unrelated histories are compared
// with the first parent: every path the merge brings counts as its own.
//
// merge-tree is one process per merge, too slow for a push with hundreds of
// them. Most merges are honest, bring a side that changed paths the first
// parent left alone, and have their merge base in the walk itself, so they
// are first tried without it: with the single merge base B found in the
// walk's own graph, such a merge changes its first parent exactly as B's side
// changed B (the diff from the first parent equals B..second parent, record
// for record), and then it is git's own merge path by path. B..second parent
// is put together from the walk's own diffs when the side runs from B by
// first parents (the usual topic branch), else asked of git. Anything else (a
// path both sides changed, a base outside the walk, a criss-cross, a rename
// that met an edit) goes to merge-tree.
import type { Repo } from './repo.js';
import { ABSENT, diffPairs, type RawChange } from './raw-diff.js';
import { treeOf } from './trees.js';

/** A commit of the walk: its tree and its parents. */
export interface Walked {
  id: string;
  tree: string;
  parents: string[];
}

/** How many `git merge-tree` processes run at once. */
const MERGE_JOBS = 4;

/**
 * Changes of every merge among `walked` (oldest first), by merge id;
 * `firstParent` holds each commit's diff against its first parent.
 */
export async function mergeChanges(
  repo: Repo,
  walked: Walked[],
  firstParent: Map<string, RawChange[]>,
): Promise<Map<string, RawChange[]>> {
  const result = new Map<string, RawChange[]>();
  const merges = walked.filter((c) => c.parents.length > 1);
  if (!merges.length) return result;
  const graph = new Graph(walked);
  const quick = merges.flatMap((m) => {
    const base = m.parents.length === 2 ? graph.soleBase(m.parents[0], m.parents[1]) : null;
    return base ? [{ m, base }] : [];
  });
  // Each side's change since the base: from the walk's diffs along its first parents, else from git.
  const sides = quick.map(({ m, base }) => {
    const chain = graph.firstParentChain(base, m.parents[1]);
    return chain && netChange(chain.map((id) => firstParent.get(id)!));
  });
  const asked = quick.filter((_, k) => !sides[k]);
  const answers = await diffPairs(
    repo,
    asked.map(({ m, base }) => [graph.tree(base), graph.tree(m.parents[1])]),
  );
  quick.forEach(({ m }, k) => {
    if (sameChanges(firstParent.get(m.id), sides[k] ?? answers.shift()!)) result.set(m.id, []);
  });
  const rest = merges.filter((m) => !result.has(m.id));
  const trees: string[] = new Array(rest.length);
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < rest.length; k = next++) trees[k] = await gitMerge(repo, rest[k]);
  };
  await Promise.all(Array.from({ length: Math.min(MERGE_JOBS, rest.length) }, worker));
  const authored = await diffPairs(
    repo,
    rest.map((m, k) => [trees[k], m.tree]),
  );
  rest.forEach((m, k) => {
    result.set(m.id, authored[k]);
  });
  return result;
}

/** The tree a merge is judged against: git's merge of its parents, else its first parent's tree. */
async function gitMerge(repo: Repo, m: Walked): Promise<string> {
  const tree = m.parents.length === 2 ? await mergeTree(repo, m.parents[0], m.parents[1]) : null;
  return tree ?? treeOf(repo, m.parents[0]);
}

/**
 * git's merge of two commits as a tree: clean, or with conflict markers in
 * the files that conflict (so a resolution differs there, and counts as the
 * merge's own). Null where git will not merge them (unrelated histories).
 */
export async function mergeTree(repo: Repo, a: string, b: string): Promise<string | null> {
  const r = await repo.run(['merge-tree', '--write-tree', '--no-messages', a, b], { okCodes: [1, 128, 129] });
  const tree = r.stdout.toString('utf8').split('\n')[0];
  return (r.code === 0 || r.code === 1) && /^[0-9a-f]{40,64}$/.test(tree) ? tree : null;
}

/** The net change of consecutive diffs (oldest first): each path from its first old side to its last new side. */
export function netChange(diffs: RawChange[][]): RawChange[] {
  const net = new Map<string, RawChange>();
  for (const diff of diffs) {
    for (const c of diff) {
      const had = net.get(c.path);
      net.set(c.path, had ? { ...had, newMode: c.newMode, newOid: c.newOid } : c);
    }
  }
  const status = (c: RawChange) =>
    c.oldMode === ABSENT
      ? 'A'
      : c.newMode === ABSENT
        ? 'D'
        : c.oldMode.slice(0, 2) === c.newMode.slice(0, 2)
          ? 'M'
          : 'T';
  return [...net.values()]
    .filter((c) => c.oldMode !== c.newMode || c.oldOid !== c.newOid)
    .map((c) => ({ ...c, status: status(c) }));
}

/** Whether two diffs are the same records (status aside, which follows from them): the same paths, each from the same mode and blob to the same. */
export function sameChanges(a: RawChange[] | undefined, b: RawChange[]): boolean {
  if (!a || a.length !== b.length) return false;
  const key = (c: RawChange) => `${c.path}\0${c.oldMode} ${c.oldOid} ${c.newMode} ${c.newOid}`;
  const want = new Set(b.map(key));
  return a.every((c) => want.has(key(c)));
}

const ONE = 1;
const TWO = 2;
const STALE = 4;
const RESULT = 8;

/** The walk's commit graph, for merge bases that lie inside it. */
export class Graph {
  private readonly index = new Map<string, number>();
  /** Parents before children, whatever order the walk listed them in (commit dates can run backwards or tie). */
  private readonly commits: Walked[] = [];

  constructor(walked: Walked[]) {
    const byId = new Map(walked.map((c) => [c.id, c]));
    const seen = new Set<string>();
    for (const start of walked) {
      if (seen.has(start.id)) continue;
      seen.add(start.id);
      const stack = [start];
      while (stack.length) {
        const top = stack[stack.length - 1];
        const parent = top.parents.map((p) => byId.get(p)).find((p) => p && !seen.has(p.id));
        if (parent) {
          seen.add(parent.id);
          stack.push(parent);
        } else {
          this.index.set(top.id, this.commits.length);
          this.commits.push(stack.pop()!);
        }
      }
    }
  }

  tree(id: string): string {
    return this.commits[this.index.get(id)!].tree;
  }

  /** The commits after `base` on `tip`'s first-parent line, oldest first, when that line reaches `base` inside the walk; else null. */
  firstParentChain(base: string, tip: string): string[] | null {
    const stop = this.index.get(base);
    const chain: string[] = [];
    for (
      let i = this.index.get(tip);
      i !== undefined && stop !== undefined && i > stop;
      i = this.index.get(this.commits[i].parents[0])
    ) {
      chain.push(this.commits[i].id);
      if (this.commits[i].parents[0] === base) return chain.reverse();
    }
    return tip === base ? [] : null;
  }

  /**
   * The one best common ancestor of a and b, when the walk alone proves it:
   * git's paint-down in topological order (parents before children), giving
   * up when a side reaches a commit outside the walk before it is known to
   * lie below a common ancestor (a base could hide there), or when there are
   * several.
   */
  soleBase(a: string, b: string): string | null {
    if (!this.index.has(a) || !this.index.has(b)) return null;
    const flags = new Map<number, number>([[this.index.get(a)!, ONE]]);
    const ib = this.index.get(b)!;
    flags.set(ib, (flags.get(ib) ?? 0) | TWO);
    // The graph's order is topological, so the highest index is the next to paint.
    const queue = new MaxQueue([...flags.keys()]);
    const found: number[] = [];
    // Queued commits not yet known to lie below a common ancestor: the paint goes on while there are any.
    let live = queue.size;
    while (live > 0) {
      const i = queue.pop()!;
      let paint = flags.get(i)!;
      if (!(paint & STALE)) live--;
      if ((paint & (ONE | TWO)) === (ONE | TWO) && !(paint & STALE)) {
        found.push(i);
        paint |= RESULT | STALE;
        flags.set(i, paint);
      }
      paint &= ONE | TWO | STALE;
      for (const p of this.commits[i].parents) {
        const j = this.index.get(p);
        if (j === undefined) {
          if (!(paint & STALE)) return null; // a side leaves the walk: a base may lie outside it
          continue;
        }
        const had = flags.get(j) ?? 0;
        if ((had & paint) === paint) continue;
        const now = had | paint;
        flags.set(j, now);
        if (queue.has(j)) {
          if (!(had & STALE) && now & STALE) live--;
        } else {
          queue.push(j);
          if (!(now & STALE)) live++;
        }
      }
    }
    return found.length === 1 ? this.commits[found[0]].id : null;
  }
}

/** A max-heap of walk indexes, each held once. */
class MaxQueue {
  private readonly heap: number[] = [];
  private readonly held = new Set<number>();
  constructor(items: number[]) {
    for (const i of items) this.push(i);
  }
  get size(): number {
    return this.heap.length;
  }
  has(i: number): boolean {
    return this.held.has(i);
  }
  push(i: number): void {
    this.held.add(i);
    const h = this.heap;
    h.push(i);
    for (let k = h.length - 1; k > 0; ) {
      const up = (k - 1) >> 1;
      if (h[up] >= h[k]) break;
      [h[up], h[k]] = [h[k], h[up]];
      k = up;
    }
  }
  pop(): number | undefined {
    const h = this.heap;
    if (!h.length) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      for (let k = 0; ; ) {
        const l = 2 * k + 1;
        const r = l + 1;
        let m = k;
        if (l < h.length && h[l] > h[m]) m = l;
        if (r < h.length && h[r] > h[m]) m = r;
        if (m === k) break;
        [h[m], h[k]] = [h[k], h[m]];
        k = m;
      }
    }
    this.held.delete(top);
    return top;
  }
}
