// Branches, remotes and refs: what the repository's refs name, and the one
// ref the guard writes itself.
import type { Repo } from './repo.js';
import { NO_HOOKS } from './run.js';

export interface Tip {
  commit: string;
  ref: string;
}

/** Every branch (local and remote-tracking) and tag of the repository, peeled to its commit. */
export async function currentTips(repo: Repo): Promise<Tip[]> {
  const out = await repo.text([
    'for-each-ref',
    '--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname)',
    'refs/heads/',
    'refs/remotes/',
    'refs/tags/',
  ]);
  const tips: Tip[] = [];
  for (const line of out.split('\n').filter(Boolean)) {
    const [type, id, peeledType, peeled, ref] = line.split(' ');
    if (ref.startsWith('refs/remotes/') && ref.endsWith('/HEAD')) continue; // a pointer to another branch
    const commit = type === 'commit' ? id : peeledType === 'commit' ? peeled : null;
    if (commit) tips.push({ commit, ref }); // a tag of a tree or a blob has no history
  }
  return tips;
}

/** The short name a symbolic ref points at; null when it is none (a detached HEAD) or absent. */
async function symbolicTarget(repo: Repo, ref: string): Promise<string | null> {
  const r = await repo.run(['symbolic-ref', '--quiet', '--short', ref], { okCodes: [1, 128] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

/** The branch checked out; null on a detached HEAD. */
export function currentBranch(repo: Repo): Promise<string | null> {
  return symbolicTarget(repo, 'HEAD');
}

/** The full name of the branch HEAD points at (refs/heads/NAME), or null on a detached HEAD. */
export async function headRef(repo: Repo): Promise<string | null> {
  const r = await repo.run(['symbolic-ref', '-q', 'HEAD'], { okCodes: [1] });
  return r.stdout.toString('utf8').trim() || null;
}

/** The upstream a local branch records (`branch.NAME.remote` and `.merge`), as its remote's name and the ref there; null without one. */
export async function upstreamOf(repo: Repo, branch: string): Promise<{ remote: string; ref: string } | null> {
  const out = await repo.text([
    'for-each-ref',
    '--format=%(upstream:remotename)%00%(upstream:remoteref)',
    '--end-of-options',
    branch,
  ]);
  const [remote, ref] = out.split('\0');
  return remote && ref ? { remote, ref } : null;
}

/** The branch `remote`'s HEAD names (what a clone recorded as its default branch), or null. */
export async function remoteDefaultBranch(repo: Repo, remote: string): Promise<string | null> {
  const head = await symbolicTarget(repo, `refs/remotes/${remote}/HEAD`);
  return head?.startsWith(`${remote}/`) ? head.slice(remote.length + 1) : null;
}

/** The names of the repository's remotes. */
export async function remoteNames(repo: Repo): Promise<string[]> {
  return (await repo.text(['remote'])).split('\n').filter(Boolean);
}

/** Makes `ref` point at `commit` only if it does not exist yet; null when made, else git's reason. */
export async function createRef(repo: Repo, ref: string, commit: string, message: string): Promise<string | null> {
  // An empty old value: the ref must not exist yet, so two writers cannot both own it.
  const r = await repo.run([...NO_HOOKS, 'update-ref', '-m', message, ref, commit, ''], { okCodes: [128, 1] });
  return r.code === 0 ? null : r.stderr.trim();
}

/** Deletes `ref` if it still points at `old`; a ref already gone or moved is left alone. */
export async function deleteRef(repo: Repo, ref: string, old: string): Promise<void> {
  await repo.run([...NO_HOOKS, 'update-ref', '-d', ref, old], { okCodes: [128, 1] });
}

/** The full name of the ref `name` stands for (`origin/main`: `refs/remotes/origin/main`); null when it names no ref. */
export async function fullRefName(repo: Repo, name: string): Promise<string | null> {
  const r = await repo.run(['rev-parse', '--symbolic-full-name', '--end-of-options', name], { okCodes: [1, 128] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

/**
 * The refs of `names` that `remote` holds now, with their ids, and the ref
 * its HEAD points at (null when it tells none), asked of the remote itself.
 * Throws with git's reason when the remote cannot be reached.
 */
export async function remoteRefs(
  repo: Repo,
  remote: string,
  names: string[],
): Promise<{ head: string | null; tips: Map<string, string> }> {
  const out = await repo.text([...NO_HOOKS, 'ls-remote', '--symref', '--end-of-options', remote, 'HEAD', ...names]);
  const tips = new Map<string, string>();
  let head: string | null = null;
  for (const line of out.split('\n')) {
    const [id, name] = line.split('\t');
    if (id.startsWith('ref: ') && name === 'HEAD') head = id.slice(5);
    else if (name !== 'HEAD' && names.includes(name)) tips.set(name, id);
  }
  return { head, tips };
}

/**
 * Fetches the objects of `refs` from `remote` and nothing else: no tag, no
 * submodule, no FETCH_HEAD, no ref of this clone moves (--refmap=).
 */
export async function fetchObjects(repo: Repo, remote: string, refs: string[]): Promise<void> {
  await repo.run([
    ...NO_HOOKS,
    'fetch',
    '--quiet',
    '--no-tags',
    '--no-recurse-submodules',
    '--no-write-fetch-head',
    '--no-auto-gc',
    '--refmap=',
    '--end-of-options',
    remote,
    ...refs,
  ]);
}
