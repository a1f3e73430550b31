// The adoption baseline: the tips of every branch and tag when a repository
// with history adopted the guard (`init --baseline`). Commits reachable from
// those tips were made before any rule applied, so the commit rules (mixing,
// owners, links) leave exactly them out: an open branch with old mixed
// history is not refused on its next push, and every later commit is judged.
// Reachability, never a date: a date is whatever the committer typed. The
// file is in the guard zone and read from the base side, so a patch cannot
// widen its own exemption.
import { CannotJudge } from '../common/errors.js';
import { reachableFrom } from '../git/commits.js';
import { objectsOf, readFileAt } from '../git/objects.js';
import type { Tip } from '../git/refs.js';
import type { Repo } from '../git/repo.js';
import { BASELINE_FILE } from '../zones/names.js';

export function baselineText(tips: Tip[]): string {
  return [
    '# patchwarden baseline: the commits reachable from these tips predate the guard;',
    '# the commit rules leave exactly them out (docs/hooks.md). One "<commit> <ref>" a line.',
    ...tips.map((t) => `${t.commit} ${t.ref}`),
    '',
  ].join('\n');
}

/** The recorded commits; a line that is not "<commit> <ref>" stops the judgment with its line. */
export function parseBaseline(text: string, source: string): string[] {
  const commits: string[] = [];
  text.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (!t || t.startsWith('#')) return;
    const id = t.split(/\s+/)[0];
    if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(id))
      throw new CannotJudge(`"${t.slice(0, 60)}" is not "<commit id> <ref>"`, { file: source, line: i + 1 });
    commits.push(id);
  });
  return commits;
}

/** The baseline file at `judgeRev`; null where there is none. */
export async function readBaseline(repo: Repo, judgeRev: string | null): Promise<Buffer | null> {
  return judgeRev ? readFileAt(repo, judgeRev, BASELINE_FILE) : null;
}

/**
 * Which of `commits` (a range: what rev-list lists for its tip `--not`
 * `exclude`) are reachable from a tip recorded in the baseline at `judgeRev`;
 * `file` is that baseline where its reading started earlier.
 */
export async function baselined(
  repo: Repo,
  judgeRev: string | null,
  exclude: string[],
  commits: string[],
  file?: Promise<Buffer | null>,
): Promise<Set<string>> {
  const text = judgeRev && commits.length ? await (file ?? readBaseline(repo, judgeRev)) : null;
  if (!text) return new Set();
  const tips = parseBaseline(text.toString('utf8'), `${judgeRev!.slice(0, 12)}:${BASELINE_FILE}`);
  // Only tips this repository holds: a branch it never received brings nothing here to exempt.
  const objects = await objectsOf(repo, tips);
  const present = tips.filter((_, i) => objects[i]?.type === 'commit');
  const range = new Set(commits);
  return new Set((await reachableFrom(repo, present, exclude)).filter((c) => range.has(c)));
}
