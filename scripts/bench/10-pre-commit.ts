// pre-commit on a 20,000-file repository with 1,000 staged paths, against a
// minimal Node script that only lists the staged set with git.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, timeCommand, type Row } from './lib.js';

export default async function preCommit(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-'));
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    git('init', '-q', '-b', 'main');
    for (let d = 0; d < 200; d++) {
      const folder = path.join(dir, d % 2 ? 'src' : 'tests', `m${d}`);
      mkdirSync(folder, { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(path.join(folder, `f${f}.py`), `v = ${d * 100 + f}\n`);
    }
    git('add', '-A');
    git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'base');
    for (let i = 0; i < 1000; i++) writeFileSync(path.join(dir, i % 2 ? 'src' : 'tests', `m${i % 200}`, `f${i % 100}.py`), `v = -${i}\n`);
    git('add', '-A');
    const baseline = path.join(dir, 'baseline.mjs');
    writeFileSync(baseline, "import { execFileSync } from 'node:child_process';\nexecFileSync('git', ['diff', '--cached', '--name-status', '-z']);\n");
    const opts = { cwd: dir };
    const base = timeCommand(process.execPath, [baseline], opts, 11);
    const ours = timeCommand(process.execPath, [CLI, 'pre-commit'], opts, 11);
    return [{ name: 'pre-commit (20,000 files, 1,000 staged)', ours, baseline: base, baselineName: 'node + git diff --cached', target: 1.5 }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
