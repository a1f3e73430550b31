// Reads a report file: a TAP stream line by line, a chunk at a time into one
// buffer, so that a large stream is never held whole; anything else whole,
// through the XML reader (parse.ts), which loads only then, since its XML
// parser is most of what reading a report would otherwise load.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';
import { isTapStream, tapReader } from './tap.js';
import type { Report } from './types.js';

/** Bytes read at a time (more where one line is longer). */
export const CHUNK = 1 << 20;
const LF = 10;

export interface ReadOptions {
  /**
   * Only the cases that failed or errored or carry a failure record (a
   * Surefire rerun): all that signing reads. A large stream's passing tests
   * are then never kept.
   */
  failingOnly?: boolean;
}

/** Reads and parses a report file; a missing or unreadable file is CannotJudge. */
export async function readReport(file: string, opts: ReadOptions = {}): Promise<Report> {
  const fd = io(() => openSync(file, 'r'), file);
  try {
    return await readOpen(fd, file, opts.failingOnly ?? false);
  } finally {
    closeSync(fd);
  }
}

/** An I/O step; its error as CannotJudge naming the file. */
function io<T>(step: () => T, file: string): T {
  try {
    return step();
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
}

async function readOpen(fd: number, file: string, failingOnly: boolean): Promise<Report> {
  // Fills buf[from, buf.length) from the file, short only at its end: where the bytes read end.
  const fill = (buf: Buffer, from: number) =>
    io(() => {
      let end = from;
      for (let n = -1; n !== 0 && end < buf.length; end += n) n = readSync(fd, buf, end, buf.length - end, null);
      return end;
    }, file);
  // XML is parsed whole: its first chunk and the rest, in one buffer of the file's size (joining
  // two buffers of a large report cost more than reading it); a pipe, which has no size, to its end.
  const whole = (first: Buffer, size: number): Buffer => {
    if (size < first.length) return first.subarray(0, size);
    const total = io(() => fstatSync(fd).size, file);
    if (total <= size) return Buffer.concat([first, io(() => readFileSync(fd), file)]);
    const all = Buffer.allocUnsafe(total);
    first.copy(all);
    return all.subarray(0, fill(all, size));
  };
  // The first chunk tells a TAP stream from XML.
  let buf = Buffer.allocUnsafe(CHUNK);
  let size = fill(buf, 0);
  if (!isTapStream(buf.subarray(0, size))) {
    const { parseReport } = await import('./parse.js');
    const report = parseReport(whole(buf, size), file);
    if (failingOnly)
      report.cases = report.cases.filter((c) => c.status === 'failed' || c.status === 'error' || c.failures.length);
    return report;
  }
  const reader = tapReader(file, failingOnly);
  // buf[0, size): the lines read from the file and not yet parsed, the last one perhaps unfinished.
  for (;;) {
    const last = size ? buf.lastIndexOf(LF, size - 1) + 1 : 0;
    if (last && !reader.lines(buf, 0, last)) break;
    if (size < buf.length) return reader.finish(buf, last, size);
    // The unfinished line moves to the front, in a buffer twice the size where it fills this one.
    const rest = size - last;
    if (rest === buf.length) buf = Buffer.concat([buf], 2 * buf.length);
    else buf.copyWithin(0, last, size);
    size = fill(buf, rest);
  }
  return reader.finish(buf, 0, 0);
}
