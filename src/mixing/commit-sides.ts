// Which sides of the mixing rule each commit of a walk touches, worked out
// as git lists the commits (rangeChanges' onCommit): over a long push the
// mixing rule is then judged while the walk runs, not after it. Commits
// listed before the zones are known (the config still loading) wait for them.
import type { Change } from '../git/changes.js';
import type { Classify } from '../zones/classify.js';
import { touchedSides, type Sides } from './rule.js';

export class CommitSides {
  private readonly known = new Map<string, Sides>();
  private waiting: [string, Change[]][] = [];
  private classify: Classify | null = null;
  /** Whether any commit handed over touches src, and whether any touches an oracle. */
  private readonly any = { src: false, oracle: false };

  /** One commit's changes, whole (a merge's as it is judged). */
  readonly add = (commit: string, changes: Change[]): void => {
    if (!this.classify) {
      this.waiting.push([commit, changes]);
      return;
    }
    const sides = touchedSides(changes, this.classify);
    this.known.set(commit, sides);
    this.any.src ||= sides.src;
    this.any.oracle ||= sides.oracle;
  };

  /** The zones are known: the commits that waited are worked out now, the rest as they come. */
  start(classify: Classify): void {
    this.classify = classify;
    for (const [commit, changes] of this.waiting.splice(0)) this.add(commit, changes);
  }

  /** Whether the commits handed over could mix at all, one by one or together: they touch both sides. */
  get mayMix(): boolean {
    if (this.waiting.length) throw new Error('commits were asked about before their zones were known');
    return this.any.src && this.any.oracle;
  }

  /** The sides a commit handed over touches; asking of another one is a bug, and stops the judgment. */
  of(commit: string): Sides {
    const sides = this.known.get(commit);
    if (!sides) throw new Error(`commit ${commit} was never handed over to be judged`);
    return sides;
  }
}
