// What the tamper layer costs in pre-receive: the 5,000-commit push of
// 50-push.ts and a one-commit push, each with the layer on (the default)
// against the same server whose config says `tamper: {mode: off}`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchEnv, CLI, type Row } from './lib.js';

const COMMITS = 5000;
const RUNS = 7;

function history(config: string): string {
  const lines: string[] = [];
  const blob = (p: string, text: string) => `M 100644 inline ${p}\ndata ${Buffer.byteLength(text)}\n${text}`;
  lines.push(
    'commit refs/heads/main',
    'mark :1',
    'committer Bench <bench@example.com> 1700000000 +0000',
    'data 5',
    'base',
    '',
  );
  lines.push(blob('.patchwarden.yml', config));
  for (let i = 0; i < 50; i++) lines.push(blob(`src/m${i}.ts`, `export const v${i} = 0;\n`));
  for (let c = 1; c <= COMMITS; c++) {
    lines.push(
      'commit refs/heads/main',
      `mark :${c + 1}`,
      `committer Bench <bench@example.com> ${1700000000 + c} +0000`,
      `data ${String(c).length + 7}`,
      `change ${c}`,
      `from :${c}`,
    );
    lines.push(
      blob(
        `src/m${c % 50}.ts`,
        `import { readFileSync } from 'node:fs';\nexport const v = ${c};\nexport function load(p: string) {\n  return JSON.parse(readFileSync(p, 'utf8')) as unknown;\n}\n`,
      ),
    );
    if (c % 3 === 0) lines.push(blob(`tests/t${c % 40}.test.ts`, `test ${c}\n`));
    lines.push('');
  }
  return lines.join('\n');
}

export default async function tamper(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-tamper-'));
  const env = benchEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
  try {
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, env, input: '', stdio: ['pipe', 'pipe', 'inherit'] })
        .toString()
        .trim();
    const repos: Record<string, { bare: string; base: string; tip: string; one: string }> = {};
    for (const [name, config] of [
      ['on', 'version: 1\n'],
      ['off', 'version: 1\ntamper:\n  mode: off\n'],
    ]) {
      const work = path.join(dir, `work-${name}`);
      git(dir, 'init', '-q', '-b', 'main', work);
      execFileSync('git', ['fast-import', '--quiet'], { cwd: work, env, input: history(config) });
      const bare = path.join(dir, `${name}.git`);
      git(dir, 'clone', '-q', '--bare', work, bare);
      const base = git(work, 'rev-list', '--max-parents=0', 'main');
      repos[name] = { bare, base, tip: git(work, 'rev-parse', 'main'), one: git(work, 'rev-parse', 'main~1') };
    }
    // The server's main stands at `from`, so only the commits after it are new.
    const hook = (name: string, from: string, to: string): number => {
      const { bare } = repos[name];
      git(bare, 'update-ref', 'refs/heads/main', from);
      const t = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [CLI, 'pre-receive'], {
        cwd: bare,
        env,
        input: `${from} ${to} refs/heads/topic\n`,
        encoding: 'utf8',
      });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`bench hook failed: ${r.stdout}${r.stderr}`);
      return ms;
    };
    const all = { on: [] as number[], off: [] as number[] };
    const one = { on: [] as number[], off: [] as number[] };
    for (let i = 0; i <= RUNS; i++) {
      for (const name of ['on', 'off'] as const) {
        const r = repos[name];
        const a = hook(name, r.base, r.tip);
        const b = hook(name, r.one, r.tip);
        if (i) {
          all[name].push(a);
          one[name].push(b);
        }
      }
    }
    return [
      {
        name: `pre-receive, ${COMMITS.toLocaleString('en')} commits, tamper on`,
        ours: all.on,
        baseline: all.off,
        oursName: 'patchwarden pre-receive < REF-LINE  # tamper on (the default)',
        baselineName: 'the same, on a server whose config says tamper: {mode: off}',
        target: 1.2,
      },
      {
        name: 'pre-receive, one commit, tamper on',
        ours: one.on,
        baseline: one.off,
        oursName: 'patchwarden pre-receive < REF-LINE  # tamper on (the default)',
        baselineName: 'the same, on a server whose config says tamper: {mode: off}',
        target: 1,
        slack: 10,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
