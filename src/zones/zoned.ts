// The production and oracle paths of a change set: what the mixing rule
// reports and the owners rule asks a signature for.
import { isOracle, type Classify } from './classify.js';
import type { ZoneName } from './names.js';

export interface Zoned {
  path: string;
  zone: ZoneName;
  status: string;
}

/** The src and oracle paths of a change set, each once. */
export function zonedPaths(
  changes: Iterable<{ path: string; status: string }>,
  classify: Classify,
): { src: Zoned[]; oracle: Zoned[] } {
  const src: Zoned[] = [];
  const oracle: Zoned[] = [];
  const seen = new Set<string>();
  for (const c of changes) {
    if (seen.has(c.path)) continue;
    seen.add(c.path);
    const zone = classify(c.path);
    if (zone === 'src') src.push({ path: c.path, zone, status: c.status });
    else if (isOracle(zone)) oracle.push({ path: c.path, zone: zone!, status: c.status });
  }
  return { src, oracle };
}
