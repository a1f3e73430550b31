// Streams blobs out of one `git cat-file --batch` process, chunk by chunk, so
// a caller can digest hundreds of megabytes without holding them in memory.
import { CannotJudge } from '../common/errors.js';
import type { Repo } from './repo.js';

export interface BlobSink {
  /** Called with each piece of the blob's bytes, in order. */
  data(oid: string, chunk: Buffer): void;
  /** Called once the blob's last byte has been given. */
  end(oid: string): void;
}

/** `type`: the kind of object every id must name (blob unless a caller reads commits). */
export async function streamBlobs(repo: Repo, oids: string[], sink: BlobSink, type = 'blob'): Promise<void> {
  if (!oids.length) return;
  let failure: CannotJudge | null = null;
  // Parser state: a header line, then `left` bytes of `oid`, then one LF.
  let pending = Buffer.alloc(0);
  let oid = '';
  let left = -1;
  let skipLf = false;
  const onStdout = (chunk: Buffer) => {
    let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    pending = Buffer.alloc(0);
    while (buf.length && !failure) {
      if (skipLf) {
        buf = buf.subarray(1);
        skipLf = false;
        continue;
      }
      if (left < 0) {
        const nl = buf.indexOf(0x0a);
        if (nl < 0) {
          pending = Buffer.from(buf);
          return;
        }
        const [id, got, size] = buf.subarray(0, nl).toString('latin1').split(' ');
        buf = buf.subarray(nl + 1);
        if (got !== type) {
          // The rest of git's output is ignored; it ends with its input.
          failure = new CannotJudge(
            `git object ${id} is ${got === 'missing' ? 'missing from the repository' : `a ${got}, not a ${type === 'blob' ? 'file' : type}`}`,
          );
          return;
        }
        oid = id;
        left = Number(size);
      }
      const take = Math.min(left, buf.length);
      if (take) sink.data(oid, buf.subarray(0, take));
      buf = buf.subarray(take);
      left -= take;
      if (left === 0) {
        sink.end(oid);
        left = -1;
        skipLf = true;
      }
    }
  };
  await repo.run(['cat-file', '--batch'], { input: oids.join('\n') + '\n', onStdout });
  if (failure) throw failure;
}
