// New API: a property for a function the patch adds cannot build (Go, a
// tsc-checked TypeScript project) or load (an ES module's missing export)
// without the patch, so the reverted run fails where head passes. That failure
// counts as the invariant failing without the patch (`fixed`, marked by
// build) only when every build or load error the reverted run prints names a
// symbol the production diff adds, and the invariant's property file is one
// those errors are in (so it references those symbols). Any other failure
// stays what it was (revert_broken). Each language reads its own errors and
// added symbols: by-build-go.ts, by-build-rust.ts, by-build-js.ts.
import type { RawChange } from '../git/changes.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { goErrors, goOwns } from './by-build-go.js';
import { scriptErrors, scriptOwns } from './by-build-js.js';
import { rustErrors, rustOwns } from './by-build-rust.js';
import type { InvariantResult } from './mapping.js';

/** One build or load error: the file it is in (relative to the tree; null when not known), its line where read, and the added symbol it misses (null: any other error). */
export interface BuildError {
  file: string | null;
  line?: number;
  symbol: string | null;
}

/** Whether a property file is an invariant's, for an error at `line` in it: a Go test function's file, a Rust invariant's module, a script naming the id. */
function owns(file: string, source: string, inv: InvariantResult, line?: number): boolean {
  if (file.endsWith('.go')) return goOwns(source, inv);
  if (file.endsWith('.rs')) return rustOwns(source, inv, line, file);
  return scriptOwns(source, inv);
}

/**
 * The invariants whose failure to build without the patch counts as failing,
 * each with the symbols its file misses; null when the reverted run's output
 * shows no build failure, or one with any error that is not an added symbol.
 */
export async function fixedByBuild(
  repo: Repo,
  head: string,
  production: RawChange[],
  output: string,
  onHead: InvariantResult[],
): Promise<Map<string, string[]> | null> {
  const go = await goErrors(repo, production, output);
  const rust = await rustErrors(repo, production, output);
  const scripts = await scriptErrors(repo, head, production, output);
  const errors = [...(go ?? []), ...(rust ?? []), ...(scripts ?? [])];
  if (!errors.length || errors.some((e) => e.symbol === null)) return null;
  const sources = new Map<string, string>();
  for (const e of errors)
    if (e.file && !sources.has(e.file))
      sources.set(e.file, (await readFileAt(repo, head, e.file))?.toString('utf8') ?? '');
  // Each invariant with the symbols its property file misses, where its file has them.
  const found = new Map<string, string[]>();
  for (const inv of onHead) {
    const mine = errors.filter((e) => e.file && owns(e.file, sources.get(e.file)!, inv, e.line));
    if (mine.length) found.set(inv.id, [...new Set(mine.map((e) => e.symbol!))].sort());
  }
  return found.size ? found : null;
}

/**
 * The reverted run's invariants with each invariant fixed by build failing
 * in every case head ran (the keys head's cases have), so each case judges
 * as `fixed`.
 */
export function withBuildFailures(
  reverted: InvariantResult[],
  onHead: InvariantResult[],
  byBuild: Map<string, string[]>,
): InvariantResult[] {
  const out = onHead
    .filter((i) => byBuild.has(i.id))
    .map((i) => ({
      ...i,
      status: 'failed' as const,
      outcomes: i.outcomes.map((o) => ({ ...o, outcome: 'failed' as const })),
    }));
  return [...reverted.filter((i) => !byBuild.has(i.id)), ...out];
}
