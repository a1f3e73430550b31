// The revert check's own overhead: `patchwarden revert-check` on a small
// project against running its property command twice directly in the same
// working tree (what the check must do at least: once on head, once reverted).
// Both measured in this run, alternating, medians of several runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, benchGitEnv, type Row } from './lib.js';

const RUNS = 7;
const COMMAND = 'node --test --test-reporter=junit --test-reporter-destination={junit} spec/properties/';
const ID = 'bill.total_non_negative';

/** A small node project: a few modules and property files, one fix commit on top. */
function project(dir: string, env: NodeJS.ProcessEnv): void {
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  write(
    '.patchwarden.yml',
    `version: 1\nproperties:\n  command: ${JSON.stringify(COMMAND)}\n  invariants: spec/invariants.yaml\n`,
  );
  const ids = [ID, ...Array.from({ length: 4 }, (_, i) => `helper.h${i}`)];
  write(
    'spec/invariants.yaml',
    `version: 1\ninvariants:\n${ids.map((id) => `  - id: ${id}\n    description: ${id} holds\n`).join('')}`,
  );
  write('src/bill.mjs', 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n');
  write(
    'spec/properties/bill.test.mjs',
    `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/bill.mjs';\ntest('non-negative [invariant:${ID}]', () => { for (const xs of [[], [1, 2]]) assert.ok(total(xs) >= 0); });\n`,
  );
  for (let i = 0; i < 4; i++) {
    write(`src/h${i}.mjs`, `export const h${i} = (x) => x * ${i + 1};\n`);
    write(
      `spec/properties/h${i}.test.mjs`,
      `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { h${i} } from '../../src/h${i}.mjs';\ntest('scales [invariant:helper.h${i}]', () => { for (let x = 0; x < 100; x++) assert.equal(h${i}(x), x * ${i + 1}); });\n`,
    );
  }
  for (let i = 0; i < 40; i++) write(`lib/m${i}.mjs`, `export const m${i} = ${i};\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  write('src/bill.mjs', 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n');
  git('commit', '-q', '-am', 'fix');
}

function timed(cmd: string, args: string[], opts: Parameters<typeof spawnSync>[2]): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.error) throw r.error;
  return ms;
}

export default async function revert(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-revert-'));
  const env = benchGitEnv();
  try {
    project(dir, env);
    const check = spawnSync(process.execPath, [CLI, 'revert-check', '--base', 'HEAD~1', '--format', 'json'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    if (JSON.parse(check.stdout).status !== 'describes_patch')
      throw new Error(`bench revert-check did not pass: ${check.stdout}${check.stderr}`);
    const junit = path.join(dir, '.git', 'bench-report.xml');
    const twice = `${COMMAND.replaceAll('{junit}', junit)}; ${COMMAND.replaceAll('{junit}', junit)}`;
    const ours: number[] = [];
    const baseline: number[] = [];
    timed('sh', ['-c', twice], { cwd: dir, env }); // warm-up of both
    timed(process.execPath, [CLI, 'revert-check', '--base', 'HEAD~1'], { cwd: dir, env });
    for (let i = 0; i < RUNS; i++) {
      baseline.push(timed('sh', ['-c', twice], { cwd: dir, env }));
      ours.push(timed(process.execPath, [CLI, 'revert-check', '--base', 'HEAD~1'], { cwd: dir, env }));
    }
    return [
      {
        name: 'revert-check, small node project (5 invariants)',
        ours,
        baseline,
        oursName: 'patchwarden revert-check --base HEAD~1',
        baselineName: `sh -c '${COMMAND.replaceAll('{junit}', 'REPORT')}; (the same again)'`,
        target: 1.3,
        slack: 1000,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
