// Bundles the CLI into dist/ with esbuild, in two builds. dist/main.js is
// CommonJS: the entry, its commands' table and the pre-commit hook's common
// path, which node loads synchronously (an ES module graph costs the hook,
// which starts on every commit, a round trip through the event loop per
// module). Everything it loads lazily (each other command, the hook's rarer
// layers) is an ES module entry of the second build, dist/lazy/, whose
// entries share their chunks.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nodeGuardPreload } from './guard-preload.mjs';

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
    .filter((f) => /\.(ts|py|cjs|mjs)$/.test(f))
    .sort(),
]) {
  buildId.update(file).update('\0').update(readFileSync(file)).update('\0');
}
// The runtime guards' own sources (Python, and the Node preload, its modules
// bundled into one file first) and the sealed runtimes
// (properties/sealed/**) go into the bundle as text: they are written out
// for each guarded run.
let nodeGuard;
const guardSources = {
  name: 'guard-sources-as-text',
  setup(b) {
    b.onResolve({ filter: /^\.\/node\/preload\.bundle\.cjs$/ }, (args) => ({
      path: args.path,
      namespace: 'node-guard',
    }));
    b.onLoad({ filter: /.*/, namespace: 'node-guard' }, async () => ({
      contents: await (nodeGuard ??= nodeGuardPreload()),
      loader: 'text',
    }));
    b.onLoad(
      { filter: /[\\/]src[\\/]properties[\\/](guard[\\/][^\\/]+\.(py|cjs)|sealed[\\/].+\.(py|cjs|mjs))$/ },
      (args) => ({
        contents: readFileSync(args.path, 'utf8'),
        loader: 'text',
      }),
    );
  },
};
const shared = {
  outdir: tmp,
  bundle: true,
  platform: 'node',
  target: 'node20',
  define: {
    PATCHWARDEN_VERSION: JSON.stringify(
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version,
    ),
    PATCHWARDEN_BUILD: JSON.stringify(buildId.digest('hex').slice(0, 16)),
  },
  logLevel: 'warning',
  metafile: true,
};
// What main.js imports lazily becomes an entry of the ES module build, named
// for its source (src/gate/command.ts: lazy/gate-command.mjs). The hook
// main.js runs itself, pre-commit, is bundled in. The fixtures command is a
// CommonJS file of its own instead (lazy/fixtures-command.cjs), which main.js
// requires: `verify --worktree` races a single `openssl dgst`, and an ES
// module costs it the loader's start and every node built-in it imports
// translated into a module (about 15 ms of its start). Its hashing threads
// are another (lazy/fixtures-file-digests.cjs), required by both, so main.js
// starts them before the command loads. The config's parser (the YAML
// parser with it) is a third, which the command requires when there is a
// config to read. The tamper command is a fourth: on a one-line change its
// start is most of its cost, and so are the parts of the tamper layer it and
// the pre-commit hook load lazily (the judge, the scanner, the rules, the
// allow rows, the zone globs): as ES module entries they started the module
// loader on every such run. What else these import lazily (the report
// reader) are ES module entries. A CommonJS file has no import.meta: its
// url is the file's path, which createRequire takes as well.
const HOOK = path.resolve('src/hooks/pre-commit.ts');
// These commands are each one CommonJS file holding all they import, lazily
// or not (no entry of their own required): a check, a push and a received
// push judge on one small commit in less time than the module loader took
// to start and read their graph of ES module chunks, and one file keeps a
// single copy of each class and cache, as one module graph did.
const SELF_CONTAINED = ['judge-check', 'hooks-pre-push', 'hooks-pre-receive'];
const COMMONJS = [
  'fixtures-command',
  'fixtures-file-digests',
  'config-parse',
  'tamper-command',
  'tamper-hits',
  'tamper-allow',
  'tamper-rules',
  'config-classifier',
  'config-zone-rules',
  'tamper-judge',
  ...SELF_CONTAINED,
];
const lazy = {};
const commonjs = {};
// Every output file of the builds, with what esbuild says it imports.
const outputs = {};
const bundle = async (options) => Object.assign(outputs, (await build(options)).metafile.outputs);
const entryName = (file) => path.relative('src', file).replace(/\.ts$/, '').replaceAll(path.sep, '-');
// `prefix`: where the lazy entries are, seen from the file being built.
const lazyEntries = (prefix) => ({
  name: 'lazy-entries',
  setup(b) {
    const own = Object.values(b.initialOptions.entryPoints).map((f) => path.resolve(f));
    b.onResolve({ filter: /^\./ }, async (args) => {
      const dynamic = args.kind === 'dynamic-import';
      if (args.pluginData === lazy || !(dynamic || args.kind === 'import-statement')) return undefined;
      const { path: file, errors } = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: lazy, // resolved by esbuild, not again here
      });
      if (errors.length || file === HOOK || own.includes(file)) return undefined;
      const name = entryName(file);
      if (COMMONJS.includes(name)) {
        commonjs[`lazy/${name}`] = file;
        // A static import is a require(); a dynamic one is bundled in as one
        // line that requires the file once it is asked for.
        return dynamic
          ? { path: `${prefix}/${name}.cjs`, namespace: 'require-lazy' }
          : { path: `${prefix}/${name}.cjs`, external: true };
      }
      if (!dynamic) return undefined;
      lazy[`lazy/${name}`] = file;
      return { path: `${prefix}/${name}.mjs`, external: true };
    });
    b.onLoad({ filter: /.*/, namespace: 'require-lazy' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      resolveDir: process.cwd(),
    }));
    b.onResolve({ filter: /\.cjs$/ }, (args) =>
      args.namespace === 'require-lazy' ? { path: args.path, external: true } : undefined,
    );
  },
});
await bundle({
  ...shared,
  format: 'cjs',
  entryPoints: { main: 'src/cli/main.ts' },
  banner: { js: '#!/usr/bin/env node' },
  plugins: [lazyEntries('./lazy'), guardSources],
});
// The YAML and glob libraries are one CommonJS file each, which the other
// CommonJS files require: bundled into each, a command that loads its files
// before running tests (see src/runner/install.ts) compiled them in up to
// seven files.
const VENDOR = ['yaml', 'micromatch'];
const vendor = {
  name: 'vendor',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${VENDOR.join('|')})$`) }, (args) => ({
      path: `./vendor-${args.path}.cjs`,
      external: true,
    }));
  },
};
await bundle({
  ...shared,
  format: 'cjs',
  entryPoints: Object.fromEntries(VENDOR.map((v) => [`lazy/vendor-${v}`, v])),
  outExtension: { '.js': '.cjs' },
});
// Each may name another (the command, its hashing threads): built until none is new.
for (const built = new Set(); Object.keys(commonjs).some((n) => !built.has(n)); )
  for (const [name, file] of Object.entries(commonjs).filter(([n]) => !built.has(n))) {
    built.add(name);
    await bundle({
      ...shared,
      format: 'cjs',
      entryPoints: { [name]: file },
      outExtension: { '.js': '.cjs' },
      define: { ...shared.define, 'import.meta.url': '__filename' },
      plugins: [vendor, ...(SELF_CONTAINED.includes(path.basename(name)) ? [] : [lazyEntries('.')]), guardSources],
    });
  }
// The signatures command shares no chunk with the others: node loads each
// chunk as a module of its own, and its start is measured, `signatures` on
// a large report against reading it line by line.
const APART = ['signature'];
const others = Object.fromEntries(
  Object.entries(lazy).filter(([name]) => !APART.some((a) => name === `lazy/${a}-command`)),
);
for (const [entryPoints, chunkNames] of [
  [others, 'lazy/chunk-[hash]'],
  ...APART.map((a) => [{ [`lazy/${a}-command`]: lazy[`lazy/${a}-command`] }, `lazy/${a}-chunk-[hash]`]),
])
  await bundle({
    ...shared,
    format: 'esm',
    splitting: true,
    entryPoints,
    chunkNames,
    outExtension: { '.js': '.mjs' },
    // CommonJS dependencies (micromatch) inside an ES module bundle need a
    // require(). Each module records that it ran: ES modules have no
    // require.cache, and the judge's seal starts from what already ran.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url); (globalThis[Symbol.for('patchwarden.modules')] ??= new Set()).add(import.meta.url);",
    },
    plugins: [guardSources],
  });
// The import graph of dist/: for each built file, every built file it may
// load (static and dynamic imports, requires, the lazy entries' requires),
// by path relative to dist/. The judge's seal (src/runner/install.ts) loads
// only what the running process can still reach from it.
function importGraph() {
  const graph = {};
  for (const [out, { imports, inputs }] of Object.entries(outputs)) {
    const from = path.resolve(out);
    // The seal does not follow main.js's lazy imports (one per command, its
    // own taken before any test command): sound while main.js holds no seal.
    if (path.relative(tmp, from) === 'main.js' && Object.keys(inputs).some((i) => i.endsWith('src/runner/install.ts')))
      throw new Error('main.js bundles the seal (src/runner/install.ts): it would not follow main.js lazy imports');
    const edges = new Set();
    for (const i of imports) {
      if (i.external && !i.path.startsWith('.')) continue; // node's built-ins
      const to = i.external ? path.resolve(path.dirname(from), i.path) : path.resolve(i.path);
      if (!Object.keys(outputs).some((o) => path.resolve(o) === to))
        throw new Error(`${out} imports ${i.path}, which is not built`);
      edges.add(path.relative(tmp, to));
    }
    graph[path.relative(tmp, from)] = [...edges].sort();
  }
  const sorted = Object.fromEntries(Object.entries(graph).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${JSON.stringify(sorted, null, 1)}\n`;
}
// dist/ is a package of its own kind: its .js files are CommonJS (the
// project's package.json says "module" for the sources and scripts).
writeFileSync(path.join(tmp, 'package.json'), '{ "type": "commonjs" }\n');
writeFileSync(path.join(tmp, 'imports.json'), importGraph());
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
