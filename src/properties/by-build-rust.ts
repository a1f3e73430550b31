// Rust's side of fixed by build (by-build.ts): the errors as cargo prints
// rustc's (`error[E0425]: cannot find function `double` in module
// `shop::bill``, then ` --> spec/properties.rs:5:30`), read only where cargo
// says the build failed (`error: could not compile`), and the public items
// the diff adds. No Rust parser ships with the judge, so those items are a
// light reading of each production `.rs` file, its comments and string
// literals blanked: every `pub` fn, struct, enum, union, trait, type, const,
// static and mod by name, and `Type.method` for the `pub fn`s of an inherent
// `impl Type` and every fn of a trait's `impl Trait for Type`. A missing name
// is matched by that name alone, whatever module rustc says it looked in.
import type { RawChange } from '../git/changes.js';
import { readBlobs } from '../git/objects.js';
import { ABSENT } from '../git/raw-diff.js';
import type { Repo } from '../git/repo.js';
import type { BuildError } from './by-build.js';
import type { InvariantResult } from './mapping.js';

/** One error of a failed cargo build: the file and line its `-->` line names (null: none), and rustc's message with its code. */
interface RustError {
  file: string | null;
  line: number | null;
  message: string;
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
/** cargo's own summary of a failed build: not an error of its own. */
const SUMMARY = /^error: (could not compile `|aborting due to )/;

/** The errors in a cargo run's output, each once; null when cargo did not say a build failed. */
export function rustBuildErrors(output: string): RustError[] | null {
  const lines = output.replace(ANSI, '').split('\n');
  if (!lines.some((l) => /^error: could not compile `/.test(l))) return null;
  const seen = new Map<string, RustError>();
  lines.forEach((line, i) => {
    const head = /^error(\[E\d{4}\])?: (.+)$/.exec(line);
    if (!head || SUMMARY.test(line)) return;
    // rustc names the place on the next line that is not the header's continuation.
    const at = lines.slice(i + 1, i + 4).find((l) => /^\s*--> /.test(l));
    const place = at ? /^\s*--> (.+?):(\d+):\d+$/.exec(at) : null;
    const error = {
      file: place?.[1].replace(/^\.\//, '') ?? null,
      line: place ? Number(place[2]) : null,
      message: `${head[1] ?? ''}${head[2].trim()}`,
    };
    seen.set(`${error.file}\0${error.line}\0${error.message}`, error);
  });
  return [...seen.values()];
}

const last = (path: string) => path.replace(/<.*$/, '').split('::').pop()!;

/** The name a message says is missing (`name`, or `Type.member` for a method or associated item); null for any other error. */
export function rustMissing(message: string): string | null {
  const name =
    /^\[E04(?:25|12|22)\]cannot find [\w ,]+ `(\w+)` in (?:this scope|module `[\w:]+`|crate `\w+`)$/.exec(message) ??
    /^\[E0433\](?:failed to resolve: )?(?:could not find|cannot find) `(\w+)` in `[\w:]+`$/.exec(message) ??
    /^\[E0433\]failed to resolve: use of undeclared (?:type|crate or module) `(\w+)`$/.exec(message);
  if (name) return name[1];
  const imported = /^\[E0432\]unresolved import `((?:\w+::)*\w+)`$/.exec(message);
  if (imported) return last(imported[1]);
  const member =
    /^\[E0599\]no (?:method|function or associated item) named `(\w+)` found for (?:struct|enum|union|trait) `([\w:<>, ]+)` in the current scope$/.exec(
      message,
    );
  if (member) return `${last(member[2])}.${member[1]}`;
  return null;
}

/** A Rust source with its comments, string and char literals blanked (newlines kept), so braces and keywords are code. */
function code(source: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return source.replace(
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|r(#*)"[\s\S]*?"\1|b?"(?:\\[\s\S]|[^"\\])*"|b?'(?:\\.|[^'\\\n])'/g,
    blank,
  );
}

/** Where the block opening at `open` (a `{`) closes: the index of its `}` (the end of the text when unclosed). */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return text.length;
}

/** The text of a block's body at its own depth: nested blocks blanked. */
function shallow(body: string): string {
  let depth = 0;
  let out = '';
  for (const ch of body) {
    if (ch === '}') depth--;
    out += depth > 0 && ch !== '\n' ? ' ' : ch;
    if (ch === '{') depth++;
  }
  return out;
}

const QUALIFIERS = String.raw`(?:(?:const|async|unsafe|default|extern(?:\s+"[^"]*")?)\s+)*`;
const PUB = String.raw`\bpub(?:\s*\([^)]*\))?\s+`;
const ITEM = new RegExp(
  `${PUB}${QUALIFIERS}(?:fn|struct|enum|union|trait|type|const|static|mod)\\s+(?:mut\\s+)?(\\w+)`,
  'g',
);

/** The public names a Rust source declares (see the head of this file). */
export function rustNames(source: string): Set<string> {
  let text = code(source);
  const names = new Set<string>();
  // An item `impl` (after a `;`, a block or an attribute), never `-> impl Trait`.
  for (const m of [...text.matchAll(/(?<=^|[;{}\]])\s*(?:unsafe\s+)?impl\b([^{;]*)\{/g)]) {
    const open = m.index + m[0].length - 1;
    const end = closing(text, open);
    const header = m[1].replace(/\bwhere\b[\s\S]*$/, '');
    const forType = /\bfor\s+(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?((?:\w+::)*\w+)/.exec(header);
    const type = forType?.[1] ?? /^\s*(?:<[^{]*?>\s*)?(?:&\s*(?:mut\s+)?)?((?:\w+::)*\w+)/.exec(header)?.[1];
    const fns = new RegExp(`${forType ? '(?:^|[;}\\s])' : PUB}${QUALIFIERS}fn\\s+(\\w+)`, 'g');
    if (type) for (const f of shallow(text.slice(open + 1, end)).matchAll(fns)) names.add(`${last(type)}.${f[1]}`);
    // An impl's fns are members, never free items.
    text = text.slice(0, open + 1) + text.slice(open + 1, end).replace(/[^\n]/g, ' ') + text.slice(end);
  }
  for (const m of text.matchAll(ITEM)) names.add(m[1]);
  return names;
}

/** The names head's production `.rs` files declare and the base's do not (over all the changed files, so a move adds nothing). */
async function addedRustNames(repo: Repo, production: RawChange[]): Promise<Set<string>> {
  const files = production.filter((c) => c.path.endsWith('.rs'));
  const oids = [...new Set(files.flatMap((c) => [c.oldOid, c.newOid]).filter((o) => !/^0+$/.test(o)))];
  const blobs = await readBlobs(repo, oids);
  const side = (old: boolean) =>
    new Set(
      files
        .filter((c) => (old ? c.oldMode : c.newMode) !== ABSENT)
        .flatMap((c) => [...rustNames(blobs.get(old ? c.oldOid : c.newOid)!.toString('utf8'))]),
    );
  const before = side(true);
  return new Set([...side(false)].filter((n) => !before.has(n)));
}

/** The errors of a reverted cargo run, each with the added name it misses (null: any other error); null when no build failed. */
export async function rustErrors(repo: Repo, production: RawChange[], output: string): Promise<BuildError[] | null> {
  const errors = rustBuildErrors(output);
  if (!errors) return null;
  if (!errors.length) return [{ file: null, symbol: null }];
  const added = await addedRustNames(repo, production);
  return errors.map((e) => {
    const symbol = rustMissing(e.message);
    return { file: e.file, line: e.line ?? undefined, symbol: symbol && added.has(symbol) ? symbol : null };
  });
}

/**
 * Whether an error at `line` of a Rust property file is an invariant's: the
 * line is inside the inline module its cases sit in (`mod invariant_… {`),
 * or the file is that module's own (`invariant_….rs`, `invariant_…/mod.rs`);
 * or, for a harness that names its tests (libtest-mimic), the file names
 * `[invariant:ID]`. An error outside every module (a `use` at the top of the
 * file) is no invariant's.
 */
export function rustOwns(source: string, inv: InvariantResult, line?: number, file = ''): boolean {
  if (source.includes(`[invariant:${inv.id}]`)) return true;
  const text = code(source);
  const modules = new Set(inv.outcomes.flatMap((o) => o.name.split('::').filter((s) => /^invariant_\w+$/.test(s))));
  for (const m of modules) {
    if (new RegExp(`(^|/)${m}(\\.rs|/mod\\.rs)$`).test(file)) return true;
    for (const block of text.matchAll(new RegExp(`\\bmod\\s+${m}\\s*\\{`, 'g'))) {
      const open = block.index + block[0].length - 1;
      const [from, to] = [open, closing(text, open)].map((i) => text.slice(0, i).split('\n').length);
      if (line !== undefined && line >= from && line <= to) return true;
    }
  }
  return false;
}
