// The lines a change adds, per file, with each file's text after the change,
// read from one whole-file patch (git/patches.ts), or the same for many
// changes from one patch of them all (a push of many refs): one git process is
// all a hook can spend.
import { CannotJudge } from '../common/errors.js';
import { wholeFilePatch, wholeFilePatches } from '../git/patches.js';
import type { Repo } from '../git/repo.js';

export interface Added {
  path: string;
  /** The file's text after the change. */
  text: string;
  /** 1-based line numbers the change adds; null: every line (the file is added whole). */
  lines: Set<number> | null;
  /** The blob after the change: its bytes are what an opaque file is pinned by. */
  oid: string;
}

/**
 * What `to` adds over `from` (commits or trees; null `from` is the empty
 * tree); `to` null is the index; `paths`, when given, limits the diff to
 * those paths, taken literally. Files that gain no line are left out.
 */
export async function addedLines(
  repo: Repo,
  from: string | null,
  to: string | null,
  paths?: string[],
): Promise<Added[]> {
  return parsePatches(await wholeFilePatch(repo, from, to, paths), false)[0];
}

/**
 * What each change adds, in order, from one `git diff-tree --stdin`: a line
 * `TIP BASE` (commits) is what TIP adds over BASE, a line `FROM TO` (trees)
 * what TO adds over FROM.
 */
export async function addedLinesOf(repo: Repo, lines: string[]): Promise<Added[][]> {
  if (!lines.length) return [];
  const added = parsePatches(await wholeFilePatches(repo, lines), true);
  if (added.length !== lines.length)
    throw new CannotJudge(`git diff-tree answered for ${added.length} of ${lines.length} changes`);
  return added;
}

/** diff-tree --stdin's line before each answer: the commit, or the two trees. */
const HEADER = /^[0-9a-f]{40,64}( [0-9a-f]{40,64})?$/;

/**
 * Files, their text after the change and their added line numbers, from
 * whole-file patch output: one patch, or (`pairs`) one per header line of
 * diff-tree --stdin. Files that gain no line are left out. The output is
 * read in place by offsets (a hunk's rows are not split into strings first:
 * only each kept line's text, without its mark, is cut out).
 */
function parsePatches(out: string, pairs: boolean): Added[][] {
  type File = Rows & { path: string; link: boolean; oid: string };
  const groups: File[][] = pairs ? [] : [[]];
  let read = groups[0];
  let cur: File | null = null;
  // Rows as split('\n') gives them: the text after the last line break is one more (empty) row.
  for (let at = 0; at <= out.length; ) {
    const end = rowEnd(out, at);
    const line = out.slice(at, end);
    at = end + 1;
    // Outside a hunk: readHunk takes every row its counts cover.
    if (pairs && HEADER.test(line)) {
      groups.push((read = []));
      cur = null;
      continue;
    }
    if (line.startsWith('diff --git ')) {
      cur = { path: gitPath(line.slice(11)), body: [], lines: new Set(), whole: false, link: false, oid: '' };
      read.push(cur);
      continue;
    }
    if (!cur) continue;
    // Links and submodules are not source text.
    if (/^(new file mode|new mode|index .*) (120000|160000)$/.test(line)) cur.link = true;
    const index = /^index [0-9a-f]+\.\.([0-9a-f]+)/.exec(line);
    if (index) cur.oid = index[1];
    const h = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    // The hunk's counts say how many rows follow: content is never mistaken for a header.
    if (h) at = readHunk(out, end, cur, h);
  }
  return groups.map((files) =>
    files
      .filter((f) => !f.link && (f.whole || f.lines.size))
      .map((f) => ({ path: f.path, text: f.body.join('\n'), lines: f.whole ? null : f.lines, oid: f.oid })),
  );
}

/** A file's rows after the change, by line, and the lines added (whole: every line, no set built). */
interface Rows {
  body: string[];
  lines: Set<number>;
  whole: boolean;
}

/** Where the row from at ends: its line break, or the end of the output. */
function rowEnd(out: string, at: number): number {
  const end = out.indexOf('\n', at);
  return end < 0 ? out.length : end;
}

/**
 * The rows of a hunk after its header h (a line that ends at `end`), as
 * many as its counts say. Sets the file's new lines and its added line
 * numbers; returns where the next row starts.
 */
function readHunk(out: string, end: number, file: Rows, h: RegExpExecArray): number {
  let pre = h[1] === undefined ? 1 : Number(h[1]);
  let post = h[3] === undefined ? 1 : Number(h[3]);
  let n = Number(h[2]);
  if (pre === 0 && n === 1 && !file.body.length) {
    const next = readNewFile(out, end, file, post);
    if (next >= 0) return next;
  }
  while ((pre > 0 || post > 0) && end < out.length) {
    const at = end + 1;
    end = rowEnd(out, at);
    const mark = out.charCodeAt(at);
    if (mark === 92) continue; // "\ No newline at end of file"
    if (mark === 45) {
      pre--;
      continue;
    }
    if (mark === 43) {
      file.lines.add(n);
      post--;
    } else {
      pre--;
      post--;
    }
    file.body[n - 1] = out.slice(at + 1, end);
    n++;
  }
  return end + 1;
}

/** Rows longer than this on average are read one by one (see readNewFile). */
const LONG_ROW = 512;

/**
 * A hunk that adds the whole file (`@@ -0,0 +1,N @@`: a new file, or one
 * that was empty), its text copied without the rows' marks in one pass: a
 * string cut out per row stays alive until they are joined, and the
 * collector copies each of them (about half of reading 3.5 MiB). Returns
 * where the next row starts, or -1 (nothing set) when a row is not an added
 * one, the rows are long or the text holds a character beyond Latin-1.
 */
function readNewFile(out: string, end: number, file: Rows, post: number): number {
  const from = end + 1;
  let rows = 0;
  for (; rows < post && end < out.length; rows++) {
    const at = end + 1;
    if (out.charCodeAt(at) !== 43) return -1;
    end = rowEnd(out, at);
  }
  // Long rows (minified code) cost little each: cut out, they share the output's characters.
  if (end - from > rows * LONG_ROW) return -1;
  const text = rows ? unmarked(out, from, end) : '';
  if (text === null) return -1;
  if (rows) {
    file.body[0] = text;
    file.whole = true;
  }
  return end + 1;
}

/** Rows from `from` (a mark) to `end`, each without its first character; null past Latin-1 (one byte a character). */
function unmarked(out: string, from: number, end: number): string | null {
  const bytes = Buffer.allocUnsafe(end - from);
  let n = 0;
  for (let i = from + 1; i < end; i++) {
    const c = out.charCodeAt(i);
    if (c > 255) return null;
    bytes[n++] = c;
    if (c === 10) i++; // the next row's mark
  }
  return bytes.toString('latin1', 0, n);
}

/** The path of a `diff --git a/P b/P` header (no renames: both sides name the same path). */
function gitPath(rest: string): string {
  if (rest.startsWith('"')) return unquote(rest).slice(2);
  return rest.slice(2, 2 + (rest.length - 5) / 2);
}

/** git's C-style quoting: `"a/\303\251\n"` back to the path's bytes. */
function unquote(s: string): string {
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, '\\': 92 };
  for (let i = 1; i < s.length && s[i] !== '"'; i++) {
    if (s[i] !== '\\') {
      bytes.push(...Buffer.from(s[i], 'utf8'));
      continue;
    }
    const next = s[i + 1];
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
      i += 3;
      continue;
    }
    bytes.push(simple[next] ?? next.charCodeAt(0));
    i++;
  }
  return Buffer.from(bytes).toString('utf8');
}
