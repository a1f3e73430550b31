// The lines a change adds, per file, from one `git diff -U0` over git objects
// (works in a bare repository and in the push quarantine). Only hunk headers
// are read: the scanner reads each file whole from its blob, so a line is
// judged with the imports and aliases around it.
import { emptyTree, type Repo } from '../git/repo.js';

export interface Added {
  path: string;
  /** The file's blob after the change. */
  oid: string;
  /** 1-based line numbers the change adds. */
  lines: Set<number>;
}

/** Pinned so that no diff setting (prefixes, relative paths, renames, drivers) changes what is read. */
const DIFF = ['diff', '-U0', '-a', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--no-relative', '--full-index', '--src-prefix=a/', '--dst-prefix=b/', '--diff-filter=AMT'];

/** What `to` adds over `from` (commits or trees); `to` null is the index over `from`. */
export async function addedLines(repo: Repo, from: string | null, to: string | null, want: (path: string) => boolean): Promise<Added[]> {
  const base = from ?? (await emptyTree(repo));
  const args = to === null ? [...DIFF, '--cached', base] : [...DIFF, base, to];
  const out = (await repo.run([...args, '--'])).stdout.toString('utf8');
  return parseDiff(out).filter((a) => a.lines.size && want(a.path));
}

/** Files and their added line numbers from `git diff -U0 --full-index` output. */
export function parseDiff(out: string): Added[] {
  const files: Added[] = [];
  let cur: Added | null = null;
  let inHunk = false;
  let link = false;
  for (const line of out.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = { path: gitPath(line.slice(11)), oid: '', lines: new Set() };
      files.push(cur);
      inHunk = false;
      link = false;
      continue;
    }
    if (!cur) continue;
    if (!inHunk) {
      const index = /^index [0-9a-f]+\.\.([0-9a-f]+)(?: (\d+))?$/.exec(line);
      // Links and submodules are not source text.
      if (/^(new file mode|new mode|index .*) (120000|160000)$/.test(line)) link = true;
      if (index) cur.oid = index[1];
      if (link) cur.oid = '';
    }
    if (line.startsWith('@@ ')) {
      inHunk = true;
      const h = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!h || !cur.oid) continue;
      const start = Number(h[1]);
      const count = h[2] === undefined ? 1 : Number(h[2]);
      for (let n = start; n < start + count; n++) cur.lines.add(n);
    }
  }
  return files.filter((f) => f.oid && !/^0+$/.test(f.oid));
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
    if (s[i] !== '\\') { bytes.push(...Buffer.from(s[i], 'utf8')); continue; }
    const next = s[i + 1];
    if (/[0-7]/.test(next)) { bytes.push(parseInt(s.slice(i + 1, i + 4), 8)); i += 3; continue; }
    bytes.push(simple[next] ?? next.charCodeAt(0));
    i++;
  }
  return Buffer.from(bytes).toString('utf8');
}
