// JavaScript's and TypeScript's side of fixed by build (by-build.ts): a
// property for a new export cannot load without the patch. The errors read
// are node's ESM link error (`SyntaxError: The requested module 'M' does not
// provide an export named 'X'`, after the `file://` line that names the file
// it is in) and tsc's diagnostics, as tsc, ts-jest and a `tsc; node --test`
// command print them; any other tsc diagnostic names no symbol. `X is not a
// function` is not read: anything can throw it. The symbols the diff adds
// are head's export names minus the base's, per module, and the members of
// top-level classes (js-exports.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawChange } from '../git/changes.js';
import { readBlobs, readFileAt } from '../git/objects.js';
import { ABSENT } from '../git/raw-diff.js';
import type { Repo } from '../git/repo.js';
import type { BuildError } from './by-build.js';
import { scriptNames } from './js-exports.js';
import { scriptKind } from './js-syntax.js';
import type { InvariantResult } from './mapping.js';

/** A load error as printed: the file it is in (relative to the run's tree, or absolute), and what it misses. */
export interface ScriptError {
  file: string | null;
  /** A missing export of a module (its specifier, or an absolute path), a missing class member (`Class.member`), or null: any other error. */
  missing: { module: string; name: string } | { member: string } | null;
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** What a tsc diagnostic's message says is missing, or null for any other diagnostic. */
function tscMissing(code: string, message: string): ScriptError['missing'] {
  const exported =
    code === 'TS2305'
      ? /^Module '"(.+)"' has no exported member '([^']+)'\.$/.exec(message)
      : code === 'TS2724'
        ? /^'"(.+)"' has no exported member named '([^']+)'\. Did you mean '[^']+'\?$/.exec(message)
        : null;
  if (exported) return { module: exported[1], name: exported[2] };
  const property = code === 'TS2339' ? /^Property '([\w$]+)' does not exist on type '(.+)'\.$/.exec(message) : null;
  if (!property) return null;
  const namespace = /^typeof import\("(.+)"\)$/.exec(property[2]);
  if (namespace) return { module: namespace[1], name: property[1] };
  const type = /^([A-Za-z_$][\w$]*)(?:<.*>)?$/.exec(property[2]);
  return type ? { member: `${type[1]}.${property[1]}` } : null;
}

/** The load errors in a run's output, each once; null when it shows none (no tsc diagnostic, no ESM link error). */
export function scriptBuildErrors(output: string): ScriptError[] | null {
  const lines = output.replace(ANSI, '').split('\n');
  const seen = new Map<string, ScriptError>();
  lines.forEach((line, i) => {
    const tsc = /^\s*(?:(.+?)(?:\(\d+,\d+\): | ?:\d+:\d+ - ))?error (TS\d+): (.+?)\s*$/.exec(line);
    if (tsc) seen.set(line.trim(), { file: tsc[1] ?? null, missing: tscMissing(tsc[2], tsc[3]) });
    const esm = /^SyntaxError: The requested module '(.+)' does not provide an export named '(.+)'$/.exec(line);
    if (!esm) return;
    // node prints the importing file's URL and line a few lines above.
    const at = lines
      .slice(Math.max(0, i - 5), i)
      .reverse()
      .map((l) => /^(file:\/\/\S+):\d+$/.exec(l)?.[1])
      .find(Boolean);
    const file = at ? fileURLToPath(at) : null;
    seen.set(`${file}\0${line}`, { file, missing: { module: esm[1], name: esm[2] } });
  });
  return seen.size ? [...seen.values()] : null;
}

/** A module's path without its script extension (`src/bill.ts` and `../src/bill.js` name one module). */
const stem = (p: string) => p.replace(/\.[cm]?[jt]sx?$/, '');

interface Added {
  /** Each changed module's export names head has and the base has not. */
  exports: Map<string, Set<string>>;
  /** `Class.member` head's changed files declare and the base's do not. */
  members: Set<string>;
}

/** What the diff adds to the JavaScript and TypeScript production files; a side that does not parse adds nothing. */
async function addedScriptSymbols(repo: Repo, production: RawChange[]): Promise<Added> {
  const files = production.filter((c) => scriptKind(c.path) && c.newMode !== ABSENT);
  const oids = [...new Set(files.flatMap((c) => [c.oldOid, c.newOid]).filter((o) => !/^0+$/.test(o)))];
  const blobs = await readBlobs(repo, oids);
  const added: Added = { exports: new Map(), members: new Set() };
  const before = new Set<string>();
  for (const c of files) {
    const now = await scriptNames(c.path, blobs.get(c.newOid)!);
    const was =
      c.oldMode === ABSENT
        ? { exports: new Set<string>(), members: new Set<string>() }
        : await scriptNames(c.path, blobs.get(c.oldOid)!);
    if (!now || !was) continue;
    added.exports.set(c.path, new Set([...now.exports].filter((n) => !was.exports.has(n))));
    for (const m of now.members) added.members.add(m);
    for (const m of was.members) before.add(m);
  }
  for (const m of before) added.members.delete(m);
  return added;
}

/**
 * The added symbol a missing export names, or null: a relative specifier is
 * resolved from the file the error is in, an absolute path (tsc's `typeof
 * import("…")`) by its end; a package's name, or a specifier whose file is
 * not one of head's (a build folder), by the name alone.
 */
function addedExport(file: string | null, module: string, name: string, added: Added): string | null {
  const relative = module.startsWith('.') && file !== null && !path.isAbsolute(file);
  const target = relative ? stem(path.posix.join(path.posix.dirname(file), module)) : null;
  for (const [m, names] of added.exports) {
    if (!names.has(name)) continue;
    const s = stem(m);
    const fits = target
      ? s === target || s === `${target}/index`
      : path.isAbsolute(module)
        ? stem(module).endsWith(`/${s}`)
        : true;
    if (fits) return `${name} (${m})`;
  }
  return null;
}

/** The path in head of a file the run names absolutely (the run's tree is a temporary one): its longest end that is a file there. */
async function headPath(repo: Repo, head: string, file: string): Promise<string | null> {
  const parts = file.split('/').filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const rel = parts.slice(i).join('/');
    if ((await readFileAt(repo, head, rel)) !== null) return rel;
  }
  return null;
}

/** The JavaScript and TypeScript load errors of a reverted run, each with the added symbol it misses (null: any other error); null when there are none. */
export async function scriptErrors(
  repo: Repo,
  head: string,
  production: RawChange[],
  output: string,
): Promise<BuildError[] | null> {
  const errors = scriptBuildErrors(output);
  if (!errors) return null;
  const added = await addedScriptSymbols(repo, production);
  const out: BuildError[] = [];
  for (const e of errors) {
    const file =
      e.file && path.isAbsolute(e.file) ? await headPath(repo, head, e.file) : (e.file?.replace(/^\.\//, '') ?? null);
    const symbol = !e.missing
      ? null
      : 'member' in e.missing
        ? added.members.has(e.missing.member)
          ? e.missing.member
          : null
        : addedExport(file ?? e.file, e.missing.module, e.missing.name, added);
    out.push({ file, symbol });
  }
  return out;
}

/** A script's property file is the invariant's when it names the invariant's id whole (`bill.d` is not named by `bill.double`). */
export function scriptOwns(source: string, inv: InvariantResult): boolean {
  const id = inv.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.-])${id}(?![\\w.-])`).test(source);
}
