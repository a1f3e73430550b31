// Real runners, one small project each (runners.ts): cosmetic changes keep
// every signature, real ones move it, and no two different bugs share an
// eligible signature. Runners that cannot be had here are skipped with a note.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { skip } from '../helpers/skip.js';
import {
  BASE,
  BUGS,
  gotestsum,
  jest,
  maven,
  mocha,
  nodeTest,
  npmModules,
  phpunit,
  pytest,
  vitest,
  writeProject,
  type Runner,
  type Variant,
} from './runners.js';

type Bug = (typeof BUGS)[number];
interface Row {
  sig: string;
  eligible: boolean;
  exc: string;
  kind: string;
  frames: string[];
  name: string;
  expression?: string;
}

/** Runs the runner on the variant in a fresh checkout and signs its report, by bug. */
function run(runner: Runner, v: Variant): Record<Bug, Row> {
  const repo = tempRepo();
  writeProject(repo.dir, runner.files(v));
  if (existsSync(path.join(repo.dir, 'package.json')) && !existsSync(path.join(repo.dir, 'node_modules')))
    symlinkSync(npmModules(), path.join(repo.dir, 'node_modules'));
  writeFileSync(path.join(repo.dir, '.git/info/exclude'), 'node_modules\nreport*.xml\ntarget/\n');
  const junit = path.join(repo.dir, `report-${Math.random().toString(36).slice(2)}.xml`);
  const { cmd, args, env } = runner.command(junit);
  const r = spawnSync(cmd, args, {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 240_000,
  });
  const reports = runner.report
    ? readdirSync(path.join(repo.dir, runner.report))
        .filter((f) => f.endsWith('.xml'))
        .map((f) => path.join(runner.report!, f))
    : [junit];
  assert.ok(
    reports.length && reports.every((f) => existsSync(path.resolve(repo.dir, f))),
    `${runner.name} wrote no report (exit ${r.status}): ${r.stdout}\n${r.stderr}`,
  );
  const signed = repo.json(['signatures', ...reports]);
  assert.is(signed.code, 0, signed.stderr);
  if (!runner.report) rmSync(junit);
  else rmSync(path.join(repo.dir, runner.report), { recursive: true });
  const rows = {} as Record<Bug, Row>;
  for (const f of signed.out.failures as Row[]) {
    const bug = BUGS.find((b) => f.name.toLowerCase().includes(b));
    assert.ok(bug, `${runner.name}: a failure of no bug: ${f.name}`);
    rows[bug!] = f;
  }
  assert.equal(
    Object.keys(rows).sort(),
    [...BUGS].sort(),
    `${runner.name}: every bug fails once: ${JSON.stringify(signed.out.failures.map((f: Row) => f.name))}`,
  );
  return rows;
}

const show = (rows: Record<Bug, Row>) =>
  BUGS.map(
    (b) =>
      `${b}: ${rows[b].sig} ${rows[b].eligible ? 'eligible' : 'ineligible'} ${rows[b].exc} ${rows[b].kind} [${rows[b].frames}] ${rows[b].expression ?? ''}`,
  ).join('\n');

const RUNNERS: Runner[] = [
  pytest('auto'),
  pytest('long'),
  pytest('short'),
  pytest('native'),
  nodeTest,
  jest,
  vitest,
  mocha,
  gotestsum,
  phpunit,
  maven,
];
const RUNNER_NAMES = RUNNERS.map((r) => r.name);
/** Each runner's base signatures, by runner name. */
const signed = new Map<string, Record<Bug, Row>>();

/** Which bugs a runner's report leaves ineligible, and why it is right. */
const INELIGIBLE: Record<string, Bug[]> = Object.fromEntries(
  RUNNER_NAMES.map((n) => [
    n,
    [
      // `got = discount(100)` then an assertion on `got`: the failure names only a local, as another bug's test could.
      // Go's t.Errorf text names Discount itself.
      ...(n.startsWith('go') ? [] : ['discount' as const]),
      // PHPUnit 9 writes no location for a missing exception: nothing but the class it expected.
      ...(n === 'phpunit' ? ['parse' as const] : []),
    ],
  ]),
);

// A Go panic with an error prints its Error() text and never its type: no report can tell the two types apart.
const TYPE_UNSEEN = new Set(['go + gotestsum']);

for (const runner of RUNNERS) {
  test(`${runner.name}: cosmetic changes keep every signature, real ones move it, different bugs never share one`, () => {
    const why = runner.unavailable();
    if (why) return skip(why);
    const rows = run(runner, BASE);
    signed.set(runner.name, rows);
    const context = `${runner.name}\n${show(rows)}`;
    const expected = INELIGIBLE[runner.name] ?? [];
    for (const b of BUGS) assert.is(rows[b].eligible, !expected.includes(b), `${b} eligible? ${context}`);
    const eligible = BUGS.filter((b) => rows[b].eligible).map((b) => rows[b].sig);
    assert.is(new Set(eligible).size, eligible.length, `two bugs share an eligible signature: ${context}`);

    // Renamed, moved, lines inserted, in another checkout path, by another run (new temp folder, timestamp, address).
    const cosmetic = run(runner, { ...BASE, suffix: '_renamed', moved: true, inserted: 3 });
    for (const b of BUGS)
      assert.is(
        cosmetic[b].sig,
        rows[b].sig,
        `rename, move, inserted lines, another checkout or another run moved ${b}: ${context}\n${show(cosmetic)}`,
      );

    // Another exception type (checkout) and another assertion kind (total) move theirs, and only theirs.
    const real = run(runner, { ...BASE, exc: 'StockError', kind: 'compare' });
    if (!TYPE_UNSEEN.has(runner.name))
      assert.is.not(
        real.checkout.sig,
        rows.checkout.sig,
        `another exception type kept checkout: ${context}\n${show(real)}`,
      );
    assert.is.not(real.total.sig, rows.total.sig, `another assertion kept total: ${context}\n${show(real)}`);
    for (const b of ['discount', 'parse', 'load'] as const)
      assert.is(real[b].sig, rows[b].sig, `${b} moved: ${context}\n${show(real)}`);

    // Another originating function moves the failure it throws from (where the trace shows project frames).
    const origin = run(runner, { ...BASE, origin: 'allocate' });
    if (rows.checkout.eligible)
      assert.is.not(
        origin.checkout.sig,
        rows.checkout.sig,
        `another origin kept checkout: ${context}\n${show(origin)}`,
      );
    for (const b of ['total', 'discount', 'parse', 'load'] as const)
      assert.is(origin[b].sig, rows[b].sig, `${b} moved: ${context}\n${show(origin)}`);
  });
}

test('pytest: --tb=auto, long, short and native give every failure the same signature', () => {
  const styles = [...signed].filter(([name]) => name.startsWith('pytest'));
  if (styles.length < 4) return skip('pytest did not run under all four --tb styles, so they are not compared');
  for (const b of BUGS)
    assert.equal(
      styles.map(([, rows]) => rows[b].sig),
      styles.map(() => styles[0][1][b].sig),
      `${b}: ${styles.map(([n, rows]) => `${n} ${rows[b].sig}`).join(', ')}`,
    );
});

test.after(cleanup);
test.run();
