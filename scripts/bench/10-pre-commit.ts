// pre-commit on repositories shaped like a user's: 20,000 tracked files in
// nested folders, a config with several zones and `zones.guard` entries, and
// 1,000 staged paths spread over production code, tests and docs; and the
// same number of files in a few flat folders. Against a Node script that only
// lists the staged set with git, in three consecutive rounds over both
// shapes: the row meets its target only when every round does.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, benchEnv, paired, spell, type Cmd, type Row } from './lib.js';

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

/** Rounds in a row that must each meet the target (the "three consecutive runs"). */
const ROUNDS = 3;

export default async function preCommit(): Promise<Row[]> {
  const dirs: string[] = [];
  try {
    const shapes = [true, false].map((nested) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-'));
      dirs.push(dir);
      return shape(dir, nested);
    });
    const rounds = shapes.map(() => [] as ReturnType<typeof paired>[]);
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, s] of shapes.entries()) rounds[i].push(paired(s.ours, s.baseline, 11));
    return shapes.map((s, i) => ({
      name: s.name,
      ours: rounds[i].flatMap((x) => x.ours),
      baseline: rounds[i].flatMap((x) => x.baseline),
      cpu: {
        ours: rounds[i].flatMap((x) => x.cpu.ours),
        baseline: rounds[i].flatMap((x) => x.cpu.baseline),
      },
      rounds: rounds[i],
      oursName: spell(process.execPath, [CLI, 'pre-commit']),
      baselineName: `node baseline.mjs  # ${SCRIPT}`,
      target: 1.5,
    }));
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const SCRIPT = "execFileSync('git', ['diff', '--cached', '--name-status', '-z'])";

/** The repository of one shape in `dir`, its files staged, and the two commands run there. */
function shape(dir: string, nested: boolean): { name: string; ours: Cmd; baseline: Cmd } {
  const areas = nested ? AREAS : FLAT.areas;
  const stagedAreas = nested ? STAGED : FLAT.staged;
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
  const baseline = path.join(dir, 'baseline.mjs');
  writeFileSync(baseline, `import { execFileSync } from 'node:child_process';\n${SCRIPT};\n`);
  const opts = { cwd: dir, env };
  return {
    name: nested
      ? `pre-commit, 20,000 files in nested folders, ${staged.toLocaleString('en')} staged over src, lib, packages, tests, docs`
      : `pre-commit, 20,000 files in ${areas.length} flat folders, ${staged.toLocaleString('en')} staged over ${stagedAreas.join(', ')}`,
    ours: { cmd: process.execPath, args: [CLI, 'pre-commit'], opts },
    baseline: { cmd: process.execPath, args: [baseline], opts },
  };
}
