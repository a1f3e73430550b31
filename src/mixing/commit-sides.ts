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

  /** One commit's changes, whole (a merge's as it is judged). */
  readonly add = (commit: string, changes: Change[]): void => {
    if (this.classify) this.known.set(commit, touchedSides(changes, this.classify));
    else this.waiting.push([commit, changes]);
  };

  /** The zones are known: the commits that waited are worked out now, the rest as they come. */
  start(classify: Classify): void {
    this.classify = classify;
    for (const [commit, changes] of this.waiting.splice(0)) this.add(commit, changes);
  }

  /** The sides `commit` touches (worked out from `changes` if it was never handed over). */
  of(commit: string, changes: Map<string, Change[]>, classify: Classify): Sides {
    return this.known.get(commit) ?? touchedSides(changes.get(commit) ?? [], classify);
  }
}
