// The zones' names and the guard's own files: the vocabulary every layer
// classifies paths with, below the config that fills the zones with globs.

export const ZONES = ['src', 'spec', 'fixtures', 'freeze', 'guard'] as const;
export type ZoneName = (typeof ZONES)[number];
/** Zones whose paths judge a patch: a production change may not touch them. */
export const ORACLE_ZONES: readonly ZoneName[] = ['spec', 'fixtures', 'freeze', 'guard'];

/** Where GitHub (the first three) and GitLab (all four) look for CODEOWNERS, in the order they look. */
export const CODEOWNERS_FILES = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS'];

/**
 * The guard's own files, always in the guard zone, ahead of every other glob:
 * its config and hooks, the hook managers' configs that run it, and
 * .gitattributes, which changes the bytes a checkout gives the tests while
 * the objects (and so the fixture lock) stay the same, and CODEOWNERS, which
 * says who must review every oracle.
 */
export const BUILTIN_GUARD = [
  '.patchwarden.yml',
  '.patchwarden/**',
  '.husky/**',
  '**/.gitattributes',
  // lefthook: its configs in every format and place it reads, and its script folders.
  '{,.}lefthook{,-local}.{yml,yaml,toml,json,jsonc}',
  '.config/lefthook{,-local}.{yml,yaml,toml,json,jsonc}',
  '.lefthook{,-local}/**',
  '.pre-commit-config.yaml',
  // Who must review the oracles: every place GitHub and GitLab read a CODEOWNERS file.
  ...CODEOWNERS_FILES,
  // The guard itself where the hook shims look for it first: a committed one would run in every clone.
  'node_modules/.bin/patchwarden',
  'node_modules/patchwarden/**',
];

export const CONFIG_FILE = '.patchwarden.yml';
/** The adoption baseline (mixing/baseline.ts): commits that predate the guard. */
export const BASELINE_FILE = '.patchwarden/baseline';
