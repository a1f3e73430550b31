// `patchwarden signatures` on a generated 50 MB TAP stream (node's tap
// reporter's shape: 50,000 tests, each with its YAML block and its output as
// comments, 500 failures with stacks) against reading the same file line by
// line in node (readline), in the same run: reading TAP must stay linear.
// Signing many failures is measured by the JUnit row (20-signatures.ts).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, paired, spell, type Row } from './lib.js';

const TESTS = 50_000;
const FAILURES = 500;
const TARGET_BYTES = 50 * 1024 * 1024;

function stream(fillerLength: number): string {
  const out: string[] = ['TAP version 13\n'];
  const filler = 'x'.repeat(fillerLength);
  for (let n = 1; n <= TESTS; n++) {
    out.push(`# Subtest: case ${n}\n`);
    if (n % (TESTS / FAILURES) === 0) {
      out.push(
        `not ok ${n} - case ${n}\n  ---\n  duration_ms: 1.5\n  location: '/ci/work/test/mod${n % 50}.test.js:${n % 300}:1'\n  failureType: 'testCodeFailure'\n`,
      );
      out.push(
        `  error: 'bad value ${n} at 0x7f${n.toString(16)}'\n  code: 'ERR_TEST_FAILURE'\n  name: 'RangeError'\n  stack: |-\n`,
      );
      for (let f = 0; f < 12; f++) out.push(`    helper_${f} (file:///ci/work/src/pkg/mod${f}.js:${100 + f}:7)\n`);
      out.push(`    TestContext.<anonymous> (file:///ci/work/test/mod${n % 50}.test.js:${n % 300}:3)\n  ...\n`);
    } else {
      out.push(`ok ${n} - case ${n}\n  ---\n  duration_ms: 0.${n % 10}\n  ...\n`);
    }
    // The tests' own output, which node's reporter writes as comments.
    out.push(`# log of case ${n}: ${filler}\n`);
  }
  out.push(`1..${TESTS}\n`);
  return out.join('');
}

export default async function bench(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-bench-tap-'));
  try {
    const file = path.join(dir, 'report.tap');
    const bare0 = Buffer.byteLength(stream(0));
    writeFileSync(file, stream(Math.max(0, Math.floor((TARGET_BYTES - bare0) / TESTS))));
    const lines = path.join(dir, 'lines.mjs');
    // The baseline: every line of the file through readline, nothing else.
    writeFileSync(
      lines,
      `import { createReadStream } from 'node:fs';\nimport { createInterface } from 'node:readline';\nlet n = 0;\nfor await (const line of createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity })) n += line.length > 0 ? 1 : 0;\n`,
    );
    const mb = statSync(file).size / 1024 / 1024;
    process.stderr.write(`bench: signatures on a ${mb.toFixed(1)} MB TAP stream\n`);
    const opts = { cwd: dir };
    const runs = paired(
      { cmd: process.execPath, args: [CLI, 'signatures', file, '--format', 'json'], opts },
      { cmd: process.execPath, args: [lines, file], opts },
      5,
    );
    return [
      {
        name: `signatures, ${mb.toFixed(0)} MB TAP stream`,
        ...runs,
        oursName: spell(process.execPath, [CLI, 'signatures', 'report.tap', '--format', 'json']),
        baselineName: 'node lines.mjs report.tap  # every line through readline',
        target: 1.5,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
