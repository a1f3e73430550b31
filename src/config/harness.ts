// The test harness: files whose only role is to run tests (conftest.py on
// the property path, the runners' own configs, and the setup files those
// name). From config version 2 they are in the guard zone: a patch that swaps
// the function under test from one of them changes the judge, not the code.
// Shared files (pyproject.toml, package.json, vite.config.*, setup.cfg,
// tox.ini) stay in whatever zone the globs give them.
import path from 'node:path';
import type { Config } from './schema.js';

/** The runners' configs, at any depth: pytest, jest, vitest, mocha. */
export const HARNESS_CONFIGS = [
  '**/pytest.ini',
  '**/jest.config.*',
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/.mocharc.*',
];

/**
 * Files shared with the build: never zoned as harness, but the run of a
 * change without production code takes them from the base with the harness
 * (pytest's addopts and jest's keys live in them too).
 */
export const SHARED_FILES = ['**/pyproject.toml', '**/package.json', '**/vite.config.*', '**/setup.cfg', '**/tox.ini'];

/** Whether `config` puts the harness in the guard zone (`version: 2`). */
export const harnessGuarded = (config: Config): boolean => config.version >= 2;

/**
 * The harness globs of `config`: none before version 2. conftest.py is taken
 * on the property path only (anywhere under each spec folder, and in each
 * folder above one up to the root), as pytest loads it from there: a
 * conftest.py beside unit tests elsewhere stays the suite's own.
 */
export function harnessGlobs(config: Config): string[] {
  if (!harnessGuarded(config)) return [];
  const spec = config.zones.find((z) => z.name === 'spec')?.globs ?? [];
  const folders = new Set(spec.map(literalFolder));
  const conftest = new Set<string>(['conftest.py']);
  for (const f of folders) {
    const dir = f === '.' ? '' : f;
    conftest.add(dir ? `${dir}/**/conftest.py` : '**/conftest.py');
    // Each folder above it, up to the root.
    for (let up = dir; up; ) {
      up = path.posix.dirname(up) === '.' ? '' : path.posix.dirname(up);
      conftest.add(up ? `${up}/conftest.py` : 'conftest.py');
    }
  }
  return [...conftest, ...HARNESS_CONFIGS];
}

/** The folder a glob's literal leading segments name ('.' when it starts with a wildcard). */
function literalFolder(glob: string): string {
  const segments = glob.replace(/^\.\//, '').split('/');
  const literal: string[] = [];
  for (const s of segments) {
    if (/[*?[\]{}()!+@\\]/.test(s)) break;
    literal.push(s);
  }
  // A glob without wildcards names a file: its folder.
  if (literal.length === segments.length) literal.pop();
  return literal.join('/') || '.';
}
