// What sealing adds to a pytest run: 200 cases (20 of them Hypothesis
// properties of 10 examples), one production call per example, run sealed
// (the Python runtime written out as a sealed run writes it, `confine: []`)
// and the same command unsealed in the same environment, alternating,
// medians of several runs. Then one crossing (a production call from the
// property process and its answer) timed inside a sealed run, and what a
// property pays per element when it crosses in a loop.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT, benchEnv, median, type Row } from './lib.js';

const RUNS = 5;
const PARAMETRIZED = 180;
const PROPERTIES = 20;
const EXAMPLES = 10;
const CALLS = 2000;

const SPEC = `import pytest
from hypothesis import given, settings, strategies as st

from bill import total


@pytest.mark.parametrize("n", range(${PARAMETRIZED}))
def test_total(n):
    assert total(list(range(n))) >= 0


def _property(i):
    @settings(max_examples=${EXAMPLES}, deadline=None, database=None)
    @given(st.lists(st.integers(min_value=0), max_size=20))
    def prop(xs):
        assert total(xs) >= 0

    return prop


for _i in range(${PROPERTIES}):
    globals()["test_property_%d" % _i] = _property(_i)
`;

const CROSSING = `import statistics
import time

import bill


def _median_us(fn):
    ts = []
    for _ in range(${CALLS}):
        t = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t)
    return statistics.median(ts) / 1000


def test_crossing():
    total = bill.total
    xs = [1, 2, 3]
    print("CALL_US", _median_us(lambda: total(xs)))
    t = time.perf_counter_ns()
    n = sum(1 for _ in bill.count(${CALLS}))
    print("ELEMENT_US", (time.perf_counter_ns() - t) / 1000 / n)
`;

const FILES: Record<string, string> = {
  'pytest.ini': '[pytest]\npythonpath = src\n',
  'src/bill.py': 'def total(xs):\n    return sum(xs)\n\n\ndef count(n):\n    yield from range(n)\n',
  'spec/test_bill.py': SPEC,
};

export default async function sealedPythonRows(): Promise<Row[]> {
  if (spawnSync('python3', ['-c', 'import pytest, hypothesis']).status !== 0) return [];
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-sealed-')));
  try {
    const tree = path.join(root, 'tree');
    for (const [f, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(tree, f)), { recursive: true });
      writeFileSync(path.join(tree, f), text);
    }
    const sealed = sealedEnv(root, tree);
    const plain = benchEnv({ TMPDIR: path.join(root, 'tmp'), PYTHONDONTWRITEBYTECODE: '1' });
    const spec = ['spec/test_bill.py'];
    const ours: number[] = [];
    const baseline: number[] = [];
    pytest(tree, plain, spec);
    pytest(tree, sealed, spec); // warm-up of both
    for (let i = 0; i < RUNS; i++) {
      baseline.push(pytest(tree, plain, spec).ms);
      ours.push(pytest(tree, sealed, spec).ms);
    }
    writeFileSync(path.join(tree, 'spec/test_crossing.py'), CROSSING);
    const figure = (env: NodeJS.ProcessEnv, name: string) =>
      Number(new RegExp(`${name} ([\\d.]+)`).exec(pytest(tree, env, ['-s', 'spec/test_crossing.py']).out)![1]);
    const crossing = { sealed: [] as number[], plain: [] as number[], element: [] as number[] };
    for (let i = 0; i < 3; i++) {
      crossing.sealed.push(figure(sealed, 'CALL_US'));
      crossing.plain.push(figure(plain, 'CALL_US'));
      crossing.element.push(figure(sealed, 'ELEMENT_US'));
    }
    const cases = `${PARAMETRIZED + PROPERTIES} cases (${PROPERTIES} Hypothesis properties of ${EXAMPLES} examples)`;
    return [
      {
        name: `sealed pytest run of ${cases}, one production call per example`,
        ours,
        baseline,
        oursName: 'the same command sealed: PYTEST_PLUGINS=patchwarden_sealed, production code in the worker',
        baselineName: 'python3 -m pytest -q -p no:cacheprovider spec/test_bill.py, unsealed, same environment',
        target: 1.3,
      },
      {
        name: 'one crossing of a sealed run: a production call and its answer (median of 2000)',
        ours: crossing.sealed,
        baseline: crossing.plain,
        unit: 'µs',
        ceiling: 100,
        oursName: 'total([1, 2, 3]) from the property process, answered by the worker',
        baselineName: 'the same call unsealed, in process',
        note: [
          `a property that crosses per element of a loop (a production generator of ${CALLS} items iterated sealed) pays ${median(crossing.element).toFixed(1)} us per element`,
        ],
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The environment of a sealed run: the runtime written out, the JSON it reads. */
function sealedEnv(root: string, tree: string): NodeJS.ProcessEnv {
  const runtime = path.join(PROJECT, 'src/properties/sealed/python');
  const dir = path.join(root, 'sealed');
  const tmp = path.join(root, 'tmp');
  mkdirSync(path.join(dir, 'python'), { recursive: true });
  mkdirSync(tmp, { recursive: true });
  for (const f of readdirSync(runtime).filter((f) => f.endsWith('.py')))
    copyFileSync(path.join(runtime, f), path.join(dir, 'python', f));
  const config = {
    mode: 'process',
    root: tree,
    src: [path.join(tree, 'src/bill.py')],
    confine: [],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: tmp },
    tmp,
  };
  writeFileSync(path.join(dir, 'sealed.json'), JSON.stringify(config));
  return benchEnv({
    TMPDIR: tmp,
    PYTHONDONTWRITEBYTECODE: '1',
    PATCHWARDEN_SEALED: path.join(dir, 'sealed.json'),
    PYTHONPATH: path.join(dir, 'python'),
    PYTEST_PLUGINS: 'patchwarden_sealed',
  });
}

function pytest(tree: string, env: NodeJS.ProcessEnv, args: string[]): { ms: number; out: string } {
  const t = process.hrtime.bigint();
  const r = spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...args], {
    cwd: tree,
    env,
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`bench: pytest ${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
  return { ms, out: r.stdout };
}
