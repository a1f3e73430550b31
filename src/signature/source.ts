// The checkout being judged, as a signature reads it: a trace's path (absolute,
// from another checkout, or a JVM package path) found among the checkout's
// files, and a line of it. A path that matches no file, or more than one
// equally well, reads as nothing: the failure is then judged without it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkoutFiles } from '../git/files.js';

/** The text of the checkout file a trace names; null when it is not there. */
export type SourceReader = (file: string) => string | null;

/** A reader over the files git sees in `root` (tracked, and untracked but not ignored). */
export async function checkoutSource(root: string): Promise<SourceReader> {
  const listed = checkoutFiles(root);
  return sourceOver(listed, (rel) => {
    try {
      return readFileSync(path.join(root, rel), 'utf8');
    } catch {
      return null;
    }
  });
}

/** A reader over a list of repository paths and a way to read one. */
export function sourceOver(files: string[], read: (rel: string) => string | null): SourceReader {
  const byBase = new Map<string, string[]>();
  for (const f of files) {
    const base = f.slice(f.lastIndexOf('/') + 1);
    byBase.set(base, [...(byBase.get(base) ?? []), f]);
  }
  const texts = new Map<string, string | null>();
  return (file) => {
    const rel = resolve(file, byBase);
    if (rel === null) return null;
    if (!texts.has(rel)) texts.set(rel, read(rel));
    return texts.get(rel)!;
  };
}

/**
 * The checkout path a trace's path stands for: the one sharing the longest
 * run of trailing folders with it (`/ci/work/tests/bill.test.js` is
 * `tests/bill.test.js`; `com/acme/BillTest.java` is
 * `src/test/java/com/acme/BillTest.java`). A tie is no answer.
 */
function resolve(file: string, byBase: Map<string, string[]>): string | null {
  const parts = file
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p && p !== '.');
  const candidates = byBase.get(parts[parts.length - 1] ?? '') ?? [];
  let best: string | null = null;
  let bestScore = 0;
  let tie = false;
  for (const c of candidates) {
    const cp = c.split('/');
    let n = 0;
    while (n < cp.length && n < parts.length && cp[cp.length - 1 - n] === parts[parts.length - 1 - n]) n++;
    // The shorter of the two must be matched whole: a path shares its folders, not part of them.
    if (n < Math.min(cp.length, parts.length)) continue;
    if (n > bestScore) {
      best = c;
      bestScore = n;
      tie = false;
    } else if (n === bestScore) tie = true;
  }
  return tie ? null : best;
}
