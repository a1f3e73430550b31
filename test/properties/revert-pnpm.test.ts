// A pnpm workspace, installed by a real pnpm from the registry, judged with
// the starter config: init zones the workspace packages, an honest fix
// passes the revert check through pnpm's symlinked node_modules (its
// virtual store, each package's own node_modules, the workspace links), a
// lock that changed since the base is refused with pnpm's own install
// command, and the Node guard runs the property under pnpm, yarn, npx and
// bun without crashing them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';

const ID = 'bill.total_non_negative';
const BUGGY = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n';
const FIXED = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';

// pnpm and yarn, installed once for this file from the registry; bun too where its package installs.
const tools = mkdtempSync(path.join(tmpdir(), 'pw-pm-tools-'));
writeFileSync(path.join(tools, 'package.json'), '{"name":"tools","private":true}\n');
const npmInstall = (...pkgs: string[]) => {
  const r = sh('npm', ['install', '--no-audit', '--no-fund', ...pkgs], { cwd: tools });
  return r.code === 0
    ? null
    : `${pkgs.join(', ')} cannot be installed from the registry: ${r.stderr.trim().split('\n').pop()}`;
};
const missing = npmInstall('pnpm@9', 'yarn@1');
const bunMissing =
  missing ??
  npmInstall('bun') ??
  (sh(path.join(tools, 'node_modules/.bin/bun'), ['--version']).code === 0
    ? null
    : 'bun from the registry does not run here');
const it = testUnless(missing);
// patchwarden first, as for every test (the workspace's "prepare" runs it), then the tools.
const PATH = `${BIN}:${path.join(tools, 'node_modules/.bin')}:${process.env.PATH}`;

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** A pnpm workspace: core (the code), app (depending on core and on ms from the registry), the property in spec/. */
function workspace(): TempRepo {
  const repo = tempRepo({ env: { PATH } });
  const files: Record<string, string> = {
    '.gitignore': 'node_modules/\n',
    'package.json': json({
      name: 'mono',
      private: true,
      type: 'module',
      scripts: { test: 'node --test' },
      devDependencies: { '@m/app': 'workspace:*' },
    }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    'packages/core/package.json': json({ name: '@m/core', version: '1.0.0', type: 'module', main: 'src/index.js' }),
    'packages/core/src/index.js': BUGGY,
    'packages/app/package.json': json({
      name: '@m/app',
      version: '1.0.0',
      type: 'module',
      main: 'src/index.js',
      dependencies: { '@m/core': 'workspace:*', ms: '2.1.3' },
    }),
    // app's own import of core and of ms resolve through packages/app/node_modules.
    'packages/app/src/index.js':
      "import ms from 'ms';\nimport { total } from '@m/core';\nexport const seconds = (xs) => total(xs) * ms('1s') / 1000;\n",
    'spec/invariants.yaml': `version: 1\ninvariants:\n  - id: ${ID}\n    description: totals never go negative\n`,
    'spec/properties/bill.test.mjs': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { seconds } from '@m/app';\n\ntest('totals never go negative [invariant:${ID}]', () => {\n  for (const xs of [[], [1, 2], [0, 5]]) assert.ok(seconds(xs) >= 0);\n});\n`,
  };
  for (const [f, c] of Object.entries(files)) repo.write(f, c);
  pnpm(repo, ['install']);
  return repo;
}

/** pnpm as a developer runs it: a plain install may write the lock (in CI pnpm's default is --frozen-lockfile). */
function pnpm(repo: TempRepo, args: string[]): void {
  if (args.length === 1 && args[0] === 'install') args = ['install', '--no-frozen-lockfile'];
  const r = sh('pnpm', args, { cwd: repo.dir, env: repo.env });
  assert.is(r.code, 0, `pnpm ${args.join(' ')}\n${r.stdout}${r.stderr}`);
}

/** The workspace with the starter config committed as the base, and the fix on top. */
function initialized(): { repo: TempRepo; init: { code: number; stdout: string; stderr: string } } {
  const repo = workspace();
  const init = repo.pw(['init', '--yes']);
  repo.commit({}, 'base: the workspace and patchwarden');
  return { repo, init };
}

test.after.each(cleanup);
test.after(() => rmSync(tools, { recursive: true, force: true }));

it('init zones the workspace packages that pnpm-workspace.yaml names, and says how much it zoned', () => {
  const { repo, init } = initialized();
  assert.is(init.code, 0, init.stdout + init.stderr);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  assert.match(config, /^ {2}src: \[packages\/\*\/src\/\*\*\]$/m);
  assert.match(init.stdout, 'src zone: packages/*/src/**: 2 files of production code');
});

it('init in a workspace whose src zone matches nothing says so and exits 1; --if-repo and a kept config exit 0', () => {
  const repo = tempRepo({ env: { PATH } });
  repo.write('package.json', json({ name: 'mono', private: true, scripts: { test: 'node --test' } }));
  repo.write('pnpm-workspace.yaml', 'packages:\n  - "apps/*"\n');
  repo.write('tools/build.sh', 'true\n');
  const init = repo.pw(['init', '--yes']);
  assert.is(init.code, 1, init.stdout + init.stderr);
  assert.match(init.stdout, /patchwarden: error: src zone: apps\/\*\/\*\* matches no file of this project/);
  const again = repo.pw(['init', '--yes']);
  assert.is(again.code, 0, again.stdout);
  assert.match(again.stdout, /error: src zone: apps\/\*\/\*\* matches no file/);
  rmSync(path.join(repo.dir, '.patchwarden.yml'));
  const prepare = repo.pw(['init', '--yes', '--if-repo']);
  assert.is(prepare.code, 0, prepare.stdout);
  assert.match(prepare.stdout, /error: src zone: apps\/\*\/\*\* matches no file/);
  const doctor = repo.pw(['doctor']);
  assert.is(doctor.code, 1, doctor.stdout);
});

it("an honest fix passes the revert check with the starter config, through pnpm's node_modules", () => {
  const { repo } = initialized();
  repo.commit({ 'packages/core/src/index.js': FIXED }, 'fix: totals never go negative');
  const r = repo.json(['revert-check', '--base', 'HEAD~1']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch', r.out.reason);
  assert.equal(r.out.failing_on_revert, [ID]);
  assert.match(r.stderr, /linked from the main tree: node_modules, packages\/app\/node_modules/);
});

it('node_modules installed from a pnpm-lock.yaml the base does not have is refused, with pnpm install --frozen-lockfile as the fix', () => {
  const { repo } = initialized();
  const app = JSON.parse(readFileSync(path.join(repo.dir, 'packages/app/package.json'), 'utf8'));
  app.dependencies.ms = '2.1.2';
  repo.write('packages/app/package.json', json(app));
  pnpm(repo, ['install']);
  repo.commit({ 'packages/core/src/index.js': FIXED }, 'fix, and another ms');
  const r = repo.json(['revert-check', '--base', 'HEAD~1']);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(
    r.out.reason,
    /dependencies differ from the base: node_modules holds packages the base's pnpm-lock\.yaml does not: .*ms@2\.1\.2/,
  );
  assert.match(r.out.reason, /install them from the base's lock files \(pnpm install --frozen-lockfile\)/);
  assert.not.match(r.out.reason, /npm ci/);
  // Run as printed, on the base's lock, the check judges the fix.
  repo.git(['checkout', '-q', 'HEAD~1', '--', 'pnpm-lock.yaml', 'packages/app/package.json']);
  pnpm(repo, ['install', '--frozen-lockfile']);
  repo.git(['checkout', '-q', 'HEAD', '--', 'pnpm-lock.yaml', 'packages/app/package.json']);
  const after = repo.json(['revert-check', '--base', 'HEAD~1']);
  assert.is(after.out.status, 'describes_patch', after.out.reason);
});

const NODE_TEST = '--test-reporter=junit --test-reporter-destination={junit} spec/properties/';
const RUNNERS: Array<[string, string, string | null]> = [
  ['pnpm exec', `pnpm exec node --test ${NODE_TEST}`, missing],
  ['pnpm test', `pnpm test -- ${NODE_TEST}`, missing],
  ['yarn', `yarn test ${NODE_TEST}`, missing],
  ['npx', `npx --no-install node --test ${NODE_TEST}`, missing],
  ['bun run', `bun run test -- ${NODE_TEST}`, bunMissing],
  ['bunx', `bunx node --test ${NODE_TEST}`, bunMissing],
];
for (const [name, command, lacking] of RUNNERS) {
  testUnless(lacking)(`the Node guard runs the property through ${name} without crashing it`, () => {
    const { repo } = initialized();
    const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8').replace(
      /^ {2}command: node --test .* spec\/properties$/m,
      `  command: ${JSON.stringify(command)}`,
    );
    assert.match(config, JSON.stringify(command));
    repo.commit({ '.patchwarden.yml': config }, `properties through ${name}`);
    repo.commit({ 'packages/core/src/index.js': FIXED }, 'fix: totals never go negative');
    const r = repo.json(['revert-check', '--base', 'HEAD~1']);
    assert.not.match(r.stderr, /Invalid property descriptor|must be a RegExp/);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.out.status, 'describes_patch', r.out.reason);
  });
}

it('under pnpm exec the guard still holds: production code that ends the run early is refused', () => {
  const { repo } = initialized();
  // The guard is what this proves: init's starter seals node:test (kernel), where
  // production code runs in a worker the guard does not watch, so sealing is off here.
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8')
    .replace(
      /^ {2}command: node --test .* spec\/properties$/m,
      `  command: ${JSON.stringify(`pnpm exec node --test ${NODE_TEST}`)}`,
    )
    .replace(/^ {2}sealed: kernel$/m, '  sealed: off');
  assert.match(config, /^ {2}sealed: off$/m);
  repo.commit({ '.patchwarden.yml': config }, 'properties through pnpm exec');
  repo.commit({ 'packages/core/src/index.js': `${BUGGY}process.exit(0);\n` }, 'a "fix" that ends the run');
  const r = repo.json(['revert-check', '--base', 'HEAD~1']);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head', r.out.reason);
  assert.match(r.out.reason, /the runtime guard refused the run/);
  assert.match(r.out.reason, /process\.exit/);
});

test.run();
