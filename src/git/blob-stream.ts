// Streams blobs out of one `git cat-file --batch` process, chunk by chunk, so
// a caller can digest hundreds of megabytes without holding them in memory.
import { spawn } from 'node:child_process';
import { CannotJudge } from '../common/errors.js';
import type { Repo } from './repo.js';

export interface BlobSink {
  /** Called with each piece of the blob's bytes, in order. */
  data(oid: string, chunk: Buffer): void;
  /** Called once the blob's last byte has been given. */
  end(oid: string): void;
}

export function streamBlobs(repo: Repo, oids: string[], sink: BlobSink): Promise<void> {
  if (!oids.length) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], {
      cwd: repo.cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let failure: CannotJudge | null = null;
    const err: Buffer[] = [];
    // Parser state: a header line, then `left` bytes of `oid`, then one LF.
    let pending = Buffer.alloc(0);
    let oid = '';
    let left = -1;
    let skipLf = false;
    child.stdout.on('data', (chunk: Buffer) => {
      let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      pending = Buffer.alloc(0);
      while (buf.length && !failure) {
        if (skipLf) { buf = buf.subarray(1); skipLf = false; continue; }
        if (left < 0) {
          const nl = buf.indexOf(0x0a);
          if (nl < 0) { pending = Buffer.from(buf); return; }
          const [id, type, size] = buf.subarray(0, nl).toString('latin1').split(' ');
          buf = buf.subarray(nl + 1);
          if (type !== 'blob') {
            failure = new CannotJudge(`git object ${id} is ${type === 'missing' ? 'missing from the repository' : `a ${type}, not a file`}`);
            child.kill();
            return;
          }
          oid = id;
          left = Number(size);
        }
        const take = Math.min(left, buf.length);
        if (take) sink.data(oid, buf.subarray(0, take));
        buf = buf.subarray(take);
        left -= take;
        if (left === 0) { sink.end(oid); left = -1; skipLf = true; }
      }
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new CannotJudge(`cannot run git: ${e.message}`)));
    child.stdin.on('error', () => { /* git may exit early; its exit code tells */ });
    child.on('close', (code) => {
      if (failure) reject(failure);
      else if (code !== 0) reject(new CannotJudge(`git cat-file --batch failed: ${Buffer.concat(err).toString('utf8').trim() || `exit ${code}`}`));
      else resolve();
    });
    child.stdin.end(oids.join('\n') + '\n');
  });
}
