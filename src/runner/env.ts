// The environment every test command runs in: property runs, the suite and
// replay. A run that inherits the caller's time zone, locale and hash seed
// can pass on one machine and fail on another; pinning them is the method's
// "fixed locale, timezone and RNG". `runner.env` changes or unpins each.
// Go keeps test results in its build cache and replays a cached pass without
// running the test: every run gets `-count=1` in GOFLAGS, after the flags
// the caller's GOFLAGS (or runner.env's) already holds.
import type { Config } from '../config/schema.js';

/** The seed variable replay sets from --seed; other runs get 0. */
export const SEED_VARIABLE = 'PROP_SEED';

const PINNED: Record<string, string> = {
  TZ: 'UTC',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONHASHSEED: '0',
  [SEED_VARIABLE]: '0',
};

/** The pinned variables as a run gets them (and as its JSON records them); `seed` is replay's. */
export function runEnv(config: Config, seed?: string): Record<string, string> {
  const env: Record<string, string> = { ...PINNED };
  for (const [name, value] of Object.entries(config.runner.env)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  if (seed !== undefined) env[SEED_VARIABLE] = seed;
  if (config.runner.env.GOFLAGS !== null) env.GOFLAGS = goFlags(config.runner.env.GOFLAGS ?? process.env.GOFLAGS);
  return env;
}

/** GOFLAGS with `-count=1` added, unless it already sets a count (any explicit count turns the result cache off). */
export function goFlags(given: string | undefined): string {
  return /(^|\s)-?-count=/.test(given ?? '') ? given! : [given, '-count=1'].filter(Boolean).join(' ');
}
