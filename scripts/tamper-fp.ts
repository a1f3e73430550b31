// False-positive check for the tamper rules: scans every source file under the
// folders given as if a change added it whole, and prints hits per thousand
// lines and every hit. Usage: node --import tsx scripts/tamper-fp.ts DIR...
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { hitsIn } from '../src/tamper/hits.js';
import { langOf } from '../src/tamper/lang.js';
import { loadedFile } from '../src/tamper/rules.js';

function* files(dir: string): Generator<string> {
  if (statSync(dir).isFile()) {
    yield dir;
    return;
  }
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      if (!/^(test|tests|__tests__|testing|\.bin)$/.test(name)) yield* files(p);
    } else if (langOf(p) && !/\.d\.ts$|\.min\.js$/.test(p)) yield p;
  }
}

for (const root of process.argv.slice(2)) {
  let lines = 0;
  let count = 0;
  const byRule = new Map<string, number>();
  const shown: string[] = [];
  const t = process.hrtime.bigint();
  for (const f of files(root)) {
    const text = readFileSync(f, 'utf8');
    lines += text.split('\n').length;
    for (const h of hitsIn(path.relative(path.dirname(root), f), text, langOf(f)!, null, new Set())) {
      // A load is a hit when it resolves to a file the scan cannot read, as the layer resolves it in the tree.
      if (h.loads && loadedFile(f, h.loads, existsSync) === null) continue;
      count++;
      byRule.set(h.rule, (byRule.get(h.rule) ?? 0) + 1);
      shown.push(`    ${h.path}:${h.line} [${h.rule}] ${h.text}`);
    }
  }
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  console.log(
    `${root}: ${lines} lines, ${count} hits, ${((count * 1000) / Math.max(1, lines)).toFixed(2)} per 1000 lines, ${ms.toFixed(0)} ms`,
  );
  console.log(`  by rule: ${[...byRule].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}`);
  console.log(shown.join('\n'));
}
