// The Node runtime guard's preload: its typed modules
// (src/properties/guard/node/) bundled into the one CommonJS file each
// guarded run writes out and loads. The build embeds the text
// (scripts/build.mjs); tests and benches that open a guard session take it
// from here.
import { build } from 'esbuild';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The preload's text. */
export async function nodeGuardPreload() {
  const { outputFiles } = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/properties/guard/node/preload.ts'],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    logLevel: 'warning',
  });
  return outputFiles[0].text;
}
