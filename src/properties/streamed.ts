// The head run's failures as the runner streams them, before its report
// exists: pytest's guard plugin names each case as it fails (a `failing`
// record, guard/records.ts); no other runner's are read before the report.
// A hint only: the revert check stops the reverted run on one whose
// invariant no pending mark covers, and the head run's report then decides.
import type { Classify } from '../zones/classify.js';
import { nameIds } from './mapping.js';
import type { Registry } from './registry.js';
import { pendingCovers } from './states.js';

/** The failing cases one head run has named so far, and whoever listens for more. */
export class FailureStream {
  private names: string[] = [];
  private listener: ((name: string) => void) | null = null;

  push(name: string): void {
    this.names.push(name);
    this.listener?.(name);
  }

  /** Hears each name so far, then each later one, until the function it returns is called. */
  listen(fn: (name: string) => void): () => void {
    this.listener = fn;
    for (const name of this.names) fn(name);
    return () => {
      this.listener = null;
    };
  }
}

/**
 * The registered invariants a streamed pytest node id (`FILE::TEST[...]`)
 * names with no unexpired pending mark, when its file is in the spec zone;
 * else none, and nothing is stopped on it.
 */
export function unmarkedStreamed(
  nodeid: string,
  registry: Registry,
  classify: Classify,
  now: Date,
  ttl: number,
): string[] {
  const at = nodeid.indexOf('::');
  if (at < 0 || classify(nodeid.slice(0, at)) !== 'spec') return [];
  return [...new Set(nameIds(nodeid.slice(at + 2)))].filter(
    (id) => registry.invariants.some((i) => i.id === id) && !pendingCovers(id, registry, now, ttl),
  );
}
