// Patches with whole files as context: what a change adds, line by line, with
// every file's text after it (the tamper scan judges a line with the imports
// and aliases around it). Read over git objects, so it works in a bare
// repository and in the push quarantine.
import { emptyTree, type Repo } from './repo.js';

/**
 * Pinned so that no diff setting (prefixes, relative paths, renames, drivers,
 * blank-line suppression) changes what is read; `-a` so that a `-diff`
 * attribute cannot hide a file's lines.
 */
const PINNED = ['-c', 'diff.suppressBlankEmpty=false'];
const FLAGS = [
  '-U1000000000',
  '-a',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
  '--no-relative',
  '--full-index',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--diff-filter=AMT',
];

/**
 * The patch of what `to` adds over `from` (commits or trees; null `from` is
 * the empty tree, null `to` the index), added, modified and retyped files
 * only; `paths`, when given, limits it to those paths, taken literally.
 */
export async function wholeFilePatch(
  repo: Repo,
  from: string | null,
  to: string | null,
  paths?: string[],
): Promise<string> {
  const base = from ?? (await emptyTree(repo));
  const args = [
    ...(paths ? ['--literal-pathspecs'] : []),
    ...PINNED,
    'diff',
    ...FLAGS,
    ...(to === null ? ['--cached', base] : [base, to]),
  ];
  return (await repo.run([...args, '--', ...(paths ?? [])])).stdout.toString('utf8');
}

/**
 * The same for many changes from one `git diff-tree --stdin`: a line `TIP
 * BASE` (commits) is what TIP adds over BASE, a line `FROM TO` (trees) what
 * TO adds over FROM. Each answer starts with its header line, also for a
 * change that adds nothing (--always), so the answers can be counted.
 */
export async function wholeFilePatches(repo: Repo, lines: string[]): Promise<string> {
  const out = await repo.run([...PINNED, 'diff-tree', '--stdin', '--always', '-r', '-p', ...FLAGS], {
    input: lines.map((l) => `${l}\n`).join(''),
  });
  return out.stdout.toString('utf8');
}
