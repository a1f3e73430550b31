// The one way to build the classifier of a config's zones: from a judge's
// rules already compiled (the hooks' cached judge), or from a config whose
// globs are compiled here (the glob compiler loads only then), as this
// repository reads paths: core.ignorecase where the caller knows it already,
// else asked of git, and where the paths to be judged are known, asked only
// when one of them could tell.
import { configBool, type Repo } from '../git/repo.js';
import { classifierFrom, type Classify, type ZoneRule } from '../zones/classify.js';
import type { Judge } from './judge.js';
import type { Config } from './schema.js';

export interface CaseKnown {
  /** core.ignorecase, where already read (pre-receive reads it with the judging branch). */
  ignoreCase?: boolean;
  /** The paths to be classified: git is asked only when one of them falls in another zone with case folded. */
  paths?: readonly string[];
}

export async function classifierFor(
  repo: Repo,
  zones: Config | Pick<Judge, 'rules'>,
  known: CaseKnown = {},
): Promise<Classify> {
  if (!('rules' in zones)) {
    const [{ zoneRules }, ignoreCase] = await Promise.all([
      import('./zone-rules.js'),
      known.ignoreCase ?? configBool(repo, 'core.ignorecase'),
    ]);
    return classifierFrom(zoneRules(zones, ignoreCase));
  }
  const { rules } = zones;
  if (known.ignoreCase !== undefined) return classifierFrom(known.ignoreCase ? rules.folded : rules.exact);
  const exact = classifierFrom(rules.exact);
  if (known.paths && sameEitherWay(rules, exact, known.paths)) return exact;
  return (await configBool(repo, 'core.ignorecase')) ? classifierFrom(rules.folded) : exact;
}

/**
 * Whether no path falls in a different zone with case folded, so that
 * core.ignorecase (a process to ask) cannot change the verdict. A path of
 * lower-case ASCII can only differ through a pattern whose own text holds
 * upper case (`Makefile`), so only such paths, and those with upper-case or
 * non-ASCII letters, are compared.
 */
function sameEitherWay(rules: Judge['rules'], exact: Classify, paths: readonly string[]): boolean {
  const folded = classifierFrom(rules.folded);
  const casedOnly: ZoneRule[] = rules.folded.map((r, i) => ({
    ...r,
    patterns: r.patterns.filter((_, j) => /[A-Z]/.test(JSON.stringify(rules.exact[i].patterns[j]))),
  }));
  const cased = classifierFrom(casedOnly);
  return paths.every((p) => !(/[^\x00-\x40\x5b-\x7f]/.test(p) || cased(p) !== null) || exact(p) === folded(p));
}
