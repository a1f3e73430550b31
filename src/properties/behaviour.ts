// Whether a production diff changes behaviour at all. When every changed
// production file parses to the same syntax tree on both sides once comments
// and formatting are dropped, no property can tell the two apart: the diff
// owes no evidence and no property needs to run. Anything else counts as
// behaviour: an added or deleted file (a rename is both), a mode change, a
// symbolic link or submodule that moves, a file of another language, a file
// either side of which does not parse, and a comment a tool acts on
// (a coding declaration, a pragma, a magic comment) that is added, removed
// or moved. Docstrings are code unless revert.ignore_docstrings: Python hands
// them to the program (`__doc__`: help texts, doctests, generated APIs).
// A file that reads its own source at run time (inspect.getsource,
// open(__file__), a function's toString()) makes its comments data: any
// change to it counts.
// Go is compared by its own parser where go is on PATH; Rust is not compared
// at all: its doc comments are attributes, and doctests run them.
import type { Config } from '../config/schema.js';
import type { RawChange } from '../git/changes.js';
import { readBlobs } from '../git/objects.js';
import { GITLINK } from '../git/raw-diff.js';
import type { Repo } from '../git/repo.js';
import { compareGo } from './go-syntax.js';
import { compareScript, scriptKind } from './js-syntax.js';
import { comparePython, type SourcePair } from './python-syntax.js';

export type Behaviour =
  /** Every production path parses to the same tree on both sides. */
  | { same: true; paths: string[] }
  /** The first production path that changes behaviour, and why. */
  | { same: false; path: string; why: string };

const REGULAR = new Set(['100644', '100755']);
export const isPython = (file: string) => /\.py[iw]?$/i.test(file);
const isGo = (file: string) => file.endsWith('.go');

/** What rules a change out before any file is parsed, or null when its two sides need comparing. */
function plainChange(c: RawChange): string | null {
  if (/^0+$/.test(c.oldMode)) return 'added';
  if (/^0+$/.test(c.newMode)) return 'deleted';
  if (c.oldMode !== c.newMode) return `mode ${c.oldMode} becomes ${c.newMode}`;
  if (c.newMode === GITLINK) return 'a submodule (gitlink) that moves';
  if (!REGULAR.has(c.newMode)) return 'a symbolic link whose target changes';
  if (c.path.endsWith('.rs')) return 'Rust: doc comments are attributes and doctests run, so any change counts';
  if (!isPython(c.path) && !isGo(c.path) && !scriptKind(c.path))
    return 'not Python, JavaScript, TypeScript or Go, so any change counts';
  return null;
}

/** The behaviour of production `changes` already found (onto to head); null when there are none. */
export async function changesBehaviour(
  repo: Repo,
  config: Config,
  changes: RawChange[],
  say?: (line: string) => void,
): Promise<Behaviour | null> {
  if (!changes.length) return null;
  for (const c of changes) {
    const why = plainChange(c);
    if (why) return { same: false, path: c.path, why };
  }
  // One read per blob: readBlobs would join a repeated id's bytes twice.
  const blobs = await readBlobs(repo, [...new Set(changes.flatMap((c) => [c.oldOid, c.newOid]))]);
  const pair = (c: RawChange) => ({ old: blobs.get(c.oldOid)!, new: blobs.get(c.newOid)! });
  for (const c of changes.filter((c) => scriptKind(c.path))) {
    const why = await compareScript(c.path, pair(c));
    if (why) return { same: false, path: c.path, why };
  }
  // Python first: one python3 for every file; go (which may build its helper) only when that settles nothing.
  for (const [files, compare] of [
    [changes.filter((c) => isPython(c.path)), (p: SourcePair[]) => comparePython(p, config.revert.ignore_docstrings)],
    [changes.filter((c) => isGo(c.path)), (p: SourcePair[]) => compareGo(repo, p, say)],
  ] as const) {
    const verdicts = await compare(files.map(pair));
    const i = verdicts.findIndex((v) => v !== null);
    if (i >= 0) return { same: false, path: files[i].path, why: verdicts[i]! };
  }
  return { same: true, paths: changes.map((c) => c.path) };
}

/** The line every layer prints about it. */
export function describeBehaviour(b: Behaviour): string {
  if (!b.same) return `behaviour: ${b.path} changes it (${b.why}), so the properties must prove the diff`;
  return `no behaviour change: ${b.paths.length === 1 ? 'the production file parses' : `all ${b.paths.length} production files parse`} to the same syntax tree as on the base side, comments and formatting aside; it owes no property, and none runs`;
}
