// Staged files get their white space fixed, then the whole project is
// type-checked (tsc judges a file together with what it imports).
export default {
  '*.{ts,mjs,md,yml,yaml,json}': (files) => [
    `node scripts/format.mjs ${files.map((f) => JSON.stringify(f)).join(' ')}`,
  ],
  '*.ts': () => ['tsc --noEmit -p .'],
};
