// The starter guards the project it is run in: the src zone comes from the
// project's own metadata (a flat Python package, npm workspaces), init
// --src names it, and init and doctor refuse a src zone that matches nothing.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';

test.after.each(removeProjects);

const config = (p: Project) => readFileSync(path.join(p.dir, '.patchwarden.yml'), 'utf8');

test('a flat Python package (flit): src is the package folder, tests/ stays free, a mixed commit is refused', () => {
  const p = new Project({
    'pyproject.toml': '[project]\nname = "more-itertools"\n\n[tool.flit.module]\nname = "more_itertools"\n',
    'more_itertools/__init__.py': '',
    'more_itertools/more.py': 'def first(xs):\n    return xs[0]\n',
    'tests/test_more.py': 'def test_first():\n    pass\n',
    'package.json': '{"name": "more-itertools-dev", "private": true}\n',
  });
  p.npmInstall();
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.is(init.code, 0, init.stderr);
  assert.match(init.stdout, 'production code (src) is more_itertools/**');
  assert.match(config(p), /^ {2}src: \[more_itertools\/\*\*\]$/m);
  const doctor = p.pw('doctor');
  assert.is(doctor.code, 0, doctor.stdout);
  assert.match(doctor.stdout, 'ok      zones.src: more_itertools/**: 2 files of production code');
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden']);
  // Code and its ordinary tests commit together; code and a spec do not.
  p.write({
    'more_itertools/more.py': 'def first(xs):\n    return xs[:1][0]\n',
    'tests/test_more.py': 'def test_first():\n    assert True\n',
  });
  p.ok('git', ['commit', '-q', '-am', 'code and its tests']);
  p.write({
    'more_itertools/more.py': 'def first(xs):\n    return next(iter(xs))\n',
    'spec/test_first.py': 'def test_p():\n    pass\n',
  });
  p.ok('git', ['add', '-A']);
  const mixed = p.run('git', ['commit', '-q', '-m', 'mixed']);
  assert.is(mixed.code, 1);
  assert.match(mixed.stdout + mixed.stderr, 'refused [mix]');
});

test('a node project whose property imports an installed package: an honest fix passes the revert check, and a property that cannot load says why', () => {
  const p = new Project({
    'package.json': JSON.stringify({ name: 'bill', private: true, type: 'module', scripts: { test: 'node --test' } }),
    'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
    'spec/invariants.yaml':
      'version: 1\ninvariants:\n  - id: bill.total_non_negative\n    description: totals never go negative\n',
    'spec/properties/bill.test.mjs': [
      "import { test } from 'node:test';",
      "import fc from 'fast-check';",
      "import { total } from '../../src/bill.mjs';",
      "test('totals never go negative [invariant:bill.total_non_negative]', () => {",
      '  fc.assert(fc.property(fc.array(fc.nat()), (xs) => total(xs) >= 0));',
      '});',
      '',
    ].join('\n'),
  });
  p.npmInstall('fast-check');
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.is(init.code, 0, init.stderr);
  assert.match(config(p), /^revert:\n(?: {2}#.*\n)* {2}link: \[node_modules\]$/m);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden, fast-check']);
  p.write({ 'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n' });
  p.ok('git', ['commit', '-q', '-am', 'fix: totals never go negative']);
  const check = p.pw('revert-check', '--base', 'HEAD~1');
  assert.is(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, 'bill.total_non_negative  fixed');
  // without the installed package the property cannot load, and the refusal quotes node's reason
  rmSync(path.join(p.dir, 'node_modules/fast-check'), { recursive: true });
  const missing = p.pw('revert-check', '--base', 'HEAD~1');
  assert.is(missing.code, 1, missing.stdout + missing.stderr);
  assert.match(missing.stderr, "Cannot find package 'fast-check'");
});

test("npm workspaces (packages/*/src): src is each workspace's src/", () => {
  const p = new Project({
    'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }, null, 2),
    'packages/core/package.json': '{"name": "core"}\n',
    'packages/core/src/index.js': 'export const one = 1;\n',
    'packages/core/test/index.test.js': 'import "node:test";\n',
    'packages/cli/package.json': '{"name": "cli"}\n',
    'packages/cli/src/main.js': 'console.log(1);\n',
  });
  p.npmInstall();
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes', '--owner-key', p.ownerKey]);
  assert.match(config(p), /^ {2}src: \[packages\/\*\/src\/\*\*\]$/m);
  const doctor = p.pw('doctor');
  assert.is(doctor.code, 0, doctor.stdout);
  assert.match(doctor.stdout, 'zones.src: packages/*/src/**: 2 files of production code');
});

test('nothing to find: doctor refuses the src zone with the fix; init --src names it', () => {
  const p = new Project({ 'code/engine.rb': 'puts 1\n', 'package.json': '{"name": "shop", "private": true}\n' });
  p.npmInstall();
  // init says so, and fails, but writes the config and the hooks all the same.
  const init = p.run(path.join(p.dir, 'node_modules/.bin/patchwarden'), ['init', '--yes', '--owner-key', p.ownerKey]);
  assert.is(init.code, 1, init.stdout + init.stderr);
  assert.match(
    init.stdout,
    'patchwarden: error: src zone: src/** matches no file of this project, so no change counts as production code and nothing is guarded; set zones.src to the folders that hold it: `$EDITOR .patchwarden.yml` (files no zone claims: code/engine.rb)',
  );
  assert.match(init.stdout, 'patchwarden: .git/hooks/pre-commit: installed');
  assert.match(config(p), 'No production code found');
  const doctor = p.pw('doctor');
  assert.is(doctor.code, 1, doctor.stdout);
  assert.match(
    doctor.stdout,
    'PROBLEM zones.src: src/** matches no file of this project, so no change counts as production code and nothing is guarded; set zones.src to the folders that hold it: `$EDITOR .patchwarden.yml`',
  );
  rmSync(path.join(p.dir, '.patchwarden.yml'));
  p.ok(path.join(p.dir, 'node_modules/.bin/patchwarden'), [
    'init',
    '--yes',
    '--owner-key',
    p.ownerKey,
    '--src',
    'code/**',
    '--spec',
    'properties/**',
  ]);
  assert.match(
    config(p),
    /^ {2}spec: \[properties\/\*\*\]\n {2}fixtures: \[fixtures\/\*\*\]\n {2}freeze: \[freeze\/\*\*\]\n {2}src: \[code\/\*\*\]$/m,
  );
  const again = p.pw('doctor');
  assert.is(again.code, 0, again.stdout);
  // A glob the hooks would refuse is refused before anything is written.
  rmSync(path.join(p.dir, '.patchwarden.yml'));
  const bad = p.pw('init', '--yes', '--owner-key', p.ownerKey, '--src', '../outside/**');
  assert.is(bad.code, 2);
  assert.match(bad.stderr, 'zones.src: bad glob "../outside/**"');
});

test.run();
