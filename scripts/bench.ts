// `npm run bench [NAME]`: each measurement against a baseline from the same
// run, with the issue's target and a verdict. Not part of `npm test`.
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { median, timeOnce, type Row } from './bench/lib.js';

const only = process.argv[2];
const files = readdirSync(new URL('./bench/', import.meta.url))
  .filter((f) => /^\d\d-.*\.ts$/.test(f) && (!only || f.includes(only)))
  .sort();

// What a node start pays here for NODE_EXTRA_CA_CERTS, which every row runs without.
if (process.env.NODE_EXTRA_CA_CERTS) {
  const start = (env: NodeJS.ProcessEnv) =>
    median(Array.from({ length: 7 }, () => timeOnce({ cmd: process.execPath, args: ['-e', ''], opts: { env } })));
  const without = start({ ...process.env, NODE_EXTRA_CA_CERTS: '' });
  const withIt = start(process.env);
  console.log(
    `note: rows run without NODE_EXTRA_CA_CERTS, as the hook shims do; here it adds ${(withIt - without).toFixed(0)} ms to every node start (${without.toFixed(0)} -> ${withIt.toFixed(0)} ms)\n`,
  );
}

const list = (x: number | number[]) => (Array.isArray(x) ? x : [x]);
const fmt = (n: number, unit = 'ms') => `${n.toFixed(unit === 'ms' ? 1 : 0)} ${unit}`;
const spread = (xs: number[], unit?: string) =>
  xs.length > 1 ? ` (${fmt(Math.min(...xs), unit)} .. ${fmt(Math.max(...xs), unit)}, ${xs.length} runs)` : ' (1 run)';

let missed = 0;
for (const file of files) {
  process.stderr.write(`bench: ${file}\n`);
  const mod = (await import(`./bench/${file}`)) as { default: () => Promise<Row[]> };
  const load = loadavg()[0];
  const rows = await mod.default();
  // On a machine of a few cores the figures move with its load: said beside them.
  console.log(`${file}: load average ${load.toFixed(1)} at its start, ${loadavg()[0].toFixed(1)} at its end\n`);
  for (const r of rows) print(r);
}
console.log(missed ? `${missed} row(s) miss their target` : 'every row meets its target');

function print(r: Row): void {
  const ours = list(r.ours);
  const base = list(r.baseline);
  const ratio = median(ours) / median(base);
  const allowed = (baseline: number) =>
    Math.min(
      r.target === undefined ? Infinity : r.target * baseline + (r.slack ?? 0),
      r.ceiling ?? Infinity,
      r.limit?.ms ?? Infinity,
    );
  // Rounds: each judged alone, the row met only when every one is.
  const rounds = (r.rounds ?? []).map((x) => ({
    ratio: median(x.ours) / median(x.baseline),
    ok: median(x.ours) <= allowed(median(x.baseline)),
  }));
  const ok = rounds.length ? rounds.every((x) => x.ok) : median(ours) <= allowed(median(base));
  if (!ok) missed++;
  // Paired runs give one ratio each; their spread says how far to trust the median.
  const pairs = ours.length === base.length && ours.length > 1 ? ours.map((o, i) => o / base[i]) : [];
  const target = [
    ...(r.target === undefined ? [] : [`<= ${r.target}${r.slack ? ` x baseline + ${r.slack} ${r.unit ?? 'ms'}` : ''}`]),
    ...(r.ceiling === undefined ? [] : [`<= ${fmt(r.ceiling, r.unit)}`]),
  ].join(' and ');
  console.log(`${r.name}`);
  if (rounds.length) {
    const met = rounds.filter((x) => x.ok).length;
    console.log(
      `  verdict      ${ok ? 'meets' : 'MISSES'}: met in ${met} of ${rounds.length} consecutive rounds, ratios ${rounds.map((x) => x.ratio.toFixed(2)).join(', ')}, target ${target} in every round`,
    );
  } else console.log(`  verdict      ${ok ? 'meets' : 'MISSES'}: ratio ${ratio.toFixed(2)}, target ${target}`);
  console.log(
    `  patchwarden  ${fmt(median(ours), r.unit)}${spread(ours, r.unit)}${r.oursName ? `  $ ${r.oursName}` : ''}`,
  );
  console.log(`  baseline     ${fmt(median(base), r.unit)}${spread(base, r.unit)}  $ ${r.baselineName}`);
  if (pairs.length)
    console.log(
      `  paired       ratio median ${median(pairs).toFixed(2)}, from ${Math.min(...pairs).toFixed(2)} to ${Math.max(...pairs).toFixed(2)}`,
    );
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  if (r.cpu && sum(r.cpu.baseline) > 0)
    console.log(
      `  cpu          ratio ${(sum(r.cpu.ours) / sum(r.cpu.baseline)).toFixed(2)} of the CPU time of all runs, ${fmt(median(r.cpu.ours))} against ${fmt(median(r.cpu.baseline))} a run (median, in 10 ms ticks)`,
    );
  for (const line of r.note ?? []) console.log(`  note         ${line}`);
  if (r.limit)
    console.log(
      `  limit        ${fmt(r.limit.ms)}, ${r.limit.name}: patchwarden at ${(median(ours) / r.limit.ms).toFixed(2)} of it, the baseline at ${(median(base) / r.limit.ms).toFixed(2)}`,
    );
  console.log('');
}
