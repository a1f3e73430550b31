// pre-commit on repositories shaped like a user's: 20,000 tracked files in
// nested folders, a config with several zones and `zones.guard` entries, and
// 1,000 staged paths spread over production code, tests and docs; and the
// same number of files in a few flat folders. Against a Node script that only
// lists the staged set with git.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, benchEnv, paired, spell, type Row } from './lib.js';

const CONFIG = `version: 1
zones:
  src: ["src/**", "lib/**", "packages/*/src/**"]
  spec: ["spec/**", "packages/*/spec/**"]
  fixtures: ["fixtures/**", "packages/*/fixtures/**"]
  freeze: ["freeze/**"]
  guard: [".github/workflows/**", "scripts/ci/**", "Makefile"]
mix:
  range: refuse
`;

/** Where the files live: production code, properties, fixtures, tests and docs, several levels deep. */
const AREAS = [
  'src/app/core',
  'src/app/api/v1',
  'lib/util',
  'packages/billing/src/model',
  'packages/billing/spec',
  'packages/auth/src',
  'tests/unit/app',
  'tests/integration',
  'docs/guide',
  'spec/props',
  'fixtures/input/cases',
];
/** Staged paths go here: code, tests and docs, never an oracle (a commit that passes). */
const STAGED = [
  'src/app/core',
  'src/app/api/v1',
  'lib/util',
  'packages/billing/src/model',
  'packages/auth/src',
  'tests/unit/app',
  'tests/integration',
  'docs/guide',
];
/** The flat shape: every file right in one of these folders. */
const FLAT = { areas: ['src', 'lib', 'tests', 'docs', 'spec', 'fixtures'], staged: ['src', 'lib', 'tests', 'docs'] };

export default async function preCommit(): Promise<Row[]> {
  return [await shape(true), await shape(false)];
}

async function shape(nested: boolean): Promise<Row> {
  const areas = nested ? AREAS : FLAT.areas;
  const stagedAreas = nested ? STAGED : FLAT.staged;
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-'));
  try {
    const env = benchEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(dir, '.patchwarden.yml'), CONFIG);
    const file = (area: string, i: number) =>
      nested ? path.join(dir, area, `m${i % 25}`, `f${i}.py`) : path.join(dir, area, `f${i}.py`);
    for (let i = 0; i < 20_000; i++) {
      const f = file(areas[i % areas.length], i);
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, `v = ${i}\n`);
    }
    git('add', '-A');
    git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'base');
    for (let i = 0; i < 1000; i++) {
      const area = stagedAreas[i % stagedAreas.length];
      const n = areas.indexOf(area) + areas.length * Math.floor(i / stagedAreas.length) * (nested ? 13 : 3);
      writeFileSync(file(area, n), `v = -${i}\n`);
    }
    git('add', '-A');
    const staged = execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: dir, env })
      .toString()
      .split('\n')
      .filter(Boolean).length;
    const script = "execFileSync('git', ['diff', '--cached', '--name-status', '-z'])";
    const baseline = path.join(dir, 'baseline.mjs');
    writeFileSync(baseline, `import { execFileSync } from 'node:child_process';\n${script};\n`);
    const opts = { cwd: dir, env };
    const runs = paired(
      { cmd: process.execPath, args: [CLI, 'pre-commit'], opts },
      { cmd: process.execPath, args: [baseline], opts },
      11,
    );
    return {
      name: nested
        ? `pre-commit, 20,000 files in nested folders, ${staged.toLocaleString('en')} staged over src, lib, packages, tests, docs`
        : `pre-commit, 20,000 files in ${areas.length} flat folders, ${staged.toLocaleString('en')} staged over ${stagedAreas.join(', ')}`,
      ...runs,
      oursName: spell(process.execPath, [CLI, 'pre-commit']),
      baselineName: `node baseline.mjs  # ${script}`,
      target: 1.5,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
