// Bundles the CLI into dist/ with esbuild: hooks start on every commit, and one
// bundled ESM entry with lazily loaded command chunks starts fastest.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

// PATCHWARDEN_BUILD_DIR lets parallel test runs each build their own copy.
const outdir = path.resolve(process.env.PATCHWARDEN_BUILD_DIR ?? 'dist');
// Built beside the target and swapped in, so a running test never sees half a build.
const tmp = `${outdir}.tmp-${process.pid}`;
// Names this build's code and dependencies: caches written by another build are not trusted.
const buildId = createHash('sha256');
for (const file of [
  'package-lock.json',
  ...readdirSync('src', { recursive: true })
    .map((f) => path.join('src', f))
    .filter((f) => /\.(ts|py|cjs)$/.test(f))
    .sort(),
]) {
  buildId.update(file).update('\0').update(readFileSync(file)).update('\0');
}
// The runtime guards' own sources (Python, and the Node preload) go into the
// bundle as text: they are written out for each guarded run.
const guardSources = {
  name: 'guard-sources-as-text',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]properties[\\/]guard[\\/][^\\/]+\.(py|cjs)$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};
const shared = {
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  define: {
    PATCHWARDEN_VERSION: JSON.stringify(
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version,
    ),
    PATCHWARDEN_BUILD: JSON.stringify(buildId.digest('hex').slice(0, 16)),
  },
  // CommonJS dependencies (micromatch) inside an ESM bundle need a require().
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
};
// The pre-commit hook runs on every commit, and node loads each chunk of a
// shared graph as a module of its own (about 2 ms apiece): the hook is built
// on its own into one file, dist/pre-commit.js, which main.js loads; only its
// rarely needed layers (config parsing, ledger, fixtures) stay lazy chunks.
// The fixtures command likewise (dist/fixtures.js): `verify --worktree` is
// measured against a single `openssl dgst`, start-up included.
const ON_THEIR_OWN = [
  ['pre-commit', /\/hooks\/pre-commit\.js$/, 'src/hooks/pre-commit.ts'],
  ['fixtures', /\/fixtures\/command\.js$/, 'src/fixtures/command.ts'],
];
const onTheirOwn = {
  name: 'commands-on-their-own',
  setup(b) {
    for (const [name, filter] of ON_THEIR_OWN)
      b.onResolve({ filter }, (args) =>
        args.importer.endsWith(path.join('src', 'cli', 'main.ts'))
          ? { path: `./${name}.js`, external: true }
          : undefined,
      );
  },
};
// The hook scans staged production code with the tamper layer, whose own
// lazy imports would split the hook's bundle into many small chunks that
// every commit loads: the hook reaches it in the main build instead
// (dist/tamper-judge.js), only for a commit within the scan's bound.
const tamperFromMain = {
  name: 'tamper-from-main',
  setup(b) {
    b.onResolve({ filter: /\/tamper\/judge\.js$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'hooks', 'staged-tamper.ts'))
        ? { path: './tamper-judge.js', external: true }
        : undefined,
    );
  },
};
await build({
  ...shared,
  entryPoints: { main: 'src/cli/main.ts', 'tamper-judge': 'src/tamper/judge.ts' },
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [onTheirOwn, guardSources],
});
for (const [name, , entry] of ON_THEIR_OWN)
  await build({
    ...shared,
    entryPoints: { [name]: entry },
    chunkNames: `${name}-chunks/[name]-[hash]`,
    plugins: [tamperFromMain, guardSources],
  });
chmodSync(path.join(tmp, 'main.js'), 0o755);
// A build the same to the byte as the one in place leaves it alone: tests
// running in parallel (and `npm pack` among them) keep a dist/ that is never
// briefly absent.
const files = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)))
    .sort();
const same = (a, b) =>
  existsSync(b) &&
  String(files(a)) === String(files(b)) &&
  files(a).every((f) => readFileSync(path.join(a, f)).equals(readFileSync(path.join(b, f))));
if (same(tmp, outdir)) {
  rmSync(tmp, { recursive: true, force: true });
  process.exit(0);
}
const old = `${outdir}.old-${process.pid}`;
try {
  renameSync(outdir, old);
} catch {
  /* first build */
}
renameSync(tmp, outdir);
rmSync(old, { recursive: true, force: true });
