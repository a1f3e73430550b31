// Where the revert check of a pushed branch starts: the merge base with the
// branch it will merge into (its target), read from the remote at push time,
// so a branch rebased onto a fixed main is not credited with main's fix. The
// gate measures a pull request the same way (its --base).
import type { Config } from '../config/schema.js';
import { fetchObjects, remoteRefs, upstreamOf } from '../git/refs.js';
import { commitOrNull, isAncestor, mergeBase, type Repo } from '../git/repo.js';

/** The branch a pushed ref will merge into, and why that one. */
interface Target {
  /** The branch on the remote, e.g. refs/heads/main. */
  ref: string;
  why: string;
}

/** The revert check's start for one ref: the target's merge base, or the range's own base and why. */
export interface RevertBase {
  target: string | null;
  /** The target's tip as fetched, the judged tree's base (the gate's --base); null: the range's base. */
  tip: string | null;
  from: string;
  note: string;
}

const short = (ref: string) => ref.replace(/^refs\/heads\//, '');

/** `pre_push.base` as a ref of `remote`: `main`, `origin/main`, `refs/heads/main`, `refs/remotes/origin/main`. */
function configuredRef(name: string, remote: string): string {
  for (const prefix of ['refs/heads/', `refs/remotes/${remote}/`, `${remote}/`])
    if (name.startsWith(prefix)) return `refs/heads/${name.slice(prefix.length)}`;
  return `refs/heads/${name}`;
}

/**
 * The pushed branch's target: its upstream on the same remote where that is
 * another branch (a branch of develop merges into develop), else pre_push.base,
 * else the remote's default branch (null: ask the remote which that is).
 */
async function targetOf(
  repo: Repo,
  config: Config,
  remote: string,
  localRef: string,
  remoteRef: string,
): Promise<Target | null> {
  if (localRef.startsWith('refs/heads/')) {
    const up = await upstreamOf(repo, localRef);
    if (up?.remote === remote && up.ref.startsWith('refs/heads/') && up.ref !== remoteRef)
      return { ref: up.ref, why: `the upstream of ${short(localRef)}` };
  }
  if (config.pre_push.base)
    return { ref: configuredRef(config.pre_push.base, remote), why: `pre_push.base in ${config.source}` };
  return null;
}

/** The remote's tips at push time: its default branch's name, and the branch tips asked for. */
export interface RemoteTips {
  main: string | null;
  tips: Map<string, string>;
}

/**
 * The tips of `refs` on `remote` (and its HEAD's branch) as the remote holds
 * them now, each fetched when this clone lacks it. Throws with git's reason
 * when the remote cannot be reached.
 */
async function remoteTips(repo: Repo, remote: string, refs: string[]): Promise<RemoteTips> {
  const { head, tips } = await remoteRefs(repo, remote, ['refs/heads/main', 'refs/heads/master', ...refs]);
  const main = head ?? ['refs/heads/main', 'refs/heads/master'].find((r) => tips.has(r)) ?? null;
  const absent: string[] = [];
  for (const name of refs.length ? refs : [main ?? '']) {
    const id = tips.get(name);
    if (id && !(await commitOrNull(repo, id))) absent.push(name);
  }
  if (absent.length) await fetchObjects(repo, remote, absent);
  return { main, tips };
}

/**
 * Where the revert check of `tip` starts. The target's merge base, unless the
 * remote's copy of the branch already holds commits past it (a branch pushed
 * again without a rebase, a long-lived branch such as develop or release/*):
 * then the range's own base, as those pushes were always judged.
 */
async function revertBase(
  repo: Repo,
  target: Target | null,
  push: { remote: string; remoteRef: string; tip: string; rangeBase: string },
  fetched: RemoteTips,
): Promise<RevertBase> {
  const { remote, remoteRef, tip, rangeBase } = push;
  const ref = target?.ref ?? fetched.main;
  const why = target?.why ?? `the default branch of ${remote}`;
  const keep = (note: string): RevertBase => ({ target: ref, tip: null, from: rangeBase, note });
  if (!ref) return keep(`${remote} has no default branch to measure from`);
  if (ref === remoteRef) return keep(`the push is to ${short(ref)} itself (${why})`);
  const id = fetched.tips.get(ref);
  if (!id) return keep(`${remote} has no ${short(ref)} (${why})`);
  const at = await commitOrNull(repo, id);
  if (!at) return keep(`${short(ref)} moved on ${remote} while it was fetched`);
  const from = await mergeBase(repo, at, tip);
  if (!from) return keep(`${short(ref)} (${why}) shares no history with the pushed tip`);
  if (from !== rangeBase && (await isAncestor(repo, from, rangeBase)))
    return keep(`${remote} already holds this branch past where it left ${short(ref)} (${why})`);
  return { target: ref, tip: at, from, note: `its merge base with ${remote}/${short(ref)} (${why})` };
}

/**
 * The revert check's start for one pushed ref, with the remote asked once per
 * target. Where the remote cannot be reached it says so and starts where the
 * push does, as before targets were read (the gate may then judge otherwise).
 */
export async function revertStart(
  repo: Repo,
  config: Config,
  push: { remote: string; localRef: string; remoteRef: string; tip: string; rangeBase: string },
  asked: Map<string, Promise<RemoteTips>>,
  say: (line: string) => void,
): Promise<RevertBase> {
  const target = await targetOf(repo, config, push.remote, push.localRef, push.remoteRef);
  const key = target?.ref ?? '';
  if (!asked.has(key)) asked.set(key, remoteTips(repo, push.remote, target ? [target.ref] : []));
  let fetched: RemoteTips;
  try {
    fetched = await asked.get(key)!;
  } catch (e) {
    const reason = (e as Error).message.replace(/^git .*? failed: /s, '');
    say(
      `${push.remoteRef}: could not read ${target ? short(target.ref) : 'the default branch'} from ${push.remote} (${reason}); the revert check starts at ${push.rangeBase.slice(0, 12)}, where the push does, not at the merge base with the branch it merges into, so the gate may judge it otherwise`,
    );
    return { target: target?.ref ?? null, tip: null, from: push.rangeBase, note: `offline: ${reason}` };
  }
  const start = await revertBase(repo, target, push, fetched);
  say(
    `${push.remoteRef}: the revert check starts at ${start.from.slice(0, 12)}: ${start.tip ? start.note : `where the push does; ${start.note}`}`,
  );
  return start;
}
