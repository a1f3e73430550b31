// The preload's end of the run's channel: one JSON record a line, each
// naming the process (and thread) it comes from. A finding refuses the run.
import fs from 'node:fs';

/** Who a finding names: the file and line of the code that asked. */
export interface At {
  file: string;
  line: number;
}

const writeSync = fs.writeSync;
const stringify = JSON.stringify;
let fd = -1;
let id = '';

/** Opens the channel for this process (`pid`: its pid, and thread id in a worker thread). */
export function openChannel(file: string, pid: string): void {
  fd = fs.openSync(file, 'w');
  id = pid;
}

export function send(rec: Record<string, unknown>, pid = id): void {
  try {
    // No prototype: an Object.prototype.toJSON cannot rewrite a record.
    writeSync(fd, stringify({ __proto__: null, ...rec, pid }) + '\n');
  } catch {
    /* the channel is gone: no final record, the run fails closed */
  }
}

/** A finding on the channel, which refuses the run. */
export function note(event: string, detail: unknown, a: At): void {
  send({ t: 'finding', event, detail: String(detail).slice(0, 300), file: a.file, line: a.line });
}

/** A finding, and an error thrown at the call. */
export function refuse(event: string, detail: unknown, a: At): never {
  note(event, detail, a);
  throw new Error(
    `patchwarden: refused in a property run: ${event} from production code (${a.file}:${a.line}): ${detail}`,
  );
}
