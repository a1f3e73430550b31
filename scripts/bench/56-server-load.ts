// The server hook under load: eight pushes of 1,000 commits each, all at
// once, into one bare repository with the installed pre-receive hook, against
// the same eight pushes into one without a hook; each run's slowest push is
// the row, with the hook's peak memory; and one push of a commit of 5,008
// files with odd names (spaces, newlines, bytes that are not UTF-8, leading
// dashes, unicode), against the same push with no hook. GitHub Enterprise
// Server's 5-second limit on a pre-receive hook is printed beside each.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { baseImport, branchesImport, oddFilesImport } from '../../test/prereceive/pushes.js';
import { CLI, PROJECT, benchEnv, median, type Row } from './lib.js';

const PUSHES = 8;
const COMMITS = 1000;
const FILES = 5008;
const RUNS = Number(process.env.PATCHWARDEN_BENCH_RUNS ?? 3);
const GHES = { ms: 5000, name: "GitHub Enterprise Server's limit on a pre-receive hook" };
const GNU_TIME = '/usr/bin/time';

/** One push, its wall time in ms; it must be accepted. */
function timedPush(work: string, bare: string, refspec: string, env: NodeJS.ProcessEnv): Promise<number> {
  const t = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const p = spawn('git', ['push', '-q', bare, refspec], { cwd: work, env, stdio: ['ignore', 'ignore', 'pipe'] });

    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - t) / 1e6)
        : reject(new Error(`bench push ${refspec} failed: ${err}`)),
    );
  });
}

/** The CPU figure beside a wall-clock row: on a shared machine it is what the row costs, whatever the load. */
function cpuNote(cpu: number[], what: string): string[] {
  if (!cpu.length) return [`${GNU_TIME} (GNU time) is missing: no CPU time measured`];
  return [
    `${what}: ${median(cpu).toFixed(0)} ms (median of ${cpu.length}); load average here ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
  ];
}

export default async function serverLoad(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-load-'));
  const bin = path.join(dir, 'patchwarden');
  const measured = existsSync(GNU_TIME);
  // Each hook writes its peak resident memory (KB) to a file of its own.
  writeFileSync(
    bin,
    measured
      ? `#!/bin/sh\nexec ${GNU_TIME} -f "%M %U %S" -o "$(mktemp "${dir}/peak.XXXXXX")" "${process.execPath}" "${CLI}" "$@"\n`
      : `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`,
    { mode: 0o755 },
  );
  const env = benchEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PATCHWARDEN_BIN: bin });
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'inherit'] })
      .toString()
      .trim();
  try {
    const work = path.join(dir, 'work');
    git(dir, 'init', '-q', '-b', 'main', work);
    execFileSync('git', ['fast-import', '--quiet'], {
      cwd: work,
      env,
      input: baseImport() + branchesImport(PUSHES, COMMITS) + oddFilesImport(FILES, 'odd'),
      maxBuffer: 1 << 30,
    });
    const servers = { ours: path.join(dir, 'ours.git'), baseline: path.join(dir, 'baseline.git') };
    for (const [name, bare] of Object.entries(servers)) {
      git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
      git(bare, 'config', 'patchwarden.bootstrap', 'true');
      if (name === 'ours') {
        copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), path.join(bare, 'hooks/pre-receive'));
        chmodSync(path.join(bare, 'hooks/pre-receive'), 0o755);
      }
      execFileSync('git', ['push', '-q', bare, 'main'], { cwd: work, env, stdio: 'ignore' });
      git(bare, 'config', '--unset', 'patchwarden.bootstrap');
    }
    const branches = Array.from({ length: PUSHES }, (_, b) => `b${b}`);
    // Each run pushes into a fresh copy of the server, so every object travels again.
    const fresh = (bare: string) => {
      const copy = `${bare}.run`;
      rmSync(copy, { recursive: true, force: true });
      execFileSync('cp', ['-a', bare, copy]);
      return copy;
    };
    /** Each hook's peak memory (MB) and CPU time (ms, with its git processes) since the last call. */
    const hooks = () =>
      execFileSync('sh', ['-c', `cat "${dir}"/peak.* 2>/dev/null; rm -f "${dir}"/peak.*`])
        .toString()
        .split('\n')
        .filter((l) => /^\d+ [\d.]+ [\d.]+$/.test(l))
        .map((l) => {
          const [kb, user, sys] = l.split(' ').map(Number);
          return { mb: kb / 1024, cpu: (user + sys) * 1000 };
        });
    const concurrent = async (bare: string) => {
      const target = fresh(bare);
      return Math.max(...(await Promise.all(branches.map((b) => timedPush(work, target, b, env)))));
    };
    const odd = (bare: string) => timedPush(work, fresh(bare), 'odd', env);
    const load = { ours: [] as number[], baseline: [] as number[], mb: [] as number[], cpu: [] as number[] };
    const files = { ours: [] as number[], baseline: [] as number[], cpu: [] as number[] };
    hooks();
    for (let r = 0; r < RUNS; r++) {
      load.ours.push(await concurrent(servers.ours));
      const seen = hooks();
      load.mb.push(...seen.map((h) => h.mb));
      // What the eight hooks take of two cores, all told: the wall time they would need on two idle cores.
      load.cpu.push(seen.reduce((n, h) => n + h.cpu, 0) / 2);
      load.baseline.push(await concurrent(servers.baseline));
      files.ours.push(await odd(servers.ours));
      files.cpu.push(...hooks().map((h) => h.cpu));
      files.baseline.push(await odd(servers.baseline));
    }
    const rows: Row[] = [
      {
        name: `the slowest of ${PUSHES} concurrent pushes of ${COMMITS.toLocaleString('en')} commits each, pre-receive`,
        ours: load.ours,
        baseline: load.baseline,
        oursName: `${PUSHES} x git push -q ours.git bN, all at once  # pre-receive: hooks/pre-receive`,
        baselineName: `${PUSHES} x git push -q baseline.git bN, all at once  # no hook`,
        limit: GHES,
        note: cpuNote(load.cpu, `the ${PUSHES} hooks' CPU time (git's included) over 2 cores`),
      },
      {
        name: `push of one commit of ${FILES.toLocaleString('en')} files with odd names, pre-receive`,
        ours: files.ours,
        baseline: files.baseline,
        oursName: 'git push -q ours.git odd  # pre-receive: hooks/pre-receive',
        baselineName: 'git push -q baseline.git odd  # no hook',
        limit: GHES,
        note: cpuNote(files.cpu, "the hook's CPU time (git's included)"),
      },
    ];
    if (measured && load.mb.length)
      rows.push({
        name: `pre-receive peak memory, each of ${PUSHES} concurrent pushes`,
        ours: Math.max(...load.mb),
        baseline: 256,
        baselineName: 'the bound the issue sets per hook',
        target: 1,
        unit: 'MB',
        note: [`median over the ${load.mb.length} hooks: ${median(load.mb).toFixed(0)} MB`],
      });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
