// Reading a file in a folder that code patchwarden does not trust can
// write (the revert cache in CI, a sealed run's calls folder): a named pipe
// there would hold an open, and the check, forever, and a link could point
// at /dev/zero, so nothing is waited for nor a link followed.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** A regular file's bytes, or null for anything else or a file over `maxBytes`; throws where it cannot be opened (ENOENT, ELOOP for a link). */
export function readRegularFile(file: string, maxBytes: number): Buffer | null {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const bytes = Buffer.alloc(st.size);
    let at = 0;
    while (at < st.size) {
      const n = readSync(fd, bytes, at, st.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}
