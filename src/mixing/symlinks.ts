// Symbolic links may not carry a zone across its boundary: `src/bill.py`
// turned into a link to `lib/bill.py` moves production code to a free path,
// where a later commit could change it beside an oracle. A link in a zone must
// point into the same zone.
import path from 'node:path';
import type { Violation } from '../common/verdict.js';
import { SYMLINK, type RawChange } from '../git/raw-diff.js';
import { readBlobs } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import type { Classify } from '../zones/classify.js';

/** Where a link's target lands, from the repository's top; null outside it. */
export function linkTarget(link: string, target: string): string | null {
  if (target.startsWith('/') || target.includes('\0')) return null;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(link), target));
  return resolved === '..' || resolved.startsWith('../') ? null : resolved.replace(/\/+$/, '');
}

/**
 * Whether a target climbs (`..`) after a name: the name may itself be a link
 * (`src/d` -> `.`, then `d/../tools/x`), so where the target lands cannot be
 * read from its text.
 */
function climbsAfterName(target: string): boolean {
  const parts = target.split('/').filter((p) => p !== '' && p !== '.');
  const firstName = parts.findIndex((p) => p !== '..');
  return firstName >= 0 && parts.slice(firstName).includes('..');
}

/** Why a link at `link` to `target` crosses a zone boundary, or null when it stays inside its zone (or is in none). */
export function linkCrossing(link: string, target: string, classify: Classify): string | null {
  const zone = classify(link);
  if (zone === null) return null;
  if (climbsAfterName(target))
    return 'a target that climbs (..) after a name, which may itself be a link: where it lands cannot be read from the path';
  const resolved = linkTarget(link, target);
  if (resolved === null) return `outside the repository`;
  if (resolved === '.') return 'the top of the repository, in no zone';
  const there = classify(resolved);
  if (there === zone) return null;
  return there === null ? `${resolved}, in no zone` : `${resolved}, in the ${there} zone`;
}

/** One violation per commit that adds or changes a link whose target leaves the link's zone. */
export async function symlinkViolations(
  repo: Repo,
  commits: string[],
  changes: Map<string, RawChange[]>,
  classify: Classify,
): Promise<Violation[]> {
  const links: { commit: string; change: RawChange }[] = [];
  for (const c of commits)
    for (const change of changes.get(c) ?? []) if (change.newMode === SYMLINK) links.push({ commit: c, change });
  return linkViolations(repo, links, classify);
}

/** The same for the staged set (the index's blob ids are on the new side). */
export async function stagedLinkViolations(repo: Repo, changes: RawChange[], classify: Classify): Promise<Violation[]> {
  return linkViolations(
    repo,
    changes.map((change) => ({ commit: undefined, change })),
    classify,
  );
}

/** One violation per commit (or one for the staged set, `commit` undefined) whose links leave their zone. */
async function linkViolations(
  repo: Repo,
  all: { commit: string | undefined; change: RawChange }[],
  classify: Classify,
): Promise<Violation[]> {
  const links = all.filter(({ change: x }) => x.newMode === SYMLINK && classify(x.path) !== null);
  if (!links.length) return [];
  const targets = await readBlobs(repo, [...new Set(links.map((l) => l.change.newOid))]);
  const byCommit = new Map<string | undefined, { path: string; zone: string; note: string }[]>();
  for (const { commit, change } of links) {
    const target = targets.get(change.newOid)!.toString('utf8');
    const crossing = linkCrossing(change.path, target, classify);
    if (!crossing) continue;
    if (!byCommit.has(commit)) byCommit.set(commit, []);
    byCommit.get(commit)!.push({
      path: change.path,
      zone: classify(change.path)!,
      note: `symbolic link to ${JSON.stringify(target)}: ${crossing}`,
    });
  }
  return [...byCommit].map(([commit, detail]) => ({
    rule: 'symlink',
    commit,
    paths: detail.map((d) => d.path),
    message: `${commit ? 'this commit makes' : 'the staged change makes'} ${detail.length === 1 ? 'a path' : 'paths'} in ${[...new Set(detail.map((d) => d.zone))].join(', ')} a symbolic link that points out of its zone; the zone would no longer cover the bytes it names`,
    fix: 'commit the file itself rather than a link (a link may point only inside its own zone)',
    detail,
  }));
}
