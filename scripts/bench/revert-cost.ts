// What the revert check costs against one property run, on a real pytest
// project (200 Hypothesis cases) and a real node:test project, each with a
// property run of 5 s or more, under `revert.jobs: 2`: the first check of an
// honest fix (no cache), the same check again (both sides cached, under
// properties.sealed: kernel, which init writes for both runners while the
// project's own config names none), and a change that breaks a Hypothesis property (shrinking included),
// in the project's mode and in init's. Each
// against the property command run once, plainly, on the head tree, the two
// alternating run by run. Each project's rows are a bench file of their own
// (41-revert-cost-pytest.ts, 42-revert-cost-node.ts), printed as each ends.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, benchGitEnv, median, type Row } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PYTEST = 'python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml={junit}';
// {shard}: 1/1 unless a part of the matrix row sets it.
const NODE_TEST =
  'node --test --test-shard={shard} --test-reporter=junit --test-reporter-destination={junit} spec/properties/';
const TOTAL = 'bill.total_non_negative';
const SHOP = ['shop.scale', 'shop.clamp', 'shop.sorted', 'shop.merge'];
/** Hypothesis examples per case: 200 cases of this many take 5 s or more here. */
const EXAMPLES = Number(process.env.BENCH_EXAMPLES ?? 20);
/** Inputs drawn per node case: 200 cases of this many take 5 s or more on a quiet two-core machine. */
const DRAWS = Number(process.env.BENCH_DRAWS ?? 24000);

const PY_BUGGY = 'def total(xs):\n    return sum(xs) - 1\n';
const PY_FIXED = 'def total(xs):\n    return sum(xs)\n';
const JS_BUGGY = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n';
const JS_FIXED = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';

const PY_SHOP = `def scale(xs, k):
    return [x * k for x in xs]


def clamp(xs, lo, hi):
    return [min(max(x, lo), hi) for x in xs]


def merge(a, b):
    return sorted(a + b)
`;

/** 200 cases: 50 for each of three shop invariants, 49 for the fourth, one for the total. */
const PY_PROPS = `import pytest
from hypothesis import given, settings, strategies as st

from bill import total
from shop import clamp, merge, scale

CFG = settings(max_examples=${EXAMPLES}, deadline=None, database=None, derandomize=True)
ints = st.lists(st.integers(min_value=0, max_value=1000))


def ids(inv, n):
    return ["[invariant:%s]-%d" % (inv, k) for k in range(n)]


@pytest.mark.parametrize("k", range(50), ids=ids("${SHOP[0]}", 50))
@CFG
@given(xs=ints)
def test_scale(k, xs):
    assert scale(xs, k) == [x * k for x in xs]


@pytest.mark.parametrize("k", range(50), ids=ids("${SHOP[1]}", 50))
@CFG
@given(xs=ints)
def test_clamp(k, xs):
    assert all(k <= x <= k + 500 for x in clamp(xs, k, k + 500))


@pytest.mark.parametrize("k", range(50), ids=ids("${SHOP[2]}", 50))
@CFG
@given(xs=ints)
def test_sorted(k, xs):
    ys = sorted(xs)
    assert all(a <= b for a, b in zip(ys, ys[1:]))


@pytest.mark.parametrize("k", range(49), ids=ids("${SHOP[3]}", 49))
@CFG
@given(a=ints, b=ints)
def test_merge(k, a, b):
    assert merge(a, b) == sorted(a + b)


@pytest.mark.parametrize("k", [0], ids=["[invariant:${TOTAL}]"])
@CFG
@given(xs=ints)
def test_total(k, xs):
    assert total(xs) >= 0
`;

/** One node:test file of `n` cases for `inv`, each drawing DRAWS inputs from a seeded generator. */
function jsProps(inv: string, n: number, body: string, mod: string, name: string): string {
  return `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ${name} } from '../../src/${mod}';

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

for (let k = 0; k < ${n}; k++) {
  test(\`case \${k} [invariant:${inv}]\`, () => {
    const r = rng(k + Number(process.env.PROP_SEED ?? 0));
    for (let i = 0; i < ${DRAWS}; i++) {
      const xs = Array.from({ length: Math.floor(r() * 12) }, () => Math.floor(r() * 1000));
      ${body}
    }
  });
}
`;
}

interface Project {
  dir: string;
  git: (...args: string[]) => string;
  command: string;
  /** The commits: the buggy base, the honest fix, a change that breaks the property again. */
  buggy: string;
  fix: string;
  regress: string;
}

export function makeProject(kind: 'py' | 'node', env: NodeJS.ProcessEnv): Project {
  const dir = mkdtempSync(path.join(tmpdir(), `patchwarden-bench-cost-${kind}-`));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  const command = kind === 'py' ? PYTEST : NODE_TEST;
  git('init', '-q', '-b', 'main');
  write(
    '.patchwarden.yml',
    `version: 1\nproperties:\n  command: ${JSON.stringify(command)}\n  invariants: spec/invariants.yaml\nrevert:\n  jobs: 2\n`,
  );
  write(
    'spec/invariants.yaml',
    `version: 1\ninvariants:\n${[TOTAL, ...SHOP].map((id) => `  - id: ${id}\n    description: ${id} holds\n`).join('')}`,
  );
  write('.gitignore', '__pycache__/\n.hypothesis/\n');
  if (kind === 'py') {
    write('pytest.ini', '[pytest]\npythonpath = src\n');
    write('src/shop.py', PY_SHOP);
    // One file per test function, so that a shard of the matrix row (whole files) holds a share.
    const [header, ...tests] = PY_PROPS.split('\n\n\n@pytest');
    for (const [i, t] of tests.entries()) write(`spec/properties/test_props_${i}.py`, `${header}\n\n\n@pytest${t}`);
    write('src/bill.py', PY_BUGGY);
  } else {
    write('package.json', '{"name": "bench-shop", "type": "module", "private": true}\n');
    write(
      'src/shop.mjs',
      'export const scale = (xs, k) => xs.map((x) => x * k);\nexport const merge = (a, b) => [...a, ...b].sort((x, y) => x - y);\n',
    );
    write(
      'spec/properties/scale.test.mjs',
      jsProps(SHOP[0], 50, 'assert.deepEqual(scale(xs, k), xs.map((x) => x * k));', 'shop.mjs', 'scale'),
    );
    write(
      'spec/properties/clamp.test.mjs',
      jsProps(SHOP[1], 50, 'assert.ok(scale(xs, 0).every((x) => x === 0));', 'shop.mjs', 'scale'),
    );
    write(
      'spec/properties/sorted.test.mjs',
      jsProps(
        SHOP[2],
        50,
        'const ys = merge(xs, []); assert.ok(ys.every((y, i) => i === 0 || ys[i - 1] <= y));',
        'shop.mjs',
        'merge',
      ),
    );
    write(
      'spec/properties/merge.test.mjs',
      jsProps(SHOP[3], 49, 'assert.equal(merge(xs, xs).length, 2 * xs.length);', 'shop.mjs', 'merge'),
    );
    write('spec/properties/total.test.mjs', jsProps(TOTAL, 1, 'assert.ok(total(xs) >= 0);', 'bill.mjs', 'total'));
    write('src/bill.mjs', JS_BUGGY);
  }
  const src = kind === 'py' ? 'src/bill.py' : 'src/bill.mjs';
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const buggy = git('rev-parse', 'HEAD');
  write(src, kind === 'py' ? PY_FIXED : JS_FIXED);
  git('commit', '-q', '-am', 'fix');
  const fix = git('rev-parse', 'HEAD');
  write(src, kind === 'py' ? PY_BUGGY : JS_BUGGY);
  git('commit', '-q', '-am', 'break it again');
  const regress = git('rev-parse', 'HEAD');
  git('checkout', '-q', fix);
  return { dir, git, command, buggy, fix, regress };
}

/** The project's config with properties.sealed: kernel, beside it in the git directory (untracked). */
function kernelConfig(dir: string): string {
  const file = path.join(dir, '.git', 'bench-kernel.yml');
  const text = readFileSync(path.join(dir, '.patchwarden.yml'), 'utf8');
  writeFileSync(file, text.replace('properties:\n', 'properties:\n  sealed: kernel\n'));
  return file;
}

interface Timing {
  wall: number;
  /** User and system CPU of the command and everything it waited for. */
  cpu: number;
  stdout: string;
}

/** One run's wall and CPU ms (GNU time); throws unless it exits with one of `codes`. */
function timed(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, codes: number[]): Timing {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-time-')), 'time');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', out, cmd, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1 << 28,
  });
  if (r.error) throw r.error;
  const [wall, user, sys] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  rmSync(path.dirname(out), { recursive: true, force: true });
  if (!codes.includes(r.status ?? -1))
    throw new Error(
      `bench: ${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stdout).slice(-2000)}${String(r.stderr).slice(-2000)}`,
    );
  return { wall: wall * 1000, cpu: (user + sys) * 1000, stdout: String(r.stdout) };
}

/**
 * `RUNS` pairs, alternating which goes first; `before` runs untimed ahead of
 * each of ours. No warm-up: each run takes seconds, and the first check of
 * a fix is a cold one. Wall times make the row; CPU times its note, since on
 * a shared machine the wall clock also measures the other load.
 */
function pairs(ours: () => Timing, baseline: () => Timing, before: () => void = () => undefined) {
  const a: Timing[] = [];
  const b: Timing[] = [];
  for (let i = 0; i < RUNS; i++) {
    const one = () => {
      before();
      a.push(ours());
    };
    if (i % 2) {
      b.push(baseline());
      one();
    } else {
      one();
      b.push(baseline());
    }
  }
  const cpu = (xs: Timing[]) => median(xs.map((x) => x.cpu));
  return {
    ours: a.map((x) => x.wall),
    baseline: b.map((x) => x.wall),
    note: [
      `CPU: patchwarden ${(cpu(a) / 1000).toFixed(1)} s, baseline ${(cpu(b) / 1000).toFixed(1)} s (medians; ratio ${(cpu(a) / cpu(b)).toFixed(2)}); load average ${loadavg()[0].toFixed(1)}`,
    ],
  };
}

/** Each case's name and state, per invariant, of a check's JSON. */
function caseStates(json: string): string[] {
  const out = JSON.parse(json) as { states: { id: string; state: string; cases: unknown[] }[] };
  return out.states.map((i) => JSON.stringify([i.id, i.state, i.cases]));
}

/**
 * The four-shard matrix of the honest fix (each side's four parts, run here
 * one after another as a matrix's jobs would each run alone), merged, against
 * the unsplit check (no cache): the cases whose state differs, which must be
 * none. Its note gives the slowest part and the merge beside the unsplit check.
 */
function matrixRow(p: Project, env: NodeJS.ProcessEnv, label: string, dropCache: () => void): Row {
  const N = 4;
  const pw = (args: string[]) => timed(process.execPath, [CLI, ...args], p.dir, env, [0]);
  const range = ['--base', p.buggy, '--head', p.fix];
  dropCache();
  const whole = pw(['revert-check', ...range, '--format', 'json']);
  const parts: string[] = [];
  const partTimes: Timing[] = [];
  for (const side of ['head', 'base'])
    for (let k = 1; k <= N; k++) {
      const file = path.join(p.dir, '.git', `bench-part-${side}-${k}.json`);
      parts.push(file);
      partTimes.push(pw(['revert-check', ...range, '--side', side, '--shard', `${k}/${N}`, '--out', file]));
    }
  const merge = pw(['revert-check', '--merge', ...parts, '--format', 'json']);
  const a = caseStates(whole.stdout);
  const b = caseStates(merge.stdout);
  const differ = Math.max(a.length, b.length) - a.filter((x, i) => x === b[i]).length;
  const cases = a.reduce((n, x) => n + (JSON.parse(x)[2] as unknown[]).length, 0);
  const slowest = Math.max(...partTimes.map((t) => t.wall));
  const cpu = partTimes.reduce((n, t) => n + t.cpu, 0);
  return {
    name: `a four-shard matrix merged, case by case against the unsplit check: ${label}`,
    ours: differ,
    baseline: a.length,
    target: 0,
    unit: 'invariants',
    oursName: `invariants whose cases' states differ: ${N} parts a side (patchwarden revert-check --side head|base --shard K/${N} --out FILE), then patchwarden revert-check --merge FILE...`,
    baselineName: `invariants of the unsplit check (patchwarden revert-check, no cache), ${cases} cases`,
    note: [
      `time: slowest part ${(slowest / 1000).toFixed(1)} s + merge ${(merge.wall / 1000).toFixed(1)} s, against the unsplit check ${(whole.wall / 1000).toFixed(1)} s; CPU of all ${2 * N} parts ${(cpu / 1000).toFixed(1)} s, of the unsplit check ${(whole.cpu / 1000).toFixed(1)} s; load average ${loadavg()[0].toFixed(1)}`,
    ],
  };
}

/** The rows of one project. */
export function revertCostRows(kind: 'py' | 'node'): Row[] {
  const env = benchGitEnv();
  const p = makeProject(kind, env);
  const label = kind === 'py' ? 'pytest, 200 Hypothesis cases' : 'node --test, 200 cases';
  const junit = path.join(p.dir, '.git', 'bench-report.xml');
  const plain = p.command.replaceAll('{junit}', junit).replaceAll('{shard}', '1/1');
  const check = (base: string, head: string, codes: number[]) => () =>
    timed(process.execPath, [CLI, 'revert-check', '--base', base, '--head', head], p.dir, env, codes);
  const plainRun = (codes: number[]) => () => timed('sh', ['-c', plain], p.dir, env, codes);
  const dropCache = () => rmSync(path.join(p.dir, '.git/patchwarden/revert-cache'), { recursive: true, force: true });
  const spelled = (base: string, head: string) =>
    `patchwarden revert-check --base ${base.slice(0, 7)} --head ${head.slice(0, 7)}`;
  const out: Row[] = [];
  try {
    const first = pairs(check(p.buggy, p.fix, [0]), plainRun([0]), dropCache);
    out.push({
      name: `revert-check of an honest fix, first run (no cache), revert.jobs: 2: ${label}`,
      ...first,
      oursName: `${spelled(p.buggy, p.fix)} (revert cache emptied before each run)`,
      baselineName: `${plain.replace(junit, 'REPORT')} (once, on the fix)`,
      target: 1.25,
    });
    // The project's config names no sealed mode (off); init writes kernel for both runners, under which the head side is cached too.
    const kernel = kernelConfig(p.dir);
    const sealedCheck = (base: string, head: string, codes: number[]) => () =>
      timed(
        process.execPath,
        [CLI, 'revert-check', '--config', kernel, '--base', base, '--head', head],
        p.dir,
        env,
        codes,
      );
    sealedCheck(p.buggy, p.fix, [0])(); // fills the cache under the kernel-sealed key, untimed
    const again = pairs(sealedCheck(p.buggy, p.fix, [0]), plainRun([0]));
    out.push({
      name: `the same check again (both sides cached, properties.sealed: kernel as init writes it): ${label}`,
      ...again,
      oursName: `${spelled(p.buggy, p.fix)} --config (the project's, with sealed: kernel)`,
      baselineName: `${plain.replace(junit, 'REPORT')} (once, on the fix)`,
      target: 1.1,
    });
    if (kind === 'py') {
      p.git('checkout', '-q', p.regress);
      const failing = pairs(check(p.fix, p.regress, [1]), plainRun([1]), dropCache);
      out.push({
        name: 'a failing Hypothesis property (shrinking included) under revert-check, against plain pytest',
        ...failing,
        oursName: `${spelled(p.fix, p.regress)} (exit 1: regressed)`,
        baselineName: `${plain.replace(junit, 'REPORT')} (on the broken commit, exit 1)`,
        target: 1.2,
      });
      // The issue's row: in the mode a new init writes for a pytest project.
      const failingSealed = pairs(sealedCheck(p.fix, p.regress, [1]), plainRun([1]), dropCache);
      out.push({
        name: 'a failing Hypothesis property (shrinking included) under revert-check, properties.sealed: kernel as init writes it, against plain pytest',
        ...failingSealed,
        oursName: `${spelled(p.fix, p.regress)} --config (the project's, with sealed: kernel; exit 1: regressed)`,
        baselineName: `${plain.replace(junit, 'REPORT')} (on the broken commit, exit 1)`,
        target: 1.2,
      });
    }
    p.git('checkout', '-q', p.fix);
    out.push(matrixRow(p, env, label, dropCache));
    return out;
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}
