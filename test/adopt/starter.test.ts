// The starter config never blocks on day one, doctor passes right after init,
// and every doctor problem ends with the command that fixes it.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownerKey } from '../helpers/owner.js';
import { cleanup, sh, tempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';

test.after.each(cleanup);

test('a pytest project with a package.json that only installs patchwarden is a python project', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'tests/test_app.py': 'def test_x(): pass\n',
      'pytest.ini': '[pytest]\n',
      'package.json': JSON.stringify({ devDependencies: { patchwarden: '^0.1.0' } }),
    },
    'start',
  );
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  assert.match(config, /\n {2}command: python3 -m pytest -q --ignore=spec --junitxml=\{junit\}\n/);
  assert.not.match(config, /node --test/);
});

test('spec/ without a registry leaves properties.command a comment; the first push touching src is judged, not stopped', () => {
  const origin = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.commit({ 'src/app.py': 'x = 1\n', 'spec/test_p.py': 'def test_p(): pass\n', 'pyproject.toml': '' }, 'start');
  repo.git(['remote', 'add', 'origin', origin.dir]);
  repo.git(['push', '-q', 'origin', 'main']);
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  // The command the starter knows for the project's runner, as a comment to uncomment once the registry exists.
  assert.match(
    readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'),
    /\n {2}# Set once spec\/invariants\.yaml .*\n {2}# command: python3 -m pytest -q spec\/properties --junitxml=\{junit\}\n/,
  );
  assert.is(repo.pw(['doctor']).code, 0, repo.pw(['doctor']).stdout);
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'patchwarden config']);
  // The guard's files go first, on their own: the range rule keeps them apart from production pushes.
  assert.is(repo.git(['push', 'origin', 'main'], { allowFail: true }).code, 0);
  repo.write('src/app.py', 'x = 2\n');
  repo.git(['commit', '-q', '-am', 'production change']);
  const push = repo.git(['push', 'origin', 'main'], { allowFail: true });
  assert.is(push.code, 0, push.stderr);
});

test('a Go module without a registry gets its properties command as a comment, the one a registry uncomments', () => {
  const repo = tempRepo();
  repo.commit({ 'go.mod': 'module example.com/bill\n\ngo 1.19\n', 'bill/bill.go': 'package bill\n' }, 'start');
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  assert.match(config, /\n {2}# command: gotestsum --junitfile \{junit\} -- \.\/spec\/\.\.\.\n/);
  // Both sides at once only where the kernel fences each; the check runs them in turn, the base first, elsewhere.
  if (availableParallelism() > 1)
    assert.match(
      config,
      /where the kernel fences each side \(Landlock ABI 2\), else in turn,\n.*the base first.*\n {2}jobs: 2\n/,
    );
  else assert.not.match(config, /jobs:/);
  assert.is(repo.pw(['doctor']).code, 0, repo.pw(['doctor']).stdout);
});

test('without Landlock a Go module gets revert.jobs: 2 all the same on 2 cores: the check runs the sides in turn there', () => {
  const repo = tempRepo({ env: { PATCHWARDEN_LANDLOCK: 'off' } });
  repo.commit({ 'go.mod': 'module example.com/bill\n\ngo 1.19\n', 'bill/bill.go': 'package bill\n' }, 'start');
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  if (availableParallelism() > 1) assert.match(config, /\n {2}jobs: 2\n/);
  else assert.not.match(config, /jobs:/);
});

test('a registry makes the starter run the properties; fixtures get their lock; doctor passes right after init', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'setup.cfg': '',
      'spec/invariants.yaml': 'version: 1\ninvariants:\n  - id: app.x\n    description: x is one\n',
      'fixtures/input/a.json': '{"a":1}\n',
    },
    'start',
  );
  const init = repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  assert.is(init.code, 0);
  assert.match(init.stdout, /fixtures\/inputs\.sha256: written for 1 fixture \(/);
  assert.match(
    readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'),
    /\n {2}command: python3 -m pytest -q spec\/properties --junitxml=\{junit\}\n/,
  );
  const doctor = repo.pw(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout);
});

test('every doctor problem line ends with the command that fixes it', () => {
  const repo = tempRepo();
  repo.commit({ 'src/app.py': 'x = 1\n' }, 'start');
  repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  chmodSync(path.join(repo.dir, '.git/hooks/pre-push'), 0o644);
  repo.write('freeze/signatures.yaml', 'version: 1\nrecords:\n  - sig: 7c1a9e2b44d0af13\n    reason: r\n');
  repo.write('fixtures/input/a.json', '{"a":1}\n');
  repo.write('spec/invariants.yaml', 'version: 1\ninvariants: 3\n');
  const r = repo.pw(['doctor'], { env: { PATH: '/usr/bin:/bin' } });
  assert.is(r.code, 1);
  const problems = r.stdout.split('\n').filter((l) => l.startsWith('PROBLEM'));
  assert.equal(
    problems.map((l) => l.split(':')[0]),
    ['PROBLEM pre-push', 'PROBLEM binary', 'PROBLEM ledger', 'PROBLEM fixtures', 'PROBLEM registry'],
  );
  for (const line of problems) assert.match(line, /`[^`]+`$/, line);
  repo.write('.patchwarden.yml', 'version: 1\nzones: 3\n');
  const bad = repo.pw(['doctor']);
  assert.match(bad.stdout, /PROBLEM config: .*`git checkout -- \.patchwarden\.yml`$/m);
});

const goMissing =
  spawnSync('go', ['version']).status !== 0
    ? 'go is not installed'
    : spawnSync('gotestsum', ['--version']).status !== 0
      ? 'gotestsum is not installed'
      : null;

/** A Go module: a package with its test, a failing property and a non-test helper under spec/. */
const GO_MODULE = {
  'go.mod': 'module example.com/shop\n\ngo 1.19\n',
  'bill/bill.go': 'package bill\n\nfunc Total(xs []int) int { return len(xs) }\n',
  'bill/bill_test.go': 'package bill\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {}\n',
  'spec/properties/helper.go': 'package properties\n\nfunc Inputs() [][]int { return [][]int{{}} }\n',
  'spec/properties/bill_test.go':
    'package properties\n\nimport "testing"\n\nfunc TestBill(t *testing.T) {\n\tt.Run("[invariant:bill.total]", func(t *testing.T) { t.Fatal("pending") })\n}\n',
};

testUnless(goMissing)('go: the starter zones spec/ before src, and its suite command leaves spec/ out', () => {
  const repo = tempRepo();
  repo.commit(GO_MODULE, 'start');
  assert.is(repo.pw(['init', '--yes']).code, 0);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  const zones = config.split('\n').filter((l) => /^ {2}(src|spec|fixtures|freeze):/.test(l));
  assert.equal(
    zones.map((l) => l.trim().split(':')[0]),
    ['spec', 'fixtures', 'freeze', 'src'],
  );
  // The helper under spec/ is the spec's: staged with production code, the mixing rule refuses the pair.
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '--no-verify', '-m', 'patchwarden config']);
  repo.write('spec/properties/helper.go', `${GO_MODULE['spec/properties/helper.go']}// lenient\n`);
  repo.write('bill/bill.go', `${GO_MODULE['bill/bill.go']}// fixed\n`);
  repo.git(['add', '-A']);
  const check = repo.pw(['check']);
  assert.is(check.code, 1, check.stdout + check.stderr);
  assert.match(check.stdout + check.stderr, /spec\/properties\/helper\.go/);
  repo.git(['reset', '-q', '--hard']);
  const suite = /\n {2}command: (gotestsum .*)\n/.exec(config.slice(config.indexOf('\nsuite:')))?.[1];
  assert.ok(suite, config);
  const run = sh('sh', ['-c', suite!.replace('{junit}', 'report.xml')], { cwd: repo.dir });
  assert.is(run.code, 0, run.stdout + run.stderr);
  const report = readFileSync(path.join(repo.dir, 'report.xml'), 'utf8');
  assert.match(report, /name="TestTotal"/);
  assert.not.match(report, /TestBill|spec\/properties/);
});

test('doctor warns of a src glob listed before the oracle zones, and prints them reordered', () => {
  const repo = tempRepo();
  repo.commit({ 'go.mod': 'module example.com/shop\n', 'bill/bill.go': 'package bill\n' }, 'start');
  repo.write('.patchwarden.yml', 'version: 1\nzones:\n  src: ["**/!(*_test).go"]\n  spec: [spec/**]\n');
  const r = repo.pw(['doctor']);
  assert.match(
    r.stdout,
    /WARNING zones\.order: zones\.src \(\*\*\/!\(\*_test\)\.go\) comes before spec, fixtures, freeze and claims its paths \(spec\/bill\/bill\.go/,
  );
  assert.match(
    r.stdout,
    /\n {4}zones:\n {6}spec: \["spec\/\*\*"\]\n {6}fixtures: \["fixtures\/\*\*"\]\n {6}freeze: \["freeze\/\*\*"\]\n {6}src: \["\*\*\/!\(\*_test\)\.go"\]/,
  );
  // Zones left out keep their defaults after the listed ones: fixtures and freeze too must come before src.
  repo.write(
    '.patchwarden.yml',
    'version: 1\nzones:\n  spec: [spec/**]\n  fixtures: [fixtures/**]\n  freeze: [freeze/**]\n  src: ["**/!(*_test).go"]\n',
  );
  assert.not.match(repo.pw(['doctor']).stdout, /zones\.order/);
});

test('init writes version 2 with the setup files the runners name in the guard zone; doctor then finds none free', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.js': 'exports.x = 1;\n',
      'package.json': JSON.stringify({ name: 'app', devDependencies: { jest: '^30' }, scripts: { test: 'jest' } }),
      'jest.config.json': JSON.stringify({ setupFiles: ['<rootDir>/jest.setup.js'] }),
      'jest.setup.js': '// setup\n',
      'vitest.config.mjs': 'export default defineConfig({ test: { globalSetup: files } });\n',
    },
    'start',
  );
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  assert.match(config, /\nversion: 2\n/);
  assert.match(config, /\n {2}guard: \[jest\.setup\.js\]\n/);
  const doctor = repo.pw(['doctor']).stdout;
  assert.not.match(doctor, 'PROBLEM harness');
  assert.match(
    doctor,
    'WARNING harness: vitest.config.mjs gives globalSetup a value that is not a string or a list of strings, so its setup files cannot be read without running it: list them under zones.guard in .patchwarden.yml',
  );
});

test.run();
