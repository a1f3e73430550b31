// `patchwarden pre-receive`: the server-side hook of a bare repository. It
// judges every pushed ref from git objects alone (inside git's push
// quarantine), by the config, ledger, lock and signers on the judging branch
// (judging-branch.ts): a push that loosens the rules is judged by the old
// ones. Its text is written for a person reading `remote:` lines. This
// module reads the push and starts git's walk of it first; the rules
// (pre-receive-judge.ts) load while git walks.
import { parse } from '../common/args.js';
import { CannotJudge } from '../common/errors.js';
import { rangeChanges, type RawChange } from '../git/changes.js';
import { objectsOf } from '../git/objects.js';
import { SYMLINK } from '../git/raw-diff.js';
import { Reach } from '../git/reach.js';
import { isZeroId, openRepo, type Repo } from '../git/repo.js';
import { CommitSides } from '../mixing/commit-sides.js';
import { OVERRIDE_TRAILER } from '../owners/override.js';
import { parseRefLines, readHookInput } from './ref-lines.js';

export const help = `usage: patchwarden pre-receive [--format text|json] [--config PATH] [-C DIR]

The server-side hook: reads git's "<old> <new> <ref>" lines on stdin and
refuses the push when a ref's new commits break a rule: the mixing rule per
commit and over each ref's new commits, the owners rule (owners.signers,
owners.agents, also against the pusher the server authenticated), the
freeze ledger's shape and the fixture lock at each new tip, and the tamper
layer on the lines each ref adds to production code. Everything is read from
git objects; no test runs. The rules come from the judging branch (git
config patchwarden.branch, which install-server-hook.sh records; else HEAD),
not from the push. Rewinding or deleting the judging branch and pushing
refs/replace/* are refused (pre_receive.judging_branch, replace_refs); other
deletions pass unless pre_receive.deletions is refuse. A judging branch with
no .patchwarden.yml refuses every push unless git config patchwarden.bootstrap
is true on the server (the first adoption).

  --config PATH   judge by this config file on the server instead

exit 0 accepts the push, anything else refuses it.`;

export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}

/** git's pre-receive input: one `<old> <new> <ref>` line per ref. */
export function parseUpdates(text: string): RefUpdate[] {
  return parseRefLines(text, ['old', 'new', 'ref'], ['old', 'new']);
}

/**
 * The commit each pushed object peels to, and each old value, in one process:
 * absent for a tag of a tree or blob. A missing pushed object is an error,
 * never a pass.
 */
async function peelCommits(repo: Repo, oids: string[], olds: string[]): Promise<Map<string, string>> {
  const peeled = new Map<string, string>();
  if (!oids.length) return peeled;
  // Each pushed object, then what it peels to; then each old value's commit.
  const found = await objectsOf(repo, [
    ...oids.flatMap((o) => [o, `${o}^{commit}`]),
    ...olds.map((o) => `${o}^{commit}`),
  ]);
  oids.forEach((oid, i) => {
    if (!found[2 * i]) throw new CannotJudge(`the pushed object ${oid} is not in the repository`);
    const commit = found[2 * i + 1];
    if (commit?.type === 'commit') peeled.set(oid, commit.oid);
  });
  olds.forEach((oid, i) => {
    const commit = found[2 * oids.length + i];
    if (commit?.type === 'commit') peeled.set(oid, commit.oid);
  });
  return peeled;
}

/** What a push brings, from objects alone: needs no config, so it runs while the config loads. */
export interface Pushed {
  /** The commit each pushed object peels to (absent for a tag of a tree or blob). */
  peeled: Map<string, string>;
  /** Every new commit, oldest first. */
  all: string[];
  /** Each pushed ref's new commits, oldest first. */
  commits: Map<string, string[]>;
  /** Which commits the repository already had each ref's new commits grow from. */
  reach: Reach;
  changes: Map<string, RawChange[]>;
  /** Each new commit's parents. */
  parents: Map<string, string[]>;
  /** Each new commit's override claims (OVERRIDE_TRAILER), read by the same walk. */
  trailers: Map<string, string[]>;
  /** Which sides of the mixing rule each new commit touches, worked out as the walk arrived. */
  sides: CommitSides;
  /** The new commits that add or change a symbolic link, noted as the walk arrived. */
  linking: Set<string>;
  /** Every path a new commit changes. */
  paths: Set<string>;
}

/**
 * The push, read: `peeled` as soon as the pushed objects are peeled, `push`
 * once the walk is read, and `sides` as the walk goes (once its zones are
 * started).
 */
export function readPush(
  repo: Repo,
  updates: RefUpdate[],
): { peeled: Promise<Map<string, string>>; push: Promise<Pushed>; sides: CommitSides } {
  const sides = new CommitSides();
  const linking = new Set<string>();
  const paths = new Set<string>();
  const onCommit = (id: string, changes: RawChange[]) => {
    sides.add(id, changes);
    for (const c of changes) {
      paths.add(c.path);
      if (c.newMode === SYMLINK) linking.add(id);
    }
  };
  const pushed = updates.filter((u) => !isZeroId(u.new));
  // A tag of a tree or blob brings no commits, and a missing object is an error.
  const peeled = peelCommits(
    repo,
    [...new Set(pushed.map((u) => u.new))],
    [...new Set(pushed.flatMap((u) => (isZeroId(u.old) ? [] : [u.old])))],
  );
  // One walk and diff of everything the push brings that the repository did
  // not have (works inside git's push quarantine); each ref's part of it is
  // what its tip reaches there.
  const push = peeled.then(async (commitOf) => {
    const tips = [...new Set(pushed.flatMap((u) => (commitOf.has(u.new) ? [commitOf.get(u.new)!] : [])))];
    const walk = tips.length
      ? await rangeChanges(repo, ['--stdin', '--not', '--all'], {
          tips,
          trailer: OVERRIDE_TRAILER,
          onCommit,
        })
      : { commits: [], changes: new Map(), parents: new Map(), trailers: new Map() };
    const reach = new Reach(walk, tips);
    const commits = new Map(pushed.map((u) => [u.ref, commitOf.has(u.new) ? reach.commits(commitOf.get(u.new)!) : []]));
    return {
      peeled: commitOf,
      all: walk.commits,
      commits,
      reach,
      changes: walk.changes,
      parents: walk.parents,
      trailers: walk.trailers,
      sides,
      linking,
      paths,
    };
  });
  return { peeled, push, sides };
}

export async function run(args: string[]): Promise<number> {
  const { common } = parse(args, {}, false);
  const [repo, input] = await Promise.all([openRepo(common.dir), readHookInput()]);
  const updates = parseUpdates(input);
  // The push is read while the rules and the config load; its errors count only once the repository is guarded.
  const pushing = readPush(repo, updates);
  const reading = pushing.push.then(
    (push) => ({ push }),
    (error: unknown) => ({ error }),
  );
  const { judgeReceived } = await import('./pre-receive-judge.js');
  return judgeReceived(repo, common, updates, pushing, reading);
}
