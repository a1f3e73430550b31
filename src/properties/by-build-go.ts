// Go's side of fixed by build (by-build.ts): the errors as `go test` and
// gotestsum print them, and the symbols the diff adds from Go's own parser
// (go-syntax.ts) over the base and head sides of each production file.
import type { RawChange } from '../git/changes.js';
import { readBlobs } from '../git/objects.js';
import { ABSENT } from '../git/raw-diff.js';
import type { Repo } from '../git/repo.js';
import type { BuildError } from './by-build.js';
import { goNames } from './go-syntax.js';
import type { InvariantResult } from './mapping.js';

/** One error line of a failed Go build: the file (relative to the run's tree) and go's message. */
interface GoError {
  file: string;
  message: string;
}

/** The build errors in a Go test run's output, each once; null when no package failed to build. */
export function goBuildErrors(output: string): GoError[] | null {
  if (!/\[(build|setup) failed\]/.test(output)) return null;
  const seen = new Map<string, GoError>();
  for (const m of output.matchAll(/^(?:\.\/)?([^\s:][^:\n]*\.go):\d+:\d+: (.+)$/gm))
    seen.set(m[0].replace(/^\.\//, ''), { file: m[1], message: m[2].trim() });
  return [...seen.values()];
}

/** The symbol a message says is missing, as `pkg.Name` or `pkg.Type.Method` (pkg empty when unqualified); null for any other error. */
export function missingSymbol(message: string): string | null {
  const undef = /^undefined: (?:(\w+)\.)?(\w+)$/.exec(message);
  if (undef) return `${undef[1] ?? ''}.${undef[2]}`;
  const method =
    /^\S+ undefined \(type \*?(?:(\w+)\.)?(\w+)(?:\[[^\]]*\])? has no field or method (\w+)(?:, but does have [\w ]+)?\)$/.exec(
      message,
    );
  if (method) return `${method[1] ?? ''}.${method[2]}.${method[3]}`;
  return null;
}

/** `pkg.Name` for each top-level name (methods `pkg.Type.Method`) head's Go production files declare and the base's do not, per package. */
async function addedGoSymbols(repo: Repo, production: RawChange[]): Promise<Set<string>> {
  const files = production.filter((c) => c.path.endsWith('.go') && !c.path.endsWith('_test.go'));
  const oids = [...new Set(files.flatMap((c) => [c.oldOid, c.newOid]).filter((o) => !/^0+$/.test(o)))];
  const blobs = await readBlobs(repo, oids);
  const sides = async (side: 'old' | 'new') => {
    const changes = files.filter((c) => (side === 'old' ? c.oldMode : c.newMode) !== ABSENT);
    const named = await goNames(
      repo,
      changes.map((c) => blobs.get(side === 'old' ? c.oldOid : c.newOid)!),
    );
    const out = new Set<string>();
    changes.forEach((c, i) => {
      const dir = c.path.replace(/[^/]*$/, '');
      for (const n of named[i]?.names ?? []) out.add(`${dir}\0${named[i]!.pkg}.${n}`);
    });
    return out;
  };
  const [before, after] = [await sides('old'), await sides('new')];
  return new Set([...after].filter((s) => !before.has(s)).map((s) => s.split('\0')[1]));
}

/** Whether `symbol` (from `missingSymbol`) is one of `added`: an unqualified one matches by name in any package. */
function isAdded(symbol: string, added: Set<string>): boolean {
  if (!symbol.startsWith('.')) return added.has(symbol);
  return [...added].some((a) => a.slice(a.indexOf('.')) === symbol);
}

/** The Go build errors of a reverted run, each with the added symbol it misses (null: any other error); null when no package failed to build. */
export async function goErrors(repo: Repo, production: RawChange[], output: string): Promise<BuildError[] | null> {
  const errors = goBuildErrors(output);
  if (!errors) return null;
  // A failure whose errors go did not print as file:line:col (go.mod, an import cycle) names no symbol.
  if (!errors.length) return [{ file: null, symbol: null }];
  const added = await addedGoSymbols(repo, production);
  return errors.map((e) => {
    const symbol = missingSymbol(e.message);
    return { file: e.file, symbol: symbol && isAdded(symbol, added) ? symbol.replace(/^\./, '') : null };
  });
}

/** A Go case is its top-level test function, or a subtest of it: the file that declares that function is the invariant's. */
export function goOwns(source: string, inv: InvariantResult): boolean {
  const funcs = new Set(inv.outcomes.map((o) => o.name.split('/')[0]));
  return [...funcs].some((fn) => new RegExp(`^func ${fn.replace(/\W/g, '')}\\(`, 'm').test(source));
}
