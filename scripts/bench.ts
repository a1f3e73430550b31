// `npm run bench`: each measurement against a baseline from the same run,
// printed as ratios with the issue's target. Not part of `npm test`.
import { readdirSync } from 'node:fs';
import type { Row } from './bench/lib.js';

const only = process.argv[2];
const files = readdirSync(new URL('./bench/', import.meta.url)).filter((f) => /^\d\d-.*\.ts$/.test(f) && (!only || f.includes(only))).sort();
const rows: Row[] = [];
for (const file of files) {
  process.stderr.write(`bench: ${file}\n`);
  const mod = (await import(`./bench/${file}`)) as { default: () => Promise<Row[]> };
  rows.push(...(await mod.default()));
}
const fmt = (n: number, unit = 'ms') => `${n.toFixed(unit === 'MB' ? 0 : 1)} ${unit}`;
console.log(['measurement', 'patchwarden', 'baseline', 'ratio', 'target', 'verdict'].join('\t'));
for (const r of rows) {
  const ratio = r.ours / r.baseline;
  const allowed = r.target * r.baseline + (r.slack ?? 0);
  const target = `<= ${r.target}${r.slack ? ` + ${r.slack} ms` : ''}`;
  console.log([r.name, fmt(r.ours, r.unit), `${fmt(r.baseline, r.unit)} (${r.baselineName})`, ratio.toFixed(2), target, r.ours <= allowed ? 'meets' : 'MISSES'].join('\t'));
}
