// The tamper scan at commit time, where it is cheap: the staged production
// files (the src zone) when there are at most MAX_FILES of them and their
// blobs hold at most MAX_BYTES together. The scanner reads each file whole,
// at about 2 ms per KiB; above the bound the commit is not held up, and
// pre-push, pre-receive and the gate scan the same lines. The tamper modules
// load only for a commit that stages production files, and no more of them
// than the bound.
import type { Config } from '../config/schema.js';
import { GITLINK, SYMLINK, type RawChange } from '../git/raw-diff.js';
import { blobSizes } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import type { TamperVerdict } from '../tamper/judge.js';
import type { Classify } from '../zones/classify.js';

export const MAX_FILES = 20;
export const MAX_BYTES = 128 * 1024;

/** The verdict on the staged production files, or why they were left to pre-push; null when nothing is there to scan. */
async function stagedTamper(
  repo: Repo,
  config: Config,
  changes: RawChange[],
  classify: Classify,
  base: { from: string | null; rev: string | null },
): Promise<TamperVerdict | { left: string } | null> {
  if (config.tamper.mode === 'off') return null;
  const files = changes.filter(
    (c) => c.status !== 'D' && c.newMode !== SYMLINK && c.newMode !== GITLINK && classify(c.path) === 'src',
  );
  if (!files.length) return null;
  if (files.length > MAX_FILES) return { left: `${files.length} staged production files, over the ${MAX_FILES}` };
  // The blobs' sizes and the layer's module, side by side.
  const [sizes, { judgeTamper }] = await Promise.all([
    blobSizes(
      repo,
      files.map((c) => c.newOid),
    ),
    import('../tamper/judge.js'),
  ]);
  const bytes = sizes.reduce((sum, n) => sum + n, 0);
  // A blob git cannot size (NaN) goes on to the scan, which fails closed on it.
  if (bytes > MAX_BYTES)
    return { left: `${Math.ceil(bytes / 1024)} KiB of staged production files, over the ${MAX_BYTES / 1024} KiB` };
  return judgeTamper(
    repo,
    config,
    { from: base.from, to: null, judgeRev: base.rev, paths: files.map((c) => c.path) },
    classify,
  );
}

/** The pre-commit hook's tamper fact: the verdict within the bound; above it, a note that pre-push scans them. */
export async function boundedTamper(
  repo: Repo,
  config: Config,
  changes: RawChange[],
  classify: Classify,
  base: { from: string | null; rev: string | null },
): Promise<TamperVerdict | null> {
  const tamper = await stagedTamper(repo, config, changes, classify, base);
  if (!tamper || !('left' in tamper)) return tamper;
  process.stderr.write(
    `patchwarden: tamper scan left to pre-push (${tamper.left} a commit scans); \`patchwarden tamper --staged\` scans them now\n`,
  );
  return null;
}
