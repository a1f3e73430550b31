// The fixture lock over 200 MB in 2,000 files: `fixtures verify --worktree`
// against `openssl dgst -sha256` over the same files (the hashing limit here)
// and against `sha256sum -c` of the same lock; then `fixtures verify --rev
// HEAD` with the sha256 cache warm, against the same `sha256sum -c`. Beside
// the first row, node's own floor: a bare node loop hashing the same files on
// one thread, against the same `openssl dgst`.
import { execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, benchEnv, median, paired, spell, type Row, type Cmd } from './lib.js';

const FILES = 2000;
const SIZE = 100_000; // 2,000 x 100 kB = 200 MB

export default async function fixtures(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-'));
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    git('init', '-q', '-b', 'main');
    const names: string[] = [];
    const buf = Buffer.alloc(SIZE);
    for (let i = 0; i < FILES; i++) {
      const rel = `fixtures/input/d${i % 20}/f${i}.bin`;
      mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), randomFillSync(buf));
      names.push(rel);
    }
    const run = (args: string[]) => {
      execFileSync(process.execPath, [CLI, ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    };
    run(['fixtures', 'lock']);
    git('add', '-A');
    git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'fixtures');
    run(['fixtures', 'verify', '--rev', 'HEAD']); // fills the cache
    const listFile = path.join(dir, 'names.txt');
    writeFileSync(listFile, names.join('\n'));
    const opts = { cwd: dir, env: benchEnv() };
    const cmd = (c: string, args: string[]): Cmd => ({ cmd: c, args, opts });
    // xargs hands openssl all the files in one or two processes, as sha256sum -c does.
    const openssl = cmd('sh', ['-c', 'xargs openssl dgst -sha256 < names.txt']);
    const sha256sum = cmd('sha256sum', ['-c', '--quiet', 'fixtures/inputs.sha256']);
    // The command as a user starts it: the `patchwarden` npm links into node_modules/.bin.
    const bin = path.join(dir, 'node_modules', '.bin', 'patchwarden');
    mkdirSync(path.dirname(bin), { recursive: true });
    symlinkSync(CLI, bin);
    const worktree = cmd('node_modules/.bin/patchwarden', ['fixtures', 'verify', '--worktree']);
    const warm = cmd('node_modules/.bin/patchwarden', ['fixtures', 'verify', '--rev', 'HEAD']);
    const spelled = (c: Cmd) => spell(c.cmd, c.args);
    // What node pays to hash the files at all: its start, its crypto module, a read and an update per file.
    writeFileSync(
      path.join(dir, 'floor.cjs'),
      `const fs = require('node:fs');
const { createHash } = require('node:crypto');
const buf = Buffer.allocUnsafe(1 << 20);
for (const name of fs.readFileSync('names.txt', 'utf8').split('\\n')) {
  const fd = fs.openSync(name, 'r');
  const h = createHash('sha256');
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n));
  h.digest();
  fs.closeSync(fd);
}
`,
    );
    const worktreeRuns = paired(worktree, openssl);
    const floor = paired(cmd(process.execPath, ['floor.cjs']), openssl);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return [
      {
        name: 'fixtures verify --worktree (200 MB, 2,000 files)',
        ...worktreeRuns,
        oursName: spelled(worktree),
        baselineName: spelled(openssl),
        target: 1.1,
        note: [
          `node's floor: node floor.cjs (one thread, a read and a sha256 update per file, nothing else) ${median(floor.ours).toFixed(1)} ms against ${median(floor.baseline).toFixed(1)} ms, ratio ${(median(floor.ours) / median(floor.baseline)).toFixed(2)}, CPU ratio ${(sum(floor.cpu.ours) / sum(floor.cpu.baseline)).toFixed(2)}`,
        ],
      },
      {
        name: 'fixtures verify --worktree (200 MB, 2,000 files)',
        ...paired(worktree, sha256sum),
        oursName: spelled(worktree),
        baselineName: spelled(sha256sum),
        target: 0.6,
      },
      {
        name: 'fixtures verify --rev HEAD, cache warm',
        ...paired(warm, sha256sum),
        oursName: spelled(warm),
        baselineName: spelled(sha256sum),
        target: 0.2,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
