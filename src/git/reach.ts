// Which commits of one walk each tip reaches. A push is read in one walk of
// everything it brings (`TIPS --not --all`); what is new to one of its refs is
// the part of that walk its tip reaches. A commit of the walk reached by a
// tip has every commit between the two in the walk too (had one of them been
// in a ref, so would the commit), so following parents inside the walk finds
// exactly what `TIP --not --all` lists.
import type { RangeChanges } from './changes.js';

export class Reach {
  private position: Map<string, number> | undefined;
  private readonly memo = new Map<string, string[]>();

  /** `tips`: every tip the walk started from (a walk from one tip is that tip's whole). */
  constructor(
    private readonly walk: Pick<RangeChanges, 'commits' | 'parents'>,
    private readonly tips: string[],
  ) {}

  private index(): Map<string, number> {
    return (this.position ??= new Map(this.walk.commits.map((c, i) => [c, i])));
  }

  /** The walk's commits `tip` reaches, in the walk's order (oldest first); none for a tip outside the walk (a commit the repository had). */
  commits(tip: string): string[] {
    if (this.tips.length === 1 && this.tips[0] === tip) return this.walk.commits;
    let commits = this.memo.get(tip);
    if (commits) return commits;
    const position = this.index();
    const seen = new Set<string>();
    const stack = position.has(tip) ? [tip] : [];
    for (const c of stack) seen.add(c);
    while (stack.length) {
      for (const p of this.walk.parents.get(stack.pop()!) ?? []) {
        if (position.has(p) && !seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
      }
    }
    // In the walk's order: a large part is picked out of the walk, a small one sorted.
    commits =
      seen.size * 16 > this.walk.commits.length
        ? this.walk.commits.filter((c) => seen.has(c))
        : [...seen].sort((a, b) => position.get(a)! - position.get(b)!);
    this.memo.set(tip, commits);
    return commits;
  }

  /** The commits outside the walk that `commits` (a tip's) grow from: parents the repository already had. */
  boundary(commits: string[]): string[] {
    const position = this.index();
    const out = new Set<string>();
    for (const c of commits) for (const p of this.walk.parents.get(c) ?? []) if (!position.has(p)) out.add(p);
    return [...out];
  }
}
