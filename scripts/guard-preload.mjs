// The Node runtime guard's preload: its typed modules
// (src/properties/guard/node/) bundled into the one CommonJS file each
// guarded run writes out and loads. The build embeds the text
// (scripts/build.mjs); tests and benches that open a guard session take it,
// and the Python guard's files beside it, from here.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
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

/** What a guard session is opened with: the Python guard's files and the Node preload, from this checkout. */
export async function guardSources() {
  const source = (f) => readFileSync(path.join(ROOT, 'src/properties/guard', f), 'utf8');
  return {
    sitecustomize: source('sitecustomize.py'),
    pythonGuard: source('patchwarden_guard.py'),
    pytestPlugin: source('pytest_plugin.py'),
    preload: await nodeGuardPreload(),
  };
}
