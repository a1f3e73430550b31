// The channel the runtime guards report over: a named pipe in the run's
// private folder that every guarded interpreter opens before project code
// runs. patchwarden holds a write end of its own until the command's whole
// process group has ended, so the pipe reaches its end only when every
// interpreter has closed it; then the records are judged.
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import net from 'node:net';

export interface Channel {
  path: string;
  /** Stops holding the pipe open and returns every line written to it, and whether it reached its end in time. */
  drain(ms: number): Promise<{ lines: string[]; ended: boolean }>;
  /** Lets go of the pipe unread (a run that ended in an error), so nothing keeps the process alive. */
  close(): void;
}

export function openChannel(file: string): Channel {
  execFileSync('mkfifo', ['-m', '600', file]);
  const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  let holder: number | null = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  const release = () => {
    if (holder !== null) closeSync(holder);
    holder = null;
  };
  const socket = new net.Socket({ fd: reader, readable: true, writable: false });
  let text = '';
  let ended = false;
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    text += d;
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
      socket.destroy();
      return { lines: text.split('\n').filter((l) => l !== ''), ended };
    },
    close() {
      release();
      socket.destroy();
    },
  };
}
