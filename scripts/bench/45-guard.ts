// What the runtime guards add to a property run of 200 cases: the same
// command in the same isolated environment (its own temporary root,
// PYTHONDONTWRITEBYTECODE), once without and once with the guard loaded
// (PYTHONPATH's sitecustomize for pytest, the NODE_OPTIONS preload for node
// --test), alternating, medians of several runs. The guarded time includes
// opening the channel and judging its records.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openGuard, type GuardSources } from '../../src/properties/guard/session.js';
import { propertyRunEnv, TREE_ENV } from '../../src/properties/runenv.js';
import { guardSources } from '../guard-preload.mjs';
import { benchEnv, type Row } from './lib.js';

const RUNS = 5;
const CASES = 200;

const SOURCES: GuardSources = await guardSources();

const PY_PROPERTY = `import pytest\nfrom bill import total\n\n@pytest.mark.parametrize("n", range(${CASES}))\ndef test_total(n, record_property):\n    record_property("invariant", "bill.total_non_negative")\n    assert total(list(range(n))) >= 0\n`;
const JS_PROPERTY = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/bill.mjs';\nfor (let n = 0; n < ${CASES}; n++) test(\`total \${n} [invariant:bill.total_non_negative]\`, () => assert.ok(total(Array.from({ length: n }, (_, i) => i)) >= 0));\n`;

interface Project {
  name: string;
  command: string;
  files: Record<string, string>;
}

const PROJECTS: Project[] = [
  {
    name: `runtime guard, pytest run of ${CASES} cases`,
    command: 'python3 -m pytest -q -p no:cacheprovider spec --junitxml={junit}',
    files: {
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'src/bill.py': 'def total(xs):\n    return sum(xs)\n',
      'spec/test_bill.py': PY_PROPERTY,
    },
  },
  {
    name: `runtime guard, node --test run of ${CASES} cases`,
    command: 'node --test --test-reporter=junit --test-reporter-destination={junit} spec/',
    files: {
      'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n',
      'spec/properties/bill.test.mjs': JS_PROPERTY,
    },
  },
];

export default async function guardRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const p of PROJECTS) {
    if (p.command.startsWith('python3') && spawnSync('python3', ['-m', 'pytest', '--version']).status !== 0) continue;
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-guard-')));
    try {
      const tree = path.join(root, 'tree');
      const tmp = path.join(root, 'tmp');
      mkdirSync(tmp);
      for (const [f, text] of Object.entries(p.files)) {
        mkdirSync(path.dirname(path.join(tree, f)), { recursive: true });
        writeFileSync(path.join(tree, f), text);
      }
      const ours: number[] = [];
      const baseline: number[] = [];
      await timed(p, tree, tmp, false);
      await timed(p, tree, tmp, true); // warm-up of both
      for (let i = 0; i < RUNS; i++) {
        baseline.push(await timed(p, tree, tmp, false));
        ours.push(await timed(p, tree, tmp, true));
      }
      rows.push({
        name: p.name,
        ours,
        baseline,
        oursName: 'the command with the guard loaded (and its channel judged)',
        baselineName: `sh -c '${p.command.replaceAll('{junit}', 'REPORT')}' in the same isolated environment`,
        target: 1.1,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return rows;
}

/** One run's wall time in ms; a guarded run must end with no problem from the guard. */
async function timed(p: Project, tree: string, tmp: string, guarded: boolean): Promise<number> {
  const t = process.hrtime.bigint();
  const guard = guarded
    ? openGuard(
        { tree, main: null, trusted: Object.keys(p.files).filter((f) => !f.startsWith('src/')), writable: [tmp, tree] },
        SOURCES,
      )
    : null;
  try {
    const junit = guard?.junit ?? path.join(tmp, 'report.xml');
    const env = benchEnv(
      guard
        ? propertyRunEnv(tmp, path.join(tmp, 'go-build'), guard)
        : { ...TREE_ENV, TMPDIR: tmp, PYTHONDONTWRITEBYTECODE: '1' },
    );
    const r = spawnSync('sh', ['-c', p.command.replaceAll('{junit}', junit)], {
      cwd: tree,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`bench: ${p.command} exited ${r.status}: ${r.stdout}${r.stderr}`);
    const problems = guard ? (await guard.finish()).problems : [];
    if (problems.length) throw new Error(`bench: the guard refused an honest run: ${problems.join('; ')}`);
    return Number(process.hrtime.bigint() - t) / 1e6;
  } finally {
    guard?.dispose();
  }
}
