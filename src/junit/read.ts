// Reads a report file: a TAP stream straight from its bytes; anything else
// through the XML reader (parse.ts), which loads only then, since its XML
// parser is most of what reading a report would otherwise load.
import { readFile } from 'node:fs/promises';
import { CannotJudge } from '../common/errors.js';
import { isTapStream, parseTap } from './tap.js';
import type { Report } from './types.js';

/** Reads and parses a report file; a missing or unreadable file is CannotJudge. */
export async function readReport(file: string): Promise<Report> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CannotJudge(
      code === 'ENOENT'
        ? 'no such report'
        : code === 'EISDIR'
          ? 'is a folder, not a report'
          : `cannot read the report (${code ?? (err as Error).message})`,
      { file },
    );
  }
  if (isTapStream(bytes)) return parseTap(bytes, file);
  const { parseReport } = await import('./parse.js');
  return parseReport(bytes, file);
}
