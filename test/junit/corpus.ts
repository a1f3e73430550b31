// The real reports of the shared corpus, read in place; tests skip with
// CORPUS_MISSING when it is absent.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Found from here rather than from helpers/repo.ts, so its in-process readers stay in the unit tier.
const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Beside the project by default; JUNIT_CORPUS names another place.
export const CORPUS = process.env.JUNIT_CORPUS ?? path.resolve(PROJECT, '../shared/corpus/junit');

export interface Entry {
  file: string;
  producer: string;
  testcases: number;
  failuresPlusErrors: number;
  notes: string;
}

/** Why a corpus test is skipped when corpus() gives null. */
export const CORPUS_MISSING = `the JUnit corpus is absent (${CORPUS}; JUNIT_CORPUS names another place)`;

/** The corpus entries from MANIFEST.tsv, or null when the corpus is absent. */
export function corpus(): Entry[] | null {
  const manifest = path.join(CORPUS, 'MANIFEST.tsv');
  if (!existsSync(manifest)) return null;
  const [head, ...rows] = readFileSync(manifest, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));
  const col = (name: string) => head.indexOf(name);
  return rows.map((r) => ({
    file: path.join(CORPUS, r[col('file')]),
    producer: r[col('producer')],
    testcases: Number(r[col('testcases')]),
    failuresPlusErrors: Number(r[col('failures_plus_errors')]),
    notes: r[col('notes')] ?? '',
  }));
}

/** The one corpus report that is deliberately not well-formed. */
export const isCorrupt = (e: Entry) => /corrupt/.test(path.basename(e.file));
