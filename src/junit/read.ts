// Reads a report file: a TAP stream line by line as its chunks arrive, the
// next chunk read while this one is parsed; anything else whole, through the
// XML reader (parse.ts), which loads only then, since its XML parser is most
// of what reading a report would otherwise load.
import { type FileHandle, open } from 'node:fs/promises';
import { CannotJudge } from '../common/errors.js';
import { isTapStream, tapReader } from './tap.js';
import type { Report } from './types.js';

/** Bytes read at a time, into two buffers reused in turn: a large stream is never held whole. */
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
  const handle = await io(open(file, 'r'), file);
  try {
    return await readOpen(handle, file, opts.failingOnly ?? false);
  } finally {
    await handle.close();
  }
}

/** An I/O step; its error as CannotJudge naming the file. */
async function io<T>(step: Promise<T>, file: string): Promise<T> {
  try {
    return await step;
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

async function readOpen(handle: FileHandle, file: string, failingOnly: boolean): Promise<Report> {
  // Fills `into` from the file, short only at its end: the number of bytes read.
  const fill = async (into: Buffer) => {
    let size = 0;
    for (let n = -1; n !== 0 && size < into.length; size += n)
      n = (await handle.read(into, size, into.length - size, null)).bytesRead;
    return size;
  };
  let buf = Buffer.allocUnsafe(CHUNK);
  let spare = Buffer.allocUnsafe(CHUNK);
  let size = await io(fill(buf), file);
  if (!isTapStream(buf.subarray(0, size))) {
    // XML is parsed whole.
    const rest = await io(handle.readFile(), file);
    const { parseReport } = await import('./parse.js');
    const report = parseReport(Buffer.concat([buf.subarray(0, size), rest]), file);
    if (failingOnly)
      report.cases = report.cases.filter((c) => c.status === 'failed' || c.status === 'error' || c.failures.length);
    return report;
  }
  const reader = tapReader(file, failingOnly);
  // The unfinished last line of the chunks read so far, copied out of the buffer that is reused.
  let carry = null as Buffer | null;
  // Reads the whole lines of buf[0, size); false once the stream is done.
  const feed = (): boolean => {
    let from = 0;
    if (carry) {
      const lf = buf.subarray(0, size).indexOf(LF);
      from = lf < 0 ? size : lf + 1;
      const joined: Buffer = Buffer.concat([carry, buf.subarray(0, from)]);
      carry = lf < 0 ? joined : null;
      if (lf >= 0 && !reader.lines(joined, 0, joined.length)) return false;
    }
    const last = Math.max(from, buf.lastIndexOf(LF, size - 1) + 1);
    if (last > from && !reader.lines(buf, from, last)) return false;
    if (last < size) carry = Buffer.from(buf.subarray(last, size));
    return true;
  };
  while (size > 0) {
    const next = io(fill(spare), file);
    let more: boolean;
    try {
      more = feed();
    } catch (err) {
      // The read under way ends before the file is closed.
      await next.catch(() => 0);
      throw err;
    }
    size = await next;
    if (!more) break;
    [buf, spare] = [spare, buf];
  }
  return carry ? reader.finish(carry, 0, carry.length) : reader.finish(buf, 0, 0);
}
