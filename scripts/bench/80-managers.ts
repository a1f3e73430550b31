// A commit through the hook managers: the same staged change committed with
// the hook `init` installs under lefthook and under the pre-commit framework,
// against the plain git hook `init` installs where there is no manager. The
// issue allows a manager 100 ms over the plain hook. A manager that is not
// on PATH is skipped with the reason. The pre-commit framework is a Python
// program: its own start-up is measured beside the row, so the figure says
// what is the framework's and what is patchwarden's.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, benchGitEnv, median, paired, timeOnce, type Cmd, type Row } from './lib.js';

const RUNS = 11;
/** The bound: a manager costs at most this much over the plain hook. */
const OVER = 100;

const CONFIG = 'version: 1\nzones:\n  src: ["src/**"]\n  spec: ["spec/**"]\n';

interface Manager {
  name: string;
  /** The command that must be on PATH. */
  bin: string;
  /** Its config, before `init` adds patchwarden's hooks to it. */
  files: Record<string, string>;
}

const MANAGERS: Manager[] = [
  {
    name: 'lefthook',
    bin: 'lefthook',
    files: { 'lefthook.yml': 'pre-commit:\n  commands:\n    hello:\n      run: "true"\n' },
  },
  { name: 'the pre-commit framework', bin: 'pre-commit', files: { '.pre-commit-config.yaml': 'repos: []\n' } },
];

export default async function managers(): Promise<Row[]> {
  const top = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-managers-'));
  // The framework keeps its cache here, not in the user's home.
  const env = benchGitEnv({ PRE_COMMIT_HOME: path.join(top, 'pre-commit-home') });
  try {
    const plain = project(top, 'plain', {}, env).dir;
    const rows: Row[] = [];
    for (const m of MANAGERS) {
      const version = spawnSync(m.bin, ['--version'], { env, encoding: 'utf8' });
      if (version.error || version.status !== 0) {
        console.log(`${m.name}: skipped, \`${m.bin}\` is not installed here (not on PATH)\n`);
        continue;
      }
      const { dir, init } = project(top, m.bin, m.files, env);
      if (!/hooks installed/.test(init)) {
        console.log(`${m.name}: skipped, init could not install its hooks here:\n${init}`);
        continue;
      }
      const runs = paired(commit(dir, env), commit(plain, env), RUNS);
      rows.push({
        name: `a commit through ${m.name} (${version.stdout.trim()}) against the plain git hook, one staged change`,
        ...runs,
        oursName: `git commit, the hook run by ${m.name}`,
        baselineName: 'git commit, the plain hook init installs',
        target: 1,
        slack: OVER,
        note: m.bin === 'pre-commit' ? frameworkStart(dir, env, median(runs.ours) - median(runs.baseline)) : undefined,
      });
    }
    return rows;
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}

/** A repository with the patchwarden of this checkout as node_modules/.bin/patchwarden, the manager's config, and `init`'s hooks. */
function project(
  top: string,
  name: string,
  files: Record<string, string>,
  env: NodeJS.ProcessEnv,
): { dir: string; init: string } {
  const dir = path.join(top, name);
  mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(CLI, path.join(dir, 'node_modules/.bin/patchwarden'));
  const run = (cmd: string, ...args: string[]) =>
    execFileSync(cmd, args, { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  run('git', 'init', '-q', '-b', 'main');
  const all: Record<string, string> = {
    '.gitignore': 'node_modules/\n',
    '.patchwarden.yml': CONFIG,
    'tests/test_bill.py': 'from bill import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
    ...files,
  };
  for (let i = 0; i < 40; i++) all[`src/m${i}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
  all['src/bill.py'] = 'def total(xs):\n    return sum(xs)\n';
  for (const [f, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  run('git', 'add', '-A');
  run('git', 'commit', '-q', '--no-verify', '-m', 'base');
  const init = run(process.execPath, CLI, 'init', '--yes');
  run('git', 'add', '-A');
  run('git', 'commit', '-q', '--no-verify', '--allow-empty', '-m', 'patchwarden');
  // The change each measured commit makes: production code with its test.
  writeFileSync(path.join(dir, 'src/bill.py'), 'def total(xs):\n    return sum(x for x in xs if x > 0)\n');
  writeFileSync(
    path.join(dir, 'tests/test_bill.py'),
    'from bill import total\n\n\ndef test_total():\n    assert total([1, -2]) == 1\n',
  );
  run('git', 'add', '-A');
  return { dir, init };
}

/** The same commit each time: made, then undone with the change kept staged. */
function commit(dir: string, env: NodeJS.ProcessEnv): Cmd {
  return {
    cmd: 'sh',
    args: ['-c', 'git commit -q -m change && git reset -q --soft HEAD~1'],
    opts: { cwd: dir, env },
  };
}

/**
 * What the pre-commit framework's own process costs before it runs any hook:
 * the hook it installs runs `INSTALL_PYTHON -mpre_commit hook-impl`, which
 * starts the interpreter and imports `pre_commit.main`.
 */
function frameworkStart(dir: string, env: NodeJS.ProcessEnv, over: number): string[] {
  const hook = readFileSync(path.join(dir, '.git/hooks/pre-commit'), 'utf8');
  const python = /^INSTALL_PYTHON=(\S+)$/m.exec(hook)?.[1];
  const time = (c: Cmd) => median(Array.from({ length: 7 }, () => timeOnce({ ...c, opts: { env } })));
  const version = `\`pre-commit --version\` ${time({ cmd: 'pre-commit', args: ['--version'] }).toFixed(0)} ms`;
  if (!python) return [`the framework's own start-up: ${version}`];
  const alone = time({ cmd: python, args: ['-c', ''] });
  const loads = time({ cmd: python, args: ['-c', 'import pre_commit.main'] });
  return [
    `the framework's own start-up, before it runs any hook: ${python} alone ${alone.toFixed(0)} ms; \`${path.basename(python)} -c 'import pre_commit.main'\` (what its hook loads) ${loads.toFixed(0)} ms; ${version}`,
    `over the plain hook ${over.toFixed(0)} ms, of which that start-up ${loads.toFixed(0)} ms; the rest ${(over - loads).toFixed(0)} ms (the framework's run of its hooks, which calls node_modules/.bin/patchwarden directly)`,
  ];
}
