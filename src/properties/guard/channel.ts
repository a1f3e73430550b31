// The channel the runtime guards report over: a named pipe in the run's
// private folder that every guarded interpreter opens before project code
// runs. patchwarden holds a write end of its own until the command's whole
// process group has ended, so the pipe reaches its end only when every
// interpreter has closed it; then the records are judged. Whether it ended is
// read from the pipe itself once the wait is over, never from which of the
// event loop's callbacks came first: a loop held up past the wait (a loaded
// machine, the other side's run) runs its timers before it reads the end.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';

export interface Channel {
  path: string;
  /**
   * Stops holding the pipe open and returns every line written to it, whether
   * it reached its end in time, and whether it carried more than MAX_KEPT
   * bytes (past that, nothing more is kept).
   */
  drain(ms: number): Promise<{ lines: string[]; ended: boolean; overflowed: boolean }>;
  /** Lets go of the pipe unread (a run that ended in an error), so nothing keeps the process alive. */
  close(): void;
}

/** The most bytes of records kept from one run: far past what the guard sends, short of what one string can hold. */
export const MAX_KEPT = 256 << 20;

/** The longest line handed to `onLine` (characters): a pytest node id is far shorter. */
const MAX_LINE = 1 << 20;

/** `onLine`, where given, gets each whole line as it arrives, while the run goes on (a hint: the drained lines decide). */
export function openChannel(file: string, onLine?: (line: string) => void): Channel {
  execFileSync('mkfifo', ['-m', '600', file]);
  const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  let holder: number | null = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  const release = () => {
    if (holder !== null) closeSync(holder);
    holder = null;
  };
  const socket = new net.Socket({ fd: reader, readable: true, writable: false });
  const chunks: Buffer[] = [];
  let kept = 0;
  let overflowed = false;
  const keep = (d: Buffer) => {
    if (kept + d.length > MAX_KEPT) overflowed = true;
    if (overflowed) return;
    kept += d.length;
    chunks.push(d);
  };
  let ended = false;
  const hear = onLine && lineReader(onLine);
  socket.on('data', (d: Buffer) => {
    keep(d);
    hear?.(d);
  });
  const end = new Promise<void>((resolve) => {
    socket.on('end', () => {
      ended = true;
      resolve();
    });
    socket.on('error', () => resolve());
  });
  return {
    path: file,
    async drain(ms) {
      release();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        end,
        new Promise<void>((r) => {
          timer = setTimeout(r, ms);
        }),
      ]);
      clearTimeout(timer);
      if (!ended) ended = readToEnd(reader, keep);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      return { lines: text.split('\n').filter((l) => l !== ''), ended, overflowed };
    },
    close() {
      release();
      socket.destroy();
    },
  };
}

/**
 * The whole lines of a stream, each handed on as it ends. A line longer than
 * MAX_LINE is no record a run sends as it goes: it is not handed on, nor
 * held here (the drained lines keep it, and judge it).
 * Each chunk is scanned once, so a long line costs its length, not its square.
 */
function lineReader(onLine: (line: string) => void): (d: Buffer) => void {
  const text = new StringDecoder('utf8');
  let parts: string[] = [];
  let size = 0;
  return (d) => {
    const lines = text.write(d).split('\n');
    const rest = lines.pop()!;
    for (const line of lines) {
      if (size + line.length <= MAX_LINE) onLine(parts.join('') + line);
      parts = [];
      size = 0;
    }
    size += rest.length;
    if (size <= MAX_LINE) parts.push(rest);
    else parts = [];
  };
}

/** Reads what the pipe still holds without waiting: true at its end (no writer holds it open), false while one does. */
function readToEnd(fd: number, keep: (d: Buffer) => void): boolean {
  for (;;) {
    const buf = Buffer.alloc(1 << 16);
    let n: number;
    try {
      n = readSync(fd, buf);
    } catch {
      // EAGAIN: a writer still holds it; anything else (the socket failed and closed it) cannot show an end.
      return false;
    }
    if (n === 0) return true;
    keep(buf.subarray(0, n));
  }
}
