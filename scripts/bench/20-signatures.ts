// `patchwarden signatures` on a generated 50 MB report (50,000 cases, 5,000
// failures with Python tracebacks, few `&` references) against a bare fast-xml-parser parse of the
// same file in the same run; and its peak memory against the file's size.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, PROJECT, paired, peakMemory, spell, type Row } from './lib.js';

const CASES = 50_000;
const FAILURES = 5_000;
const TARGET_BYTES = 50 * 1024 * 1024;

/** A pytest-shaped report: every tenth case fails through a stack of project frames. */
function report(fillerLength: number): string {
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="pytest tests">\n'];
  const perSuite = 500;
  const filler = 'x'.repeat(fillerLength);
  for (let s = 0; s < CASES / perSuite; s++) {
    out.push(
      `<testsuite name="pytest" errors="0" failures="${perSuite / 10}" tests="${perSuite}" time="1.234" timestamp="2026-01-0${(s % 9) + 1}T10:00:00" hostname="ci">\n`,
    );
    for (let c = 0; c < perSuite; c++) {
      const n = s * perSuite + c;
      out.push(
        `  <testcase classname="tests.test_mod${s}" name="test_case_${n}[p${c}]" file="tests/test_mod${s}.py" line="${c * 7}" time="0.00${c % 10}">\n`,
      );
      if (n % (CASES / FAILURES) === 0) {
        const frames: string[] = [`tests/test_mod${s}.py:${c * 7 + 3}: in test_case_${n}\n    total(${c})`];
        for (let f = 0; f < 12; f++)
          frames.push(`src/pkg/mod${f}.py:${100 + f}: in helper_${f}\n    return helper_${f + 1}(value, other=${c})`);
        // Few references: one failure in a hundred quotes a `<`, the others none.
        const [lt, gt] = n % (100 * (CASES / FAILURES)) === 0 ? ['&lt;', '&gt;'] : ['(', ')'];
        frames.push(
          `src/pkg/tax.py:7: in rate\n    raise ValueError(f"bad value ${lt}{value}${gt}")\nE   ValueError: bad value ${lt}${c}${gt} at 0x7f${n.toString(16)}`,
        );
        out.push(
          `    <failure message="ValueError: bad value ${lt}${c}${gt} at 0x7f${n.toString(16)}">${frames.join('\n')}</failure>\n`,
        );
      }
      out.push(`    <system-out>log of case ${n}: ${filler}</system-out>\n  </testcase>\n`);
    }
    out.push('</testsuite>\n');
  }
  out.push('</testsuites>\n');
  return out.join('');
}

export default async function bench(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-bench-sig-'));
  try {
    const file = path.join(dir, 'report.xml');
    // Every case carries captured output, sized so that the file reaches its target.
    const bare0 = Buffer.byteLength(report(0));
    writeFileSync(file, report(Math.max(0, Math.floor((TARGET_BYTES - bare0) / CASES))));
    const bare = path.join(dir, 'bare.mjs');
    // The baseline: read the file and parse it with fast-xml-parser's defaults, nothing else.
    writeFileSync(
      bare,
      `import { readFileSync } from 'node:fs';\nimport { XMLParser } from ${JSON.stringify(path.join(PROJECT, 'node_modules/fast-xml-parser/src/fxp.js'))};\nnew XMLParser().parse(readFileSync(process.argv[2], 'utf8'));\n`,
    );
    const mb = statSync(file).size / 1024 / 1024;
    process.stderr.write(`bench: signatures on a ${mb.toFixed(1)} MB report\n`);
    const opts = { cwd: dir };
    const runs = paired(
      { cmd: process.execPath, args: [CLI, 'signatures', file, '--format', 'json'], opts },
      { cmd: process.execPath, args: [bare, file], opts },
      5,
    );
    const rows: Row[] = [
      {
        name: `signatures, ${mb.toFixed(0)} MB report`,
        ...runs,
        oursName: spell(process.execPath, [CLI, 'signatures', 'report.xml', '--format', 'json']),
        baselineName: 'node bare.mjs report.xml  # new XMLParser().parse(readFileSync(report.xml))',
        target: 1.5,
      },
    ];
    const peak = peakMemory(process.execPath, [CLI, 'signatures', file, '--format', 'json'], opts);
    if (peak !== null)
      rows.push({
        name: 'signatures peak memory',
        ours: peak,
        baseline: mb,
        baselineName: "the report's size",
        target: 6,
        unit: 'MB',
      });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
