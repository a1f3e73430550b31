// A 5,000-commit push into a bare repository with the patchwarden pre-receive
// hook, against the same push into one whose hook runs only the baseline
// plumbing: `git rev-list` and one `git diff-tree --stdin` over the same
// commits. Plus the hook alone on that push, against GitHub Enterprise
// Server's 5-second limit on pre-receive hooks. Twice: a linear history, and
// one with a merge of a side branch every 20 commits (each merge is judged by
// what it authored, which takes git's own merge of its parents).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, PROJECT, benchEnv, type Row } from './lib.js';

const COMMITS = 5000;
const RUNS = 7;

const BASELINE_HOOK = `#!/bin/sh
# The plumbing any range check needs, and nothing else.
while read old new ref; do
  git rev-list "$new" --not --all
done | git diff-tree --stdin -r --root -c -z --no-renames --name-status >/dev/null
`;

/** 5,000 commits of production code and tests through one git fast-import; every `mergeEvery`th merges a side commit made 10 commits back. */
function history(mergeEvery: number): string {
  const lines: string[] = [];
  // Inline data ends with its own LF; the join's LF after it is fast-import's optional one.
  const blob = (text: string) => `M 100644 inline ${'$path'}\ndata ${Buffer.byteLength(text)}\n${text}`;
  lines.push(
    'commit refs/heads/main',
    'mark :1',
    'committer Bench <bench@example.com> 1700000000 +0000',
    'data 5',
    'base',
    '',
  );
  lines.push(blob('version: 1\n').replace('$path', '.patchwarden.yml'));
  for (let i = 0; i < 50; i++) lines.push(blob(`export const v${i} = 0;\n`).replace('$path', `src/m${i}.ts`));
  for (let c = 1; c <= COMMITS; c++) {
    const merge = mergeEvery > 0 && c % mergeEvery === 0 && c > 10;
    if (merge) {
      lines.push(
        'commit refs/heads/side',
        `mark :${100000 + c}`,
        `committer Bench <bench@example.com> ${1700000000 + c} +0000`,
        'data 4',
        'side',
        `from :${c - 9}`,
      );
      lines.push(blob(`side ${c}\n`).replace('$path', `tests/side${c}.test.ts`), '');
    }
    lines.push(
      'commit refs/heads/main',
      `mark :${c + 1}`,
      `committer Bench <bench@example.com> ${1700000000 + c} +0000`,
      `data ${String(c).length + 7}`,
      `change ${c}`,
      `from :${c}`,
    );
    // An honest merge: the side's file and nothing of its own.
    if (merge) {
      lines.push(`merge :${100000 + c}`, blob(`side ${c}\n`).replace('$path', `tests/side${c}.test.ts`), '');
      continue;
    }
    lines.push(blob(`export const v = ${c};\n`).replace('$path', `src/m${c % 50}.ts`));
    if (c % 3 === 0) lines.push(blob(`test ${c}\n`).replace('$path', `tests/t${c % 40}.test.ts`));
    lines.push('');
  }
  return lines.join('\n');
}

export default async function push(): Promise<Row[]> {
  return [...(await pushBench(0)), ...(await pushBench(20))];
}

async function pushBench(mergeEvery: number): Promise<Row[]> {
  const kind = mergeEvery ? `, a merge every ${mergeEvery}` : '';
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-push-'));
  const bin = path.join(dir, 'patchwarden');
  const env = benchEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PATCHWARDEN_BIN: bin });
  try {
    writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, env, input: '', stdio: ['pipe', 'pipe', 'inherit'] })
        .toString()
        .trim();
    const work = path.join(dir, 'work');
    mkdirSync(work);
    git(work, 'init', '-q', '-b', 'main');
    execFileSync('git', ['fast-import', '--quiet'], { cwd: work, env, input: history(mergeEvery) });
    const base = git(work, 'rev-list', '--max-parents=0', 'main');
    const tip = git(work, 'rev-parse', 'main');
    const servers = { ours: path.join(dir, 'ours.git'), baseline: path.join(dir, 'baseline.git') };
    for (const [name, bare] of Object.entries(servers)) {
      git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
      git(work, 'push', '-q', bare, `${base}:refs/heads/main`);
      const hook = path.join(bare, 'hooks/pre-receive');
      if (name === 'ours') copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), hook);
      else writeFileSync(hook, BASELINE_HOOK);
      chmodSync(hook, 0o755);
    }
    // Each run pushes all 5,000 commits again: the server's main goes back to the base first.
    const timePush = (bare: string): number => {
      git(bare, 'update-ref', 'refs/heads/main', base);
      const t = process.hrtime.bigint();
      const r = spawnSync('git', ['push', '-q', bare, 'main'], { cwd: work, env, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`bench push failed: ${r.stderr}`);
      return ms;
    };
    const hookAlone = (): number => {
      git(servers.ours, 'update-ref', 'refs/heads/main', base);
      const t = process.hrtime.bigint();
      const r = spawnSync(bin, ['pre-receive'], {
        cwd: servers.ours,
        env,
        input: `${base} ${tip} refs/heads/main\n`,
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`bench hook failed: ${r.stdout}${r.stderr}`);
      return ms;
    };
    timePush(servers.ours);
    timePush(servers.baseline);
    const ours: number[] = [];
    const baseline: number[] = [];
    const alone: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ours.push(timePush(servers.ours));
      baseline.push(timePush(servers.baseline));
      alone.push(hookAlone());
    }
    return [
      {
        name: `push ${COMMITS.toLocaleString('en')} commits${kind}, pre-receive`,
        ours,
        baseline,
        oursName: 'git push -q ours.git main  # pre-receive: hooks/pre-receive',
        baselineName: `git push -q baseline.git main  # pre-receive: ${BASELINE_HOOK.split('\n')
          .slice(2)
          .map((l) => l.trim())
          .filter(Boolean)
          .join(' ')
          .replace(' done', '; done')}`,
        target: 1.5,
      },
      {
        name: `pre-receive hook alone, ${COMMITS.toLocaleString('en')} commits${kind}`,
        ours: alone,
        baseline: 5000,
        oursName: 'patchwarden pre-receive < REF-LINE',
        baselineName: "GitHub Enterprise Server's limit on a pre-receive hook (5 s)",
        target: 0.5,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
