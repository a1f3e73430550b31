// The test suite, one uvu process per test file, as many at once as there are
// cores (TEST_JOBS sets another number). Each file's output is kept and shown
// whole when it fails; a test that reports itself skipped (test/helpers/skip.ts
// prints the marker, which uvu may place mid-line) counts as skipped, never as
// passed. Under CI=true a skip for a tool .ci/run installs fails instead
// (test/helpers/skip.ts decides). The last line is `N passed, N failed, N skipped`.
//
// The unit tier (`--unit`, `npm run test:unit`) runs the files that start no
// process, judged from their imports: neither the file nor a test helper it
// imports, at any depth, imports node:child_process or test/helpers/repo.ts
// (real repositories and the built CLI); test/helpers/skip.ts counts as
// starting none, since it only asks whether a tool is installed. The tier
// needs no build and takes seconds; `npm test` runs every file.
// Usage: node scripts/test.mjs [--unit] [FILTER...]   (test files whose path contains a FILTER)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { importsOfFiles } from './imports.mjs';

/** What test/helpers/skip.ts prints for each test it skips, then the reason; keep the two in step. */
const SKIP_MARK = 'patchwarden-test skipped: ';
const SKIPPED = new RegExp(`${SKIP_MARK}(.*)`, 'g');
/** A file still running after this long is stopped and counted as failed. */
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 20 * 60_000);
// Last run's time per file: the longest start first, so no long file starts last.
const TIMES = path.resolve('node_modules/.cache/patchwarden-test-times.json');

/** The test files that start a process (see the unit tier above), read from every file under test/. */
function processStarters() {
  const sources = readdirSync('test', { recursive: true })
    .map((f) => path.resolve('test', String(f)))
    .filter((f) => f.endsWith('.ts'));
  const imports = importsOfFiles('tests', sources);
  const starts = new Map([
    [path.resolve('test/helpers/repo.ts'), true],
    [path.resolve('test/helpers/skip.ts'), false],
  ]);
  const visit = (file) => {
    if (starts.has(file)) return starts.get(file);
    starts.set(file, false); // a cycle adds nothing
    const found = imports.get(file);
    // A file that does not parse stays in the tier, where it fails.
    const result =
      Array.isArray(found) &&
      found.some(({ spec }) => {
        if (spec === 'node:child_process' || spec === 'child_process') return true;
        if (!spec?.startsWith('.')) return false;
        const target = path.resolve(path.dirname(file), spec);
        const ts = target.replace(/\.js$/, '.ts');
        return visit(existsSync(target) ? target : ts);
      });
    starts.set(file, result);
    return result;
  };
  return new Set(sources.filter((f) => visit(f)).map((f) => path.relative('.', f)));
}

const unit = process.argv.includes('--unit');
const filters = process.argv.slice(2).filter((a) => a !== '--unit');
const starters = unit ? processStarters() : new Set();
const files = readdirSync('test', { recursive: true })
  .map((f) => path.join('test', String(f)))
  .filter((f) => f.endsWith('.test.ts') && (!filters.length || filters.some((x) => f.includes(x))))
  .filter((f) => !starters.has(f))
  .sort();
if (!files.length) {
  console.error(`test: no${unit ? ' unit-tier' : ''} test file matches ${filters.join(' ')}`);
  process.exit(2);
}
let times = {};
try {
  times = JSON.parse(readFileSync(TIMES, 'utf8'));
} catch {
  /* first run */
}
const queue = [...files].sort((a, b) => (times[b] ?? Infinity) - (times[a] ?? Infinity));
const jobs = Math.max(1, Number(process.env.TEST_JOBS) || availableParallelism());

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const plain = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

/** Runs one file; resolves with its counts and its whole output. */
function runFile(file) {
  const started = Date.now();
  const args = ['--import', 'tsx', 'node_modules/uvu/bin.js', path.dirname(file), `^${escapeRe(path.basename(file))}$`];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = plain(out);
      const num = (label) => Number(text.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'))?.[1] ?? NaN);
      // uvu prints a test's output after the marks of the tests before it, so a marker may start mid-line.
      const reasons = [...text.matchAll(SKIPPED)].map((m) => m[1]);
      const total = num('Total');
      let passed = num('Passed');
      let failed = total - passed;
      let skipped = num('Skipped');
      if (Number.isNaN(total) || Number.isNaN(passed) || timedOut || (code !== 0 && failed === 0)) {
        // It never reached uvu's summary, or it died after it: the file counts as one failure.
        passed = Number.isNaN(passed) ? 0 : passed;
        failed = Math.max(1, Number.isNaN(failed) ? 1 : failed);
        skipped = Number.isNaN(skipped) ? 0 : skipped;
      }
      passed -= reasons.length;
      skipped += reasons.length;
      const why = timedOut ? `stopped after ${FILE_TIMEOUT_MS / 1000}s` : code !== 0 ? `exit ${code ?? signal}` : '';
      resolve({ file, passed, failed, skipped, reasons, out, why, ms: Date.now() - started });
    });
  });
}

const results = [];
const started = Date.now();
async function worker() {
  for (let file = queue.shift(); file; file = queue.shift()) {
    const r = await runFile(file);
    results.push(r);
    const counts = `${r.passed} passed${r.failed ? `, ${r.failed} failed` : ''}${r.skipped ? `, ${r.skipped} skipped` : ''}`;
    console.log(
      `${r.failed ? 'FAIL' : 'ok  '} ${r.file}  ${counts}  (${(r.ms / 1000).toFixed(1)}s)${r.why ? `  ${r.why}` : ''}`,
    );
  }
}
console.log(`test: ${files.length}${unit ? ' unit-tier' : ''} files, ${jobs} at a time`);
await Promise.all(Array.from({ length: jobs }, worker));

mkdirSync(path.dirname(TIMES), { recursive: true });
writeFileSync(TIMES, JSON.stringify({ ...times, ...Object.fromEntries(results.map((r) => [r.file, r.ms])) }, null, 1));

const failedFiles = results.filter((r) => r.failed).sort((a, b) => a.file.localeCompare(b.file));
for (const r of failedFiles) console.log(`\n===== ${r.file} (${r.why || 'failed'}) =====\n${r.out.trimEnd()}`);
const skips = results.flatMap((r) => r.reasons.map((why) => `  ${r.file}: ${why}`));
if (skips.length) console.log(`\nskipped, with their reasons:\n${skips.join('\n')}`);
const sum = (k) => results.reduce((n, r) => n + r[k], 0);
console.log(
  `\ntest: ${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)}s${failedFiles.length ? `; failed: ${failedFiles.map((r) => r.file).join(' ')}` : ''}`,
);
console.log(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
process.exitCode = failedFiles.length ? 1 : 0;
