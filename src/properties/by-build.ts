// New API in a compiled language: a property for a function the patch adds
// cannot build without the patch, so the reverted run fails to build where
// head builds. That failure counts as the invariant failing without the patch
// (`fixed`, marked by build) only when every build error the reverted run
// prints names a symbol the production diff adds, and the invariant's
// property file is one those errors are in (so it references those symbols).
// Any other build failure stays what it was (revert_broken). Go only: the
// errors as `go test` and gotestsum print them, and the added symbols from Go's
// own parser (go-syntax.ts) over the base and head sides of each production
// file.
import type { RawChange } from '../git/changes.js';
import { readBlobs, readFileAt } from '../git/objects.js';
import { ABSENT } from '../git/raw-diff.js';
import type { Repo } from '../git/repo.js';
import { goNames } from './go-syntax.js';
import type { InvariantResult } from './mapping.js';

/** One error line of a failed Go build: the file (relative to the run's tree) and go's message. */
interface BuildError {
  file: string;
  message: string;
}

/** The build errors in a Go test run's output, each once; null when no package failed to build. */
export function goBuildErrors(output: string): BuildError[] | null {
  if (!/\[(build|setup) failed\]/.test(output)) return null;
  const seen = new Map<string, BuildError>();
  for (const m of output.matchAll(/^(?:\.\/)?([^\s:][^:\n]*\.go):\d+:\d+: (.+)$/gm))
    seen.set(m[0].replace(/^\.\//, ''), { file: m[1], message: m[2].trim() });
  // A failure whose errors go did not print as file:line:col (go.mod, an import cycle) names no symbol.
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

/**
 * The invariants whose failure to build without the patch counts as failing,
 * each with the symbols its file misses; null when the reverted run's output
 * shows no build failure, or one with any error that is not an added symbol.
 */
export async function fixedByBuild(
  repo: Repo,
  head: string,
  production: RawChange[],
  output: string,
  onHead: InvariantResult[],
): Promise<Map<string, string[]> | null> {
  const errors = goBuildErrors(output);
  if (!errors?.length) return null;
  const symbols = errors.map((e) => missingSymbol(e.message));
  if (symbols.some((s) => s === null)) return null;
  const added = await addedGoSymbols(repo, production);
  if (!symbols.every((s) => isAdded(s!, added))) return null;
  // The file each failing package's errors are in, with the symbols it misses.
  const missing = new Map<string, Set<string>>();
  errors.forEach((e, i) => {
    const at = missing.get(e.file) ?? new Set<string>();
    missing.set(e.file, at.add(symbols[i]!.replace(/^\./, '')));
  });
  const sources = new Map<string, string>();
  for (const file of missing.keys()) sources.set(file, (await readFileAt(repo, head, file))?.toString('utf8') ?? '');
  const found = new Map<string, string[]>();
  for (const inv of onHead) {
    // A Go case is its top-level test function, or a subtest of it: the file that declares that function is the invariant's.
    const funcs = new Set(inv.outcomes.map((o) => o.name.split('/')[0]));
    const files = [...missing.keys()].filter((f) =>
      [...funcs].some((fn) => new RegExp(`^func ${fn.replace(/\W/g, '')}\\(`, 'm').test(sources.get(f)!)),
    );
    if (files.length) found.set(inv.id, [...new Set(files.flatMap((f) => [...missing.get(f)!]))].sort());
  }
  return found.size ? found : null;
}

/**
 * The reverted run's invariants with each invariant fixed by build failing
 * in every case head ran (the keys head's cases have), so each case judges
 * as `fixed`.
 */
export function withBuildFailures(
  reverted: InvariantResult[],
  onHead: InvariantResult[],
  byBuild: Map<string, string[]>,
): InvariantResult[] {
  const out = onHead
    .filter((i) => byBuild.has(i.id))
    .map((i) => ({
      ...i,
      status: 'failed' as const,
      outcomes: i.outcomes.map((o) => ({ ...o, outcome: 'failed' as const })),
    }));
  return [...reverted.filter((i) => !byBuild.has(i.id)), ...out];
}
