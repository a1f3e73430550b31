// The package as published: the files the docs point at, no runtime
// dependencies (esbuild bundles them), no install step in a user's project.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, sh } from '../helpers/repo.js';
import { packed, userEnv, withPackLock } from './pack.js';

function unpacked(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-unpacked-'));
  const r = sh('tar', ['-xzf', packed(), '-C', dir]);
  assert.is(r.code, 0, r.stderr);
  return path.join(dir, 'package');
}

test('the tarball carries the CLI, the hook shims and every file the docs point at', () => {
  const pkg = unpacked();
  for (const f of [
    'dist/main.js',
    'hooks/pre-commit',
    'hooks/pre-push',
    'hooks/pre-receive',
    'scripts/install-server-hook.sh',
    'ci/gitlab/patchwarden.gitlab-ci.yml',
    'action.yml',
    '.pre-commit-hooks.yaml',
    'LICENSE',
    'README.md',
    'docs/hooks.md',
    'docs/gate.md',
  ]) {
    assert.ok(
      readdirSync(path.dirname(path.join(pkg, f))).includes(path.basename(f)),
      `${f} is missing from the package`,
    );
  }
  // Every scripts/, ci/, hooks/ and docs/ path the README names ships.
  const named = new Set(
    readFileSync(path.join(PROJECT, 'README.md'), 'utf8').match(
      /\b(?:scripts|ci\/gitlab|hooks|docs)\/[\w.-]+\.(?:sh|yml|md)\b/g,
    ),
  );
  for (const f of named)
    assert.ok(
      readdirSync(path.dirname(path.join(pkg, f))).includes(path.basename(f)),
      `README names ${f}, which is not in the package`,
    );
});

test('no runtime dependencies and no install step: the bundle holds them, and imports only node builtins', () => {
  const pkg = unpacked();
  const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  assert.equal(manifest.dependencies ?? {}, {});
  assert.is(manifest.scripts, undefined, 'no lifecycle script: installing the tarball runs nothing');
  assert.is(manifest.devDependencies, undefined);
  const files = [
    path.join(pkg, 'dist/main.js'),
    ...readdirSync(path.join(pkg, 'dist/chunks')).map((f) => path.join(pkg, 'dist/chunks', f)),
  ];
  // esbuild writes one static import per line, and dynamic ones as import("...").
  const imports = new Set(
    files
      .flatMap((f) =>
        [
          ...readFileSync(f, 'utf8').matchAll(
            /^import\b[^;\n]*?from\s*["']([^"']+)["'];?$|\bimport\(\s*["']([^"']+)["']\s*\)/gm,
          ),
        ].map((m) => m[1] ?? m[2]),
      )
      .filter((spec) => !spec.startsWith('.')),
  );
  assert.ok(imports.has('node:fs'), "the import scan sees the bundle's imports");
  for (const spec of imports) assert.match(spec, /^node:/, `the bundle imports ${spec}`);
  assert.match(
    readFileSync(files[0], 'utf8') + files.map((f) => readFileSync(f, 'utf8')).join(''),
    /XMLParser/,
    'fast-xml-parser is inside the bundle',
  );
});

test("installing the tarball prints no install-scripts warning, and packing leaves the checkout's package.json as it was", () => {
  const tarball = packed();
  const manifest = () => withPackLock(() => readFileSync(path.join(PROJECT, 'package.json'), 'utf8'));
  assert.match(manifest(), '"prepare": "node scripts/prepare.mjs"');
  const project = mkdtempSync(path.join(tmpdir(), 'pw-install-'));
  try {
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true }));
    const r = sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', tarball], {
      cwd: project,
      env: userEnv(),
    });
    assert.is(r.code, 0, r.stderr);
    assert.not.match(r.stdout + r.stderr, /install-scripts|npm warn/);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('npm publish --dry-run is clean', () => {
  const r = withPackLock(() =>
    sh('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: PROJECT, env: userEnv() }),
  );
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stderr, /npm warn (?!publish This command requires you to be logged in)/);
});

test("the README's git URL route: npm builds the package in its own clone; the project gets dist/ and no install step of its own", () => {
  const top = mkdtempSync(path.join(tmpdir(), 'pw-giturl-'));
  try {
    // A bare copy of this repository's HEAD stands in for the git host.
    const host = path.join(top, 'patchwarden.git');
    assert.is(sh('git', ['clone', '-q', '--bare', PROJECT, host], { env: userEnv() }).code, 0);
    const project = path.join(top, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true }));
    const r = sh(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', `git+file://${host}`],
      { cwd: project, env: userEnv() },
    );
    assert.is(r.code, 0, r.stdout + r.stderr);
    const v = sh(path.join(project, 'node_modules/.bin/patchwarden'), ['--version'], { cwd: project, env: userEnv() });
    assert.match(v.stdout, /^patchwarden \d+\.\d+\.\d+\n$/);
    assert.equal(
      readdirSync(project).sort(),
      ['node_modules', 'package-lock.json', 'package.json'],
      'nothing built or hooked in the project',
    );
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test.run();
