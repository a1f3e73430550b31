// The project's formatting rule, applied to the files named: LF line ends, no
// trailing white space, one final newline. lint-staged re-stages what it fixes.
import { readFileSync, writeFileSync } from 'node:fs';

for (const file of process.argv.slice(2)) {
  const before = readFileSync(file, 'utf8');
  const after = before
    .replace(/\r\n/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n*$/, '\n');
  if (after !== before) writeFileSync(file, after);
}
