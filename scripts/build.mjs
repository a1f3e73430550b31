// Bundles the CLI into dist/ with esbuild: hooks start on every commit, and one
// bundled ESM entry with lazily loaded command chunks starts fastest.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies (micromatch) inside an ESM bundle need a require().
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync(new URL('../dist/main.js', import.meta.url), 0o755);
