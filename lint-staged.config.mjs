// Staged code goes through Biome, the formatter and linter `npm test` runs;
// prose and YAML, which Biome does not read, get their white space fixed.
// Then the whole project is type-checked (tsc judges a file together with
// what it imports).
const quoted = (files) => files.map((f) => JSON.stringify(f)).join(' ');

export default {
  '*.{ts,mjs,cjs,json}': (files) => [`biome check --write --no-errors-on-unmatched ${quoted(files)}`],
  '*.{md,yml,yaml}': (files) => [`node scripts/format.mjs ${quoted(files)}`],
  '*.ts': () => ['tsc --noEmit -p .'],
};
