// The server hook on the pushes a busy server sees: 1,000 refs with one new
// commit each (a mirror push, a release of many branches, a bot), and 50,000
// linear commits on one ref. Each against a plumbing hook measured in the
// same run (`git rev-list` and `git diff-tree` once per ref, as a simple hook
// does), the push whole and the hook alone, with GitHub Enterprise Server's
// 5-second limit on pre-receive hooks beside them; and the hook's peak memory.
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, PROJECT, benchEnv, peakMemory, type Row } from './lib.js';

const REFS = 1000;
const COMMITS = 50_000;
/** Paired runs per row: the 50,000-commit push takes seconds a run. */
const RUNS = Number(process.env.PATCHWARDEN_BENCH_RUNS ?? 3);
const GHES = { ms: 5000, name: "GitHub Enterprise Server's limit on a pre-receive hook" };

const PLUMBING_HOOK = `#!/bin/sh
# The plumbing any range check needs, once per ref, and nothing else.
while read old new ref; do
  git rev-list "$new" --not --all | git diff-tree --stdin -r --root -c -z --no-renames --name-status >/dev/null
done
`;
const plumbingSpelled =
  'while read old new ref; do git rev-list "$new" --not --all | git diff-tree --stdin -r --root -c -z --no-renames --name-status; done';

const COMMITTER = (t: number) => `committer Bench <bench@example.com> ${1700000000 + t} +0000`;
const file = (p: string, text: string) => `M 100644 inline ${p}\ndata ${Buffer.byteLength(text)}\n${text}`;

/** The server's starting point: a config, 50 production files and 40 test files on main. */
function baseCommit(): string[] {
  const lines = [
    'commit refs/heads/main',
    'mark :1',
    COMMITTER(0),
    'data 5',
    'base',
    file('.patchwarden.yml', 'version: 1\nmix:\n  range: refuse\n'),
  ];
  for (let i = 0; i < 50; i++) lines.push(file(`src/m${i}.ts`, `export const v${i} = 0;\n`));
  for (let i = 0; i < 40; i++) lines.push(file(`tests/t${i}.test.ts`, `test ${i}\n`));
  lines.push('');
  return lines;
}

/** 1,000 branches off main, each one commit of production code (a tenth with its test in the same commit, which mixing allows). */
function manyRefs(): string {
  const lines = baseCommit();
  for (let r = 0; r < REFS; r++) {
    lines.push(`commit refs/heads/b${r}`, COMMITTER(r + 1), `data ${String(r).length + 7}`, `branch ${r}`, 'from :1');
    lines.push(file(`src/m${r % 50}.ts`, `export const v = ${r};\n`));
    if (r % 10 === 0) lines.push(file(`tests/t${r % 40}.test.ts`, `test ${r}\n`));
    lines.push('');
  }
  return lines.join('\n');
}

/** 50,000 commits on main, each changing production code, every third a test too. */
function longHistory(): string {
  const lines = baseCommit();
  for (let c = 1; c <= COMMITS; c++) {
    lines.push(
      'commit refs/heads/main',
      `mark :${c + 1}`,
      COMMITTER(c),
      `data ${String(c).length + 7}`,
      `change ${c}`,
      `from :${c}`,
    );
    lines.push(file(`src/m${c % 50}.ts`, `export const v = ${c};\n`));
    if (c % 3 === 0) lines.push(file(`tests/t${c % 40}.test.ts`, `test ${c}\n`));
    lines.push('');
  }
  return lines.join('\n');
}

export default async function scale(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-scale-'));
  try {
    return [...shape(dir, 'refs', manyRefs()), ...shape(dir, 'commits', longHistory())];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function shape(top: string, kind: 'refs' | 'commits', history: string): Row[] {
  const dir = path.join(top, kind);
  mkdirSync(dir);
  const bin = path.join(dir, 'patchwarden');
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  const env = benchEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PATCHWARDEN_BIN: bin });
  const git = (cwd: string, args: string[], input = '') =>
    execFileSync('git', args, { cwd, env, input, maxBuffer: 2 ** 30, stdio: ['pipe', 'pipe', 'inherit'] })
      .toString()
      .trim();
  const work = path.join(dir, 'work');
  mkdirSync(work);
  git(work, ['init', '-q', '-b', 'main']);
  git(work, ['fast-import', '--quiet'], history);
  const base = git(work, ['rev-list', '--max-parents=0', 'main']);
  // What the push sends: every branch but main (1,000 new refs), or main from its first commit.
  const pushed =
    kind === 'refs'
      ? git(work, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/b*'])
          .split('\n')
          .map((l) => l.split(' ') as [string, string])
      : [[git(work, ['rev-parse', 'main']), 'refs/heads/main'] as [string, string]];
  const zero = '0'.repeat(base.length);
  const hookInput =
    pushed.map(([id, ref]) => (kind === 'refs' ? `${zero} ${id} ${ref}` : `${base} ${id} ${ref}`)).join('\n') + '\n';
  const servers = { ours: path.join(dir, 'ours.git'), plumbing: path.join(dir, 'plumbing.git') };
  for (const [name, bare] of Object.entries(servers)) {
    git(dir, ['init', '-q', '--bare', '-b', 'main', bare]);
    git(work, ['push', '-q', bare, `${base}:refs/heads/main`]);
    // The objects arrive once, with no hook, so each run sends the same thin pack against the same refs.
    git(work, ['push', '-q', bare, ...(kind === 'refs' ? ['refs/heads/b*:refs/heads/b*'] : ['main'])]);
    const hook = path.join(bare, 'hooks/pre-receive');
    if (name === 'ours') copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), hook);
    else writeFileSync(hook, PLUMBING_HOOK);
    chmodSync(hook, 0o755);
  }
  // Each run starts from the server before the push: the refs back at (or gone to) the base.
  const reset = (bare: string) =>
    git(
      bare,
      ['update-ref', '--stdin'],
      pushed.map(([, ref]) => (kind === 'refs' ? `delete ${ref}\n` : `update ${ref} ${base}\n`)).join(''),
    );
  const timed = (cmd: string, args: string[], opts: SpawnSyncOptions): number => {
    const t = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { env, maxBuffer: 2 ** 30, ...opts, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`bench: ${cmd} ${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
    return ms;
  };
  const pushArgs = ['push', '-q', '--no-verify', ...(kind === 'refs' ? ['refs/heads/b*:refs/heads/b*'] : ['main'])];
  const push = (bare: string) => {
    reset(bare);
    return timed('git', [...pushArgs.slice(0, 3), bare, ...pushArgs.slice(3)], { cwd: work });
  };
  const alone = (bare: string, cmd: string, args: string[]) => {
    reset(bare);
    return timed(cmd, args, { cwd: bare, input: hookInput });
  };
  const ourHook = () => alone(servers.ours, bin, ['pre-receive']);
  const plumbingHook = () => alone(servers.plumbing, 'sh', [path.join(servers.plumbing, 'hooks/pre-receive')]);
  push(servers.ours);
  push(servers.plumbing);
  const runs = { push: [[], []] as number[][], hook: [[], []] as number[][] };
  for (let i = 0; i < RUNS; i++) {
    // Alternating which goes first, as lib.ts's paired() does.
    const order = i % 2 ? [1, 0] : [0, 1];
    for (const k of order) runs.push[k].push(k ? push(servers.plumbing) : push(servers.ours));
    for (const k of order) runs.hook[k].push(k ? plumbingHook() : ourHook());
  }
  reset(servers.ours);
  const memory = peakMemory(process.execPath, [CLI, 'pre-receive'], { cwd: servers.ours, env, input: hookInput });
  const what =
    kind === 'refs'
      ? `${REFS.toLocaleString('en')} refs, one new commit each`
      : `${COMMITS.toLocaleString('en')} linear commits`;
  const rows: Row[] = [
    {
      name: `push of ${what}, pre-receive`,
      ours: runs.push[0],
      baseline: runs.push[1],
      oursName: 'git push -q ours.git  # pre-receive: hooks/pre-receive',
      baselineName: `git push -q plumbing.git  # pre-receive: ${plumbingSpelled}`,
      target: 1.5,
    },
    kind === 'refs'
      ? {
          name: `pre-receive hook alone, ${what}`,
          ours: runs.hook[0],
          baseline: runs.hook[1],
          oursName: 'patchwarden pre-receive < REF-LINES',
          baselineName: `the plumbing hook alone: ${plumbingSpelled}`,
          ceiling: 1500,
          limit: GHES,
        }
      : {
          name: `pre-receive hook alone, ${what}`,
          ours: runs.hook[0],
          baseline: runs.hook[1],
          oursName: 'patchwarden pre-receive < REF-LINE',
          baselineName: `the plumbing hook alone: ${plumbingSpelled}`,
          target: 1.2,
          limit: GHES,
        },
  ];
  if (memory !== null)
    rows.push({
      name: `pre-receive peak memory, ${what}`,
      ours: memory,
      baseline: 256,
      unit: 'MB',
      baselineName: 'a budget of 256 MB',
      target: 1,
    });
  return rows;
}
