// What a sealed node:test run costs (src/properties/sealed/node): 200 cases
// of one production call each, sealed against the same run unsealed,
// alternating; one crossing (a call into the sealed worker and back) at the
// median against the same call in process; and what a property pays per
// element when it crosses once per element of a loop, or iterates a
// production generator. The worker runs unconfined here (`confine: []`):
// the kernel confinement's start is seal-int's to measure.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchEnv, median, PROJECT, type Row } from './lib.js';

const RUNS = 5;
const CASES = 200;
const RUNTIME = path.join(PROJECT, 'src/properties/sealed/node');

const FILES: Record<string, string> = {
  'package.json': '{"type":"module"}\n',
  'src/bill.mjs':
    'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\nexport const inc = (n) => n + 1;\nexport function* upto(n) { for (let i = 0; i < n; i++) yield i; }\n',
  'spec/bill.test.mjs': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../src/bill.mjs';\nfor (let n = 0; n < ${CASES}; n++) test(\`total \${n}\`, () => assert.ok(total(Array.from({ length: n }, (_, i) => i)) >= 0));\n`,
  // Prints the median of single crossings and the per-element costs, in µs.
  'crossing.mjs': `import { inc, upto } from './src/bill.mjs';
const now = () => Number(process.hrtime.bigint()) / 1000;
for (let i = 0; i < 200; i++) inc(i);
const one = [];
for (let i = 0; i < 3000; i++) { const t = now(); inc(i); one.push(now() - t); }
one.sort((a, b) => a - b);
const N = 2000;
// The fastest of three rounds: the first pays for compiling both sides.
let loop = Infinity;
let gen = Infinity;
for (let round = 0; round < 3; round++) {
  let t = now();
  for (let i = 0; i < N; i++) inc(i);
  loop = Math.min(loop, (now() - t) / N);
  t = now();
  let n = 0;
  for (const _ of upto(N)) n++;
  gen = Math.min(gen, (now() - t) / n);
}
console.log(JSON.stringify({ one: one[one.length >> 1], loop, gen }));
`,
};

export default async function sealedNodeRows(): Promise<Row[]> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-sealed-')));
  try {
    const tree = path.join(root, 'tree');
    for (const [f, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(tree, f)), { recursive: true });
      writeFileSync(path.join(tree, f), text);
    }
    const sealedEnv = sealing(root, tree);
    const plainEnv = { NODE_OPTIONS: '', PATCHWARDEN_SEALED: '' };
    const test = (env: NodeJS.ProcessEnv) =>
      timed(tree, env, [
        '--test',
        '--test-reporter=junit',
        `--test-reporter-destination=${path.join(root, 'r.xml')}`,
        'spec/',
      ]);
    test(plainEnv);
    test(sealedEnv); // warm-up of both
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      baseline.push(test(plainEnv));
      ours.push(test(sealedEnv));
    }
    const crossing = (env: NodeJS.ProcessEnv) => {
      const runs = Array.from({ length: RUNS }, () => JSON.parse(output(tree, env, ['crossing.mjs'])));
      return { one: runs.map((r) => r.one), loop: runs.map((r) => r.loop), gen: runs.map((r) => r.gen) };
    };
    const sealed = crossing(sealedEnv);
    const plain = crossing(plainEnv);
    return [
      {
        name: `sealed node --test run of ${CASES} cases, one production call each`,
        ours,
        baseline,
        oursName: 'the same command sealed (NODE_OPTIONS --import register.mjs, one worker per test file)',
        baselineName: `node --test --test-reporter=junit --test-reporter-destination=REPORT spec/ unsealed`,
        target: 1.3,
      },
      {
        name: 'one crossing into the sealed worker and back (median of 3000 calls)',
        ours: sealed.one,
        baseline: plain.one,
        oursName: 'inc(n) through its proxy, in µs',
        baselineName: 'the same call in process, in µs',
        ceiling: 100,
        unit: 'µs',
      },
      {
        name: 'a property that crosses once per element of a loop (2000 elements, the fastest of 3 rounds)',
        ours: sealed.loop,
        baseline: plain.loop,
        oursName: 'µs per element, one call each',
        baselineName: 'the same loop in process, µs per element',
        unit: 'µs',
        note: [
          `iterating a production generator: ${median(sealed.gen).toFixed(1)} µs per element sealed (one call of its next per element), ${median(plain.gen).toFixed(2)} µs in process`,
        ],
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The runtime written out and PATCHWARDEN_SEALED's JSON beside it, as a sealed run makes them. */
function sealing(root: string, tree: string): NodeJS.ProcessEnv {
  const dir = path.join(root, 'sealed');
  mkdirSync(path.join(dir, 'node'), { recursive: true });
  for (const f of readdirSync(RUNTIME).filter((f) => /\.(cjs|mjs)$/.test(f)))
    copyFileSync(path.join(RUNTIME, f), path.join(dir, 'node', f));
  const tmp = path.join(root, 'tmp');
  mkdirSync(tmp);
  const src = readdirSync(path.join(tree, 'src')).map((f) => path.join(tree, 'src', f));
  const json = path.join(dir, 'sealed.json');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp, TMPDIR: tmp };
  writeFileSync(json, JSON.stringify({ mode: 'process', root: tree, src, confine: [], env, tmp }));
  return {
    PATCHWARDEN_SEALED: json,
    NODE_OPTIONS: `--import ${pathToFileURL(path.join(dir, 'node', 'register.mjs')).href}`,
  };
}

function output(tree: string, env: NodeJS.ProcessEnv, args: string[]): string {
  const r = spawnSync(process.execPath, args, { cwd: tree, env: benchEnv(env), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench: node ${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function timed(tree: string, env: NodeJS.ProcessEnv, args: string[]): number {
  const t = process.hrtime.bigint();
  output(tree, env, args);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
