// Sealing at adoption: init writes properties.sealed: kernel where the runner
// is one sealing serves (pytest without pytest-django, node:test) and off with
// its reason elsewhere; doctor says whether this machine can run kernel and,
// with sealing on, names the property files that mock or patch what the
// sealed worker runs.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { starterConfig } from '../../src/adopt/starter.js';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { ownerKey } from '../helpers/owner.js';
import { cleanup, PROJECT, tempRepo } from '../helpers/repo.js';
import { sample } from '../gate/sample.js';

test.after.each(cleanup);

const abi = landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi;

/** The starter's properties.sealed line and the comment above it, for a project of these files. */
function starterSealed(files: Record<string, string>): { value: string; why: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'pw-starter-'));
  try {
    for (const [f, text] of Object.entries({ 'spec/invariants.yaml': 'version: 1\ninvariants: []\n', ...files })) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), text);
    }
    const lines = starterConfig(root).split('\n');
    const at = lines.findIndex((l) => l.startsWith('  sealed: '));
    assert.ok(at > 0, 'the starter writes properties.sealed');
    return { value: lines[at].slice('  sealed: '.length), why: lines[at - 1] };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const pkg = (deps: Record<string, string>, testScript: string) =>
  JSON.stringify({ scripts: { test: testScript }, devDependencies: deps });

test('init writes kernel for pytest and node:test projects, and off with the reason for the rest', () => {
  assert.is(starterSealed({ 'pyproject.toml': '[project]\nname = "x"\n' }).value, 'kernel');
  assert.is(starterSealed({ 'package.json': pkg({ 'fast-check': '1' }, 'node --test test/') }).value, 'kernel');
  const django = starterSealed({ 'requirements.txt': 'django\npytest-django\n' });
  assert.equal(django.value, 'off');
  assert.match(
    django.why,
    /# pytest-django loads settings, models and database fixtures in the property process: sealing cannot serve it yet\./,
  );
  const jest = starterSealed({ 'package.json': pkg({ jest: '29' }, 'jest') });
  assert.equal(
    [jest.value, jest.why],
    [
      'off',
      '  # jest runs spec files through its own module pipeline (transforms, jest.mock): sealing cannot serve it yet.',
    ],
  );
  assert.match(starterSealed({ 'package.json': pkg({ vitest: '3' }, 'vitest run') }).why, /vitest .*vi\.mock/);
  assert.match(starterSealed({ 'package.json': pkg({ mocha: '10' }, 'mocha') }).why, /mocha .*root hooks/);
  assert.match(starterSealed({ 'go.mod': 'module x\n' }).why, /Go properties run in one test binary/);
});

test("init's starter with sealed: kernel is a config doctor accepts, and says what this machine can run", () => {
  const repo = tempRepo();
  repo.commit(
    { 'src/app.py': 'x = 1\n', 'pyproject.toml': '', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n' },
    'start',
  );
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  assert.match(readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'), /\n {2}sealed: kernel\n/);
  const checks = repo.json(['doctor']).out.checks.filter((c: { check: string }) => c.check === 'sealed');
  assert.is(checks.length, 1);
  if (abi > 0)
    assert.match(
      checks[0].detail,
      new RegExp(`^this machine can run properties\\.sealed: kernel \\(Landlock ABI ${abi}: files`),
    );
  else assert.match(checks[0].detail, /^this machine cannot run properties\.sealed: kernel/);
});

const PYTEST = 'python3 -m pytest -q spec --junitxml={junit}';
const REGISTRY = 'version: 1\ninvariants:\n  - id: n.ok\n    description: holds\n';

test('doctor, with sealing on, names the property files that patch or mock what the worker runs; without Landlock, kernel is a warning', () => {
  const repo = sample(`version: 1\nproperties:\n  command: ${PYTEST}\n  sealed: kernel\n`, {
    'spec/invariants.yaml': REGISTRY,
    'spec/test_n.py': 'import app\n\n\ndef test_n(monkeypatch):\n    monkeypatch.setattr(app, "now", lambda: 0)\n',
    'spec/n.test.mjs': "import { jest } from '@jest/globals';\n\njest.mock('../src/app.js');\n",
    'spec/test_clean.py': 'from app import total\n\n\ndef test_total():\n    assert total([]) == 0\n',
  });
  const sealed = () => repo.json(['doctor']).out.checks.filter((c: { check: string }) => c.check === 'sealed');
  let found = sealed();
  assert.is(found.length, 2);
  assert.equal([found[1].ok, found[1].warn], [true, true]);
  assert.match(
    found[1].detail,
    /^properties\.sealed is kernel, and these files use what does not reach the sealed worker: /,
  );
  assert.match(found[1].detail, /spec\/test_n\.py:5 \(monkeypatch\)/);
  assert.match(found[1].detail, /spec\/n\.test\.mjs:3 \(jest\.mock\)/);
  assert.not.match(found[1].detail, /test_clean/);
  found = repo
    .json(['doctor'], { env: { PATCHWARDEN_LANDLOCK: 'off' } })
    .out.checks.filter((c: { check: string }) => c.check === 'sealed');
  assert.equal([found[0].ok, found[0].warn], [true, true]);
  assert.match(found[0].detail, /its runs are sealed: process, and a gate with gate\.require: kernel refuses them/);
  // Off: no file is named.
  repo.write('.patchwarden.yml', `version: 1\nproperties:\n  command: ${PYTEST}\n  sealed: off\n`);
  assert.is(sealed().length, 1);
});

test.run();
