// Under revert.jobs: 2 the head run and the reverted run go at once, as the
// same user; Go and Rust test binaries run with no runtime guard. Where the
// kernel has Landlock, each side's command runs in a domain of its own that
// handles the write rights alone (confine.py --fence): reads stay open, and
// it may write its own tree, its own temporary root (its TMPDIR, GOCACHE,
// caches), its report and guard channel, its sealed worker's folders,
// /dev/null and a /dev/shm of its own, and nothing else: not the other
// side's tree or temporary root, not the git directory (the Go seeds, the
// revert cache), not the judge's install, not the user's home; and in its
// mount namespace every other mount is read-only, so no chmod or utimes of
// the other side's folders either. Where there is
// no Landlock (ABI below 2, no Python, macOS) nothing keeps head's code from
// writing what the base run reads outside its tracked tree (a linked
// dependency, a cache under the home folder), so the sides run in turn
// there, the base first (revert.ts).
import confineSource from './sealed/confine.py';
import { landlockProbe, probeLandlock } from './sealed/confine.js';

/** How the two sides of a check under revert.jobs: 2 were kept apart: fenced at once, or not at once at all. */
export type Fence = 'landlock' | 'none';

/** What each says in the output. */
function fenceWhy(fence: Fence): string {
  return fence === 'landlock'
    ? `each side could write only its own tree and temporary root (${fenceReach(landlockProbe(confineSource).abi)})`
    : 'in turn, base first: no Landlock ABI 2 here to fence each side, so the sides did not run at once';
}

/**
 * What the fence keeps each side from, by Landlock ABI. It handles no TCP
 * and no abstract socket (runners use them), so a base case that fails
 * beside head runs again alone (revert.ts).
 */
function fenceReach(abi: number): string {
  const kept = abi >= 6 ? 'files and signals' : 'files';
  return `Landlock ABI ${abi}: ${kept}; TCP and abstract sockets stay open, so a base case that failed beside head ran again alone`;
}

// The weakest fence any run of this process got, for the output.
let weakest: Fence | null = null;

/** The fence the checks of this process got under revert.jobs: 2 (the weakest), or null when none asked for two sides at once. */
export function fenceSoFar(): Fence | null {
  return weakest;
}

/** The output's line on it, or none when no check asked for two sides at once. */
export function fenceLines(): string[] {
  return weakest ? [`fence: ${weakest} (${fenceWhy(weakest)})`] : [];
}

/**
 * Whether this machine can fence the sides: from Landlock ABI 2, which lets
 * a file be moved between folders of one grant (ABI 1 refuses every such
 * rename, which builds do).
 */
export function fenceAvailable(): boolean {
  return landlockProbe(confineSource).abi >= 2;
}

/** Starts the Landlock probe without waiting for it: a check calls it early, fenceCheck awaits it. */
export function probeFence(): Promise<unknown> {
  return probeLandlock(confineSource);
}

/** Whether a check under revert.jobs: 2 runs its sides at once here (fenced) or in turn; counted for the output. */
export async function fenceCheck(): Promise<Fence> {
  await probeFence();
  const fence = fenceAvailable() ? 'landlock' : 'none';
  weakest = weakest === 'none' ? weakest : fence;
  return fence;
}

/**
 * The argv that runs a command under the fence, writable only beneath
 * `writable` (a path missing grants nothing) and /dev/null, with a /dev/shm
 * of its own. A link in the tree (`revert.link`) grants nothing where it
 * points: the kernel checks the path it resolves to.
 */
export function fencePrefix(writable: string[]): string[] {
  return [
    landlockProbe(confineSource).python!,
    '-I',
    '-S',
    '-c',
    confineSource,
    '--fence',
    '--shm',
    ...[...writable, '/dev/null'].flatMap((p) => ['--rw', p]),
    '--',
  ];
}
