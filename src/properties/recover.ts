// `patchwarden recover`: after an in-place revert check was killed (kill -9,
// a crash, a power cut), bring the working tree and the index back from the
// snapshot it took, and say what was done.
import { parse } from '../common/args.js';
import { emit } from '../common/output.js';
import { showPath } from '../common/text.js';
import { openRepo, worktreeRoot } from '../git/repo.js';
import { findSnapshot, ownerAlive, pidAlive, restoreSnapshot, SNAPSHOT_REF } from './inplace.js';
import { sweepScratch } from './scratch.js';

export const help = `usage: patchwarden recover [--force] [--format text|json] [-C DIR]

Restores the working tree after an in-place revert check (revert.mode:
in-place) was killed before it could restore it itself: every tracked and
untracked file comes back to the bytes it had, files the check created are
removed, the index file is put back, and the snapshot ref (${SNAPSHOT_REF})
is deleted, as are the check's throwaway index files in the git directory. Running it again is harmless; with no snapshot it does nothing.

  --force   recover even though the process that took the snapshot still runs

exit 0 restored or nothing to do, 1 a check is still running, 2 could not judge.`;

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(args, { force: { type: 'boolean' } }, false);
  const repo = await openRepo(common.dir);
  worktreeRoot(repo);
  const snap = await findSnapshot(repo);
  // Throwaway index files of checks that were killed (even before their snapshot was taken).
  const swept = sweepScratch(repo, pidAlive);
  if (!snap)
    return emit(common.format, {
      ok: true,
      json: { recovered: false, restored: [], removed: [], index: 'unchanged' },
      text: [
        'patchwarden: nothing to recover (no in-place snapshot in this repository)',
        ...(swept.length ? [`  removed what killed checks left in the git directory: ${swept.join(', ')}`] : []),
      ],
    });
  if (ownerAlive(snap.meta) && !values.force) {
    return emit(common.format, {
      ok: false,
      json: { recovered: false, pid: snap.meta.pid, restored: [], removed: [], index: 'unchanged' },
      text: [
        `patchwarden: an in-place revert check (pid ${snap.meta.pid}, started ${snap.meta.started}) is still running; it restores the tree when it ends (use --force if that process is not patchwarden)`,
      ],
    });
  }
  const r = await restoreSnapshot(repo, snap);
  const text = [
    `patchwarden: recovered the working tree from the snapshot of ${snap.meta.started} (pid ${snap.meta.pid}, HEAD ${snap.meta.head.slice(0, 12)})`,
    `  ${r.restored.length} file(s) written back${r.restored.length ? ':' : ''}`,
    ...r.restored.map((p) => `    ${showPath(p)}`),
    `  ${r.removed.length} file(s) the check created removed${r.removed.length ? ':' : ''}`,
    ...r.removed.map((p) => `    ${showPath(p)}`),
    `  index: ${r.index}`,
    ...(snap.meta.skipped.length
      ? [`  not covered by the snapshot (left as they are): ${snap.meta.skipped.map(showPath).join(', ')}`]
      : []),
    `  ${SNAPSHOT_REF} deleted`,
  ];
  return emit(common.format, {
    ok: true,
    json: { recovered: true, snapshot: snap.commit, restored: r.restored, removed: r.removed, index: r.index },
    text,
  });
}
