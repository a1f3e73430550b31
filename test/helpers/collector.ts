// A log outside every tree that the revert check's runs add lines to: under
// revert.jobs: 2 each side's command is fenced (fence.ts) and may write
// nothing outside its own tree and temporary root, but reads and the network
// stay open. So a process of the test's own listens on 127.0.0.1 and appends
// what each connection sends, whole, to the log, which the sides may read.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SERVER = `
const net = require('node:net');
const fs = require('node:fs');
const [log, portFile] = process.argv.slice(1);
fs.writeFileSync(log, '');
const server = net.createServer((sock) => {
  const parts = [];
  sock.on('data', (b) => parts.push(b));
  sock.on('end', () => fs.appendFileSync(log, Buffer.concat(parts)));
  sock.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(server.address().port)));
`;

/**
 * Python that sends `line` (plus a newline) to the collector whose port is in
 * $COLLECTOR_PORT; define `send` in a property file with it.
 */
export const PY_SEND = `import socket as _socket


def send(line):
    with _socket.create_connection(("127.0.0.1", int(os.environ["COLLECTOR_PORT"]))) as s:
        s.sendall((line + "\\n").encode())
`;

export interface Collector {
  /** The file the lines go to: readable by the runs. */
  log: string;
  /** What the runs are given: COLLECTOR_PORT. */
  env: { COLLECTOR_PORT: string };
  /** The lines so far. */
  read(): string;
  stop(): void;
}

export function startCollector(): Collector {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-collector-'));
  const log = path.join(dir, 'runs.log');
  const portFile = path.join(dir, 'port');
  const child = spawn(process.execPath, ['-e', SERVER, log, portFile], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  // Synchronous: the tests run the CLI with spawnSync while the collector listens.
  while (!existsSync(portFile) || !readFileSync(portFile, 'utf8')) {
    if (Date.now() > until) throw new Error('the collector did not start');
    Atomics.wait(nap, 0, 0, 20);
  }
  return {
    log,
    env: { COLLECTOR_PORT: readFileSync(portFile, 'utf8') },
    read: () => readFileSync(log, 'utf8'),
    stop: () => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
