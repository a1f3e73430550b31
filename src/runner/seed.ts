// The property seed of a gate run. With PROP_SEED pinned, the inputs a
// property draws are known in advance and a patch can special-case exactly
// those; in the gate the seed is fresh: an HMAC of a CI secret, the base tree
// and the production diff's digest (each new diff gets inputs no earlier log
// shows), or, without a secret, drawn at random for the run. The secret is
// taken out of this process's environment as the CLI starts, so no child
// patchwarden starts (git, a test command, a hook) ever inherits it.
import { createHmac, randomInt } from 'node:crypto';
import { UsageError } from '../common/errors.js';
import { SEED_VARIABLE } from './env.js';

/** The CI secret the gate's seed is derived from. */
export const SEED_KEY_VARIABLE = 'PATCHWARDEN_SEED_KEY';

/** What a seed is made of, so it can be passed to any framework: a positive 31-bit integer. */
const SPAN = 0x7fffffff;

export interface PropSeed {
  /** What PROP_SEED is in both runs of the revert check. */
  value: string;
  /** keyed: from PATCHWARDEN_SEED_KEY; random: no key, drawn for this run; given: --seed. */
  source: 'keyed' | 'random' | 'given';
  /** The seed the config pins (runner.env), which both-sides failures are run again under; null when unpinned. */
  pinned: string | null;
}

// Two builds (the CommonJS entry and the lazy ES modules) each hold their own
// copy of this module: the taken key is kept where both see it.
const SLOT = Symbol.for('patchwarden.seedKey');
type Slotted = typeof process & { [SLOT]?: string };

/** Takes the key out of the environment (every child inherits what is left) and returns it; later calls return it again. */
export function takeSeedKey(): string | undefined {
  const p = process as Slotted;
  const key = process.env[SEED_KEY_VARIABLE];
  if (key !== undefined) {
    delete process.env[SEED_KEY_VARIABLE];
    if (key !== '') p[SLOT] = key;
  }
  return p[SLOT];
}

/** HMAC-SHA256(key, "patchwarden-prop-seed\0" + base tree + "\0" + diff digest), its first four bytes read big-endian, mod 2^31-1, plus 1. */
export function keyedSeed(key: string, baseTree: string, digest: string): string {
  const mac = createHmac('sha256', key).update(`patchwarden-prop-seed\0${baseTree}\0${digest}`).digest();
  return String((mac.readUInt32BE(0) % SPAN) + 1);
}

/** The gate's seed: --seed when given, else keyed when the secret is set, else random. */
export function gateSeed(
  pinned: string | null,
  given: string | undefined,
  facts: () => Promise<{ baseTree: string; digest: string }>,
): Promise<PropSeed> {
  if (given !== undefined) return Promise.resolve({ value: checkedSeed(given), source: 'given', pinned });
  const key = takeSeedKey();
  if (key === undefined) return Promise.resolve({ value: String(randomInt(1, SPAN + 1)), source: 'random', pinned });
  return facts().then((f) => ({ value: keyedSeed(key, f.baseTree, f.digest), source: 'keyed', pinned }));
}

/** A seed as replay takes one: a word of letters, digits and ._:-. */
export function checkedSeed(seed: string): string {
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(seed))
    throw new UsageError(`--seed must be a word of letters, digits and ._:- (at most 64), not ${JSON.stringify(seed)}`);
  return seed;
}

/** Whether a run under this seed draws other inputs than the pinned one. */
export function isFresh(seed: PropSeed | null): seed is PropSeed {
  return seed !== null && seed.value !== seed.pinned;
}

/** What a run's environment gets: the seed, or under `pinned` the config's pinned value (nothing when unpinned). */
export function seedEnv(seed: PropSeed | null, pinned = false): Record<string, string> {
  if (!seed) return {};
  const value = pinned ? seed.pinned : seed.value;
  return value === null ? {} : { [SEED_VARIABLE]: value };
}
