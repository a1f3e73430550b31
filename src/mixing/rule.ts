// The mixing rule, pure: a change set that touches production code may not
// also touch an oracle (spec, fixtures, freeze) or the guard.
import type { Violation } from '../common/verdict.js';
import type { Change } from '../git/changes.js';
import { isOracle, type Classify } from '../zones/classify.js';
import { zonedPaths } from '../zones/zoned.js';

/** Which of the two sides of the mixing rule a change set touches. */
export interface Sides {
  src: boolean;
  oracle: boolean;
}

// The four answers, shared: asked of every commit of a push, touchedSides builds nothing.
const SIDES: Sides[][] = [
  [
    { src: false, oracle: false },
    { src: false, oracle: true },
  ],
  [
    { src: true, oracle: false },
    { src: true, oracle: true },
  ],
];

/** Whether a change set touches src, and an oracle. */
export function touchedSides(changes: Iterable<Change>, classify: Classify): Sides {
  let src = false;
  let oracle = false;
  for (const c of changes) {
    const zone = classify(c.path);
    if (zone === 'src') src = true;
    else if (isOracle(zone)) oracle = true;
    if (src && oracle) break;
  }
  return SIDES[+src][+oracle];
}

function mixes(changes: Iterable<Change>, classify: Classify): boolean {
  const { src, oracle } = touchedSides(changes, classify);
  return src && oracle;
}

const STATUS: Record<string, string> = { A: 'added', D: 'deleted', M: 'modified', T: 'type changed', U: 'unmerged' };

/** A violation when `changes` mix src with an oracle; null when clean. `changes` is read up to twice. */
export function mixViolation(
  changes: Iterable<Change>,
  classify: Classify,
  rule: 'mix' | 'mix-range',
  commit?: string,
): Violation | null {
  if (!mixes(changes, classify)) return null;
  const { src, oracle } = zonedPaths(changes, classify);
  const zones = [...new Set(oracle.map((o) => o.zone))].join(', ');
  const where = rule === 'mix' ? (commit ? 'this commit' : 'the staged change') : 'this range';
  const all = [...src, ...oracle];
  return {
    rule,
    commit,
    paths: all.map((z) => z.path),
    message: `${where} changes production code (src) together with ${zones}; production code and the oracles that judge it must change in separate commits`,
    detail: all.map((z) => ({ path: z.path, zone: z.zone, note: STATUS[z.status[0]] ?? z.status })),
  };
}
