// The src zone read from TOML metadata as the packaging tools document it
// (setuptools, flit, poetry, Cargo workspaces), through a real TOML parser:
// inline tables, multi-line arrays, comments and `#` inside strings.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sourceGlobs } from '../../src/adopt/layout.js';
import { lockPackages } from '../../src/common/toml.js';

function project(files: Record<string, string>, dirs: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pw-layout-'));
  for (const d of dirs) {
    mkdirSync(path.join(root, d), { recursive: true });
    writeFileSync(path.join(root, d, '__init__.py'), '');
  }
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  return root;
}

const cases: [string, string, string[], string[]][] = [
  [
    'setuptools package-dir as an inline table',
    '[tool.setuptools]\npackage-dir = {"" = "src"}\npackages = ["shop"]\n',
    ['src/shop'],
    ['src/shop/**'],
  ],
  [
    'setuptools packages.find where, a multi-line array with comments',
    '[tool.setuptools.packages.find]\nwhere = [\n  "lib",  # the code\n]\n',
    ['lib/billing'],
    ['lib/billing/**'],
  ],
  ['flit module', '[tool.flit.module]\nname = "shop"\n', ['shop'], ['shop/**']],
  [
    'poetry packages from src',
    '[tool.poetry]\nname = "x"\npackages = [\n  { include = "shop", from = "src" },\n]\n',
    ['src/shop'],
    ['src/shop/**'],
  ],
  [
    'project name with a # in a string before it',
    '[project]\ndescription = "a # not a comment ] ["\nname = "my-shop"\n',
    ['my_shop'],
    ['my_shop/**'],
  ],
];

for (const [name, pyproject, dirs, want] of cases) {
  test(name, () => {
    const root = project({ 'pyproject.toml': pyproject }, dirs);
    try {
      assert.equal(sourceGlobs(root), want);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test('a pyproject.toml that does not parse names nothing; the usual folders are tried', () => {
  const root = project({ 'pyproject.toml': '[project\nname = ' }, ['src/shop']);
  try {
    assert.equal(sourceGlobs(root), ['src/**']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a Cargo workspace names its members', () => {
  const root = project({ 'Cargo.toml': '[workspace]\nmembers = ["crates/*"]  # all\nresolver = "2"\n' }, []);
  try {
    for (const c of ['core', 'cli']) mkdirSync(path.join(root, 'crates', c, 'src'), { recursive: true });
    assert.equal(sourceGlobs(root)?.sort(), ['crates/*/src/**']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('lock packages: uv, poetry and Cargo entries; a broken lock is an error, not an empty list', () => {
  const uv =
    'version = 1\nrequires-python = ">=3.11"\n\n[[package]]\nname = "attrs"\nversion = "24.2.0"\nsource = { registry = "https://pypi.org/simple" }\nwheels = [\n  { url = "https://x/attrs.whl", hash = "sha256:ab" },\n]\n\n[[package]]\nname = "shop"\nversion = "0.1.0"\nsource = { editable = "." }\n';
  assert.equal(lockPackages(uv), [
    { name: 'attrs', version: '24.2.0' },
    { name: 'shop', version: '0.1.0' },
  ]);
  const cargo = '[[package]]\nname = "itoa"\nversion = "1.0.9"\nchecksum = "aaaa"\n';
  assert.equal(lockPackages(cargo), [{ name: 'itoa', version: '1.0.9', checksum: 'aaaa' }]);
  const broken = lockPackages('[[package]]\nname = "a\n');
  assert.ok('error' in broken);
});

test.run();
