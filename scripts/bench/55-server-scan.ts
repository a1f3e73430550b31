// The tamper scan on large files, as pre-receive and the gate meet them:
// `patchwarden tamper --commit HEAD` on one commit that adds 3.5 MiB of
// multi-line JavaScript, a 3.4 MiB string literal, a 24 MiB single-line
// minified file, and 3.5 MiB of Python. Each row is the CPU time (user and
// system) of the whole command, from its start, beside its target and against
// the CPU time git alone takes to hand over the same change (the whole-file
// diff the layer reads); the wall time and the peak memory are printed under
// it. CPU time, because on a shared machine the wall time measures the load.
// The code is generated, deterministic, and written the way vendor code is
// (require, process.env.NODE_ENV, Object.defineProperty, errors thrown), with
// no line any rule refuses.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchGitEnv, CLI, cpuTimeOnce, type Cmd, median, spell, timeOnce, type Row } from './lib.js';

const MiB = 1 << 20;

/** Pieces from `unit(0)`, `unit(1)`, … joined until `bytes` are reached. */
function fill(unit: (k: number) => string, bytes: number): string {
  const parts: string[] = [];
  for (let n = 0, k = 0; n < bytes; k++) {
    parts.push(unit(k));
    n += parts[k].length;
  }
  return parts.join('');
}

const multiline = (k: number) => `// block ${k}: the total of an order, with its tax
const dep${k} = require('./dep${k % 50}');
function total${k}(items, rate = 0.${k % 10}) {
  if (!Array.isArray(items)) throw new TypeError('items ' + ${k} + " must be an array");
  const out = items.map((x) => x.price * rate + ${k}).filter((v) => /^\\d+(\\.\\d+)?$/.test(String(v)));
  if (process.env.NODE_ENV !== 'production' && out.length > ${k % 7}) console.warn(\`order \${out.length} of ${k}\`);
  return { sum: out.reduce((a, b) => a + b, 0) / 2, dep: dep${k}.name };
}
Object.defineProperty(exports, 'total${k}', { enumerable: true, get: () => total${k} });
`;
const minified = (k: number) =>
  `var a${k}=function(b,c){if(typeof b!=="number")throw new Error("bad "+${k});return b+c*${k}},d${k}={x:"s${k}",y:[1,2,3],z:require("./m${k % 50}")};` +
  `"production"!==process.env.NODE_ENV&&a${k}(1,2)>3&&(d${k}.x=/q+[a-z]*/.test("z${k}")?'a':"b");Object.defineProperty(exports,"d${k}",{value:d${k}});`;
const python = (k: number) => `# block ${k}: the total of an order
def total_${k}(items, rate=0.${k % 10}):
    """Sum the ${k} items, with tax."""
    if not isinstance(items, list):
        raise TypeError(f"items {len(items)} of ${k} must be a list")
    out = [x.price * rate + ${k} for x in items if x.price > ${k % 7}]
    return {"sum": sum(out) / 2, 'n': len(out), "note": r"\\d+ items"}


`;

const CASES: { name: string; file: string; text: () => string; ceiling: number; runs: number }[] = [
  {
    name: '3.5 MiB of multi-line JavaScript',
    file: 'src/orders.js',
    text: () => fill(multiline, 3.5 * MiB),
    ceiling: 250,
    runs: 7,
  },
  {
    name: 'a 3.4 MiB string literal',
    file: 'src/blob.js',
    text: () => `export const blob = "${fill((k) => `chunk ${k % 1000} of the payload\\n`, 3.4 * MiB)}";\n`,
    ceiling: 250,
    runs: 7,
  },
  {
    name: 'a 24 MiB single-line minified file',
    file: 'src/vendor.min.js',
    text: () => `${fill(minified, 24 * MiB)}\n`,
    ceiling: 2000,
    runs: 3,
  },
  { name: '3.5 MiB of Python', file: 'src/orders.py', text: () => fill(python, 3.5 * MiB), ceiling: 250, runs: 7 },
];

interface Runs {
  /** CPU ms (wall ms where GNU time is missing) of each run of ours and of the baseline. */
  ours: number[];
  baseline: number[];
  wall: number[];
  peak: number[];
  unit: 'CPU' | 'wall';
}

/** `runs` runs of each, one after the other, after one warm-up of ours. */
function measure(ours: Cmd, base: Cmd, runs: number): Runs {
  const out: Runs = { ours: [], baseline: [], wall: [], peak: [], unit: 'CPU' };
  timeOnce(ours);
  for (let r = 0; r < runs; r++) {
    const a = cpuTimeOnce(ours);
    const b = cpuTimeOnce(base);
    if (!a || !b) {
      out.unit = 'wall';
      out.ours.push(timeOnce(ours));
      out.baseline.push(timeOnce(base));
      continue;
    }
    out.ours.push(a.cpu);
    out.baseline.push(b.cpu);
    out.wall.push(a.wall);
    out.peak.push(a.peak);
  }
  return out;
}

function scanRow(name: string, file: string, mb: number, ceiling: number, m: Runs, baseArgs: string[]): Row {
  const range = (xs: number[], unit: string) =>
    `${median(xs).toFixed(0)} ${unit} (${Math.min(...xs).toFixed(0)} .. ${Math.max(...xs).toFixed(0)})`;
  const rate = mb / (median(m.ours) / 1000);
  return {
    name: `tamper --commit, ${name} (${m.unit} time of the whole command)`,
    ours: m.ours,
    baseline: m.baseline,
    oursName: `${spell('node', ['dist/main.js', 'tamper', '--commit', 'HEAD'])}  # ${mb.toFixed(1)} MB in ${file}`,
    baselineName: spell('git', baseArgs),
    ceiling,
    note: [
      `${rate.toFixed(1)} MB/s of ${m.unit} time, target at least 20 MB/s: ${rate >= 20 ? 'meets' : 'MISSES'}`,
      ...(m.wall.length
        ? [`wall time ${range(m.wall, 'ms')}, peak memory ${range(m.peak, 'MB')}`]
        : ['GNU time (/usr/bin/time) is missing: the rows are wall time, no peak memory']),
    ],
  };
}

export default async function serverScan(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-bench-scan-'));
  const env = benchGitEnv();
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] })
      .toString()
      .trim();
  try {
    const rows: Row[] = [];
    for (const [i, c] of CASES.entries()) {
      const work = path.join(dir, `case${i}`);
      git(dir, 'init', '-q', '-b', 'main', work);
      writeFileSync(path.join(work, '.patchwarden.yml'), 'version: 1\n');
      git(work, 'add', '.');
      git(work, 'commit', '-qm', 'base');
      const text = c.text();
      mkdirSync(path.join(work, 'src'), { recursive: true });
      writeFileSync(path.join(work, c.file), text);
      git(work, 'add', '.');
      git(work, 'commit', '-qm', 'large file');
      const ours = { cmd: process.execPath, args: [CLI, 'tamper', '--commit', 'HEAD'], opts: { cwd: work, env } };
      const base = { cmd: 'git', args: ['diff', '-U1000000000', 'HEAD~1', 'HEAD'], opts: { cwd: work, env } };
      const mb = Buffer.byteLength(text) / 1e6;
      rows.push(scanRow(c.name, c.file, mb, c.ceiling, measure(ours, base, c.runs), base.args));
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
