// Freeze hits: which row let which failure through, kept past the run so a
// reviewer renewing a row can see how often it fired. The gate writes one
// file per run (`gate --hits FILE`, the same list its JSON carries); `freeze
// list --hits` and `freeze extend --hits` sum any number of them per row.
import { readFile } from 'node:fs/promises';
import { UsageError } from '../common/errors.js';
import type { Decision } from './apply.js';

/** One failure a row let through. `run` is the CI run (its URL or id), null outside CI. */
export interface Hit {
  sig: string;
  /** The row's line in the ledger the run read. */
  row: number;
  test: string;
  run: string | null;
}

/** What `gate --hits FILE` writes. */
export interface HitsFile {
  kind: 'patchwarden-freeze-hits';
  version: 1;
  base: string;
  head: string;
  run: string | null;
  hits: Hit[];
}

/** The hits of one run: every failure a row froze, flaky passes included. */
export function hitsOf(decisions: Decision[], run: string | null): Hit[] {
  return decisions
    .filter((d) => d.action === 'frozen' && d.row)
    .map((d) => ({ sig: d.sig, row: d.row!.line, test: d.name, run }));
}

/** A row's hits summed over the files read. */
export interface HitCount {
  hits: number;
  /** Distinct runs it fired in; a run without an id counts once per file. */
  runs: number;
  tests: string[];
}

/** Reads hits files (or the gate's `--format json` output, whose suite layer carries the same list) and sums them per signature. */
export async function countHits(files: string[]): Promise<Map<string, HitCount>> {
  const runs = new Map<string, Set<string>>();
  const counts = new Map<string, HitCount>();
  for (const [i, file] of files.entries()) {
    for (const hit of hitsIn(await readJson(file), file)) {
      const c = counts.get(hit.sig) ?? { hits: 0, runs: 0, tests: [] };
      c.hits++;
      if (!c.tests.includes(hit.test)) c.tests.push(hit.test);
      counts.set(hit.sig, c);
      const seen = runs.get(hit.sig) ?? new Set<string>();
      seen.add(hit.run ?? `file ${i}`);
      runs.set(hit.sig, seen);
    }
  }
  for (const [sig, c] of counts) c.runs = runs.get(sig)!.size;
  return counts;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--hits ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--hits ${file}: not JSON (${(err as Error).message})`);
  }
}

const isHit = (h: unknown): h is Hit => {
  const o = h as Record<string, unknown> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.sig === 'string' &&
    typeof o.row === 'number' &&
    typeof o.test === 'string' &&
    (o.run === null || typeof o.run === 'string')
  );
};

/** The hits a file holds, or a usage error saying what the file is not. */
function hitsIn(data: unknown, file: string): Hit[] {
  const o = data as Record<string, unknown> | null;
  let hits: unknown;
  if (o?.kind === 'patchwarden-freeze-hits') hits = o.hits;
  else if (Array.isArray(o?.layers)) {
    const suite = (o.layers as { layer?: string; details?: { hits?: unknown } }[]).find((l) => l.layer === 'suite');
    hits = suite?.details?.hits ?? [];
  } else throw new UsageError(`--hits ${file}: neither a file of gate --hits nor the output of gate --format json`);
  if (!Array.isArray(hits) || !hits.every(isHit))
    throw new UsageError(`--hits ${file}: its hits are not a list of {sig, row, test, run}`);
  return hits;
}
