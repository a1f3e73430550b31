// The package as published: the files the docs point at, no runtime
// dependencies (esbuild bundles them), no install step in a user's project.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
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
    'dist/package.json', // without it node reads main.js as an ES module
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
    ...readdirSync(path.join(pkg, 'dist/lazy')).map((f) => path.join(pkg, 'dist/lazy', f)),
  ];
  // esbuild writes one static import per line, dynamic ones as import("..."), and CommonJS ones as
  // require("...") (__require("...") inside an ES module).
  const imports = new Set(
    files
      .flatMap((f) =>
        [
          ...readFileSync(f, 'utf8').matchAll(
            /^import\b[^;\n]*?from\s*["']([^"']+)["'];?$|\b(?:import|require|__require)\(\s*["']([^"']+)["']\s*\)/gm,
          ),
        ].map((m) => m[1] ?? m[2]),
      )
      .filter((spec) => !spec.startsWith('.')),
  );
  assert.ok(imports.has('node:fs'), "the import scan sees the bundle's imports");
  // A dependency's require("util") is node's own module too.
  for (const spec of imports) assert.ok(isBuiltin(spec), `the bundle imports ${spec}`);
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

test("the README's tarball route: the tarball kept in the project installs in a teammate's clone elsewhere, hooks and all; packing leaves git status clean", () => {
  const tarball = packed();
  const name = path.basename(tarball);
  // `npm pack` in a checkout writes the tarball at its root, which git ignores.
  assert.is(sh('git', ['check-ignore', '-q', name], { cwd: PROJECT }).code, 0, `${name} is ignored by git`);
  const top = mkdtempSync(path.join(tmpdir(), 'pw-vendored-'));
  const env = userEnv();
  const ok = (cmd: string, args: string[], cwd: string) => {
    const r = sh(cmd, args, { cwd, env });
    assert.is(r.code, 0, `${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`);
    return r;
  };
  try {
    const origin = path.join(top, 'origin.git');
    const project = path.join(top, 'project');
    mkdirSync(path.join(project, 'vendor'), { recursive: true });
    ok('git', ['init', '-q', '--bare', '-b', 'main', origin], top);
    ok('git', ['init', '-q', '-b', 'main'], project);
    writeFileSync(path.join(project, 'package.json'), '{\n  "name": "shop",\n  "private": true\n}\n');
    writeFileSync(path.join(project, '.gitignore'), 'node_modules/\n');
    mkdirSync(path.join(project, 'shop'));
    writeFileSync(path.join(project, 'shop/price.py'), 'def price(n):\n    return n\n');
    ok('git', ['add', '-A'], project);
    ok('git', ['commit', '-q', '-m', 'the project so far'], project);
    // The README's commands, from the copy into vendor/ on.
    copyFileSync(tarball, path.join(project, 'vendor', name));
    ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', `./vendor/${name}`], project);
    assert.is(
      JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).devDependencies.patchwarden,
      `file:vendor/${name}`,
      'package.json names the tarball by a path inside the project',
    );
    ok(path.join(project, 'node_modules/.bin/patchwarden'), ['init', '--yes', '--src', 'shop/**'], project);
    ok('git', ['add', '-A'], project);
    ok('git', ['commit', '-q', '-m', 'patchwarden'], project);
    assert.match(ok('git', ['ls-files'], project).stdout, `vendor/${name}`);
    ok('git', ['push', '-q', origin, 'main'], project);
    // A teammate elsewhere: a clone, `npm ci`, and the guard is installed and runs.
    const clone = path.join(top, 'elsewhere', 'shop');
    mkdirSync(path.dirname(clone));
    ok('git', ['clone', '-q', origin, clone], top);
    ok('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone);
    assert.match(ok(path.join(clone, 'node_modules/.bin/patchwarden'), ['--version'], clone).stdout, /^patchwarden /);
    mkdirSync(path.join(clone, 'spec'));
    writeFileSync(path.join(clone, 'shop/price.py'), 'def price(n):\n    return n * 2\n');
    writeFileSync(path.join(clone, 'spec/test_price.py'), 'def test_price():\n    assert True\n');
    ok('git', ['add', '-A'], clone);
    const mixed = sh('git', ['commit', '-q', '-m', 'mixed'], { cwd: clone, env });
    assert.is(mixed.code, 1, mixed.stdout + mixed.stderr);
    assert.match(mixed.stderr, 'refused [mix]');
  } finally {
    rmSync(top, { recursive: true, force: true });
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
