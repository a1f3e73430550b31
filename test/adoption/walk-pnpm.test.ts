// A pnpm workspace (TypeScript, vitest with fast-check, husky + lint-staged,
// every tool from the registry) walked by a new team from the packed tarball:
// the owner adds it with `pnpm add -D -w` from .patchwarden/vendor/, runs
// init with their signing key and doctor, the server gets the hook, the owner
// lands a pending invariant, an agent's unrelated change and its fix of the
// invariant pass pre-push and the server, a branch rebased onto the fixed
// main is judged alike by pre-push and the gate, a timing flake is frozen from
// replay's printed line, and action.yml's step judges the pull requests.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sh } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { Project, removeProjects } from './project.js';
import { installVendored, ownerSigns, walk } from './walk.js';

// pnpm itself, installed once for this file from the registry (see revert-pnpm.test.ts).
const tools = mkdtempSync(path.join(tmpdir(), 'pw-pnpm-'));
writeFileSync(path.join(tools, 'package.json'), '{"name":"tools","private":true}\n');
const got = sh('npm', ['install', '--no-audit', '--no-fund', 'pnpm@9'], { cwd: tools });
const missing =
  got.code === 0 ? null : `pnpm cannot be installed from the registry: ${got.stderr.trim().split('\n').pop()}`;
const PATH = `${path.join(tools, 'node_modules/.bin')}:${process.env.PATH}`;

test.after.each(removeProjects);
test.after(() => rmSync(tools, { recursive: true, force: true }));

const COUNT = 'bill.count_matches';
const TOTAL = 'bill.total_non_negative';
const TODAY = new Date().toISOString().slice(0, 10);
const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** The total is one short on the base (negative for an empty bill). */
const core = (fixed: boolean) =>
  `/** The sum of the items. */\nexport const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)${fixed ? '' : ' - 1'};\n\n/** How many items. */\nexport const count = (xs: number[]): number => xs.length;\n`;

/** fast-check properties, seeded from PROP_SEED, one vitest case per invariant. */
const property = (ids: string[]) => `import fc from 'fast-check';
import { expect, test } from 'vitest';
import { count, total } from '@shop/core';

fc.configureGlobal({ seed: Number(process.env.PROP_SEED ?? 0) });

test('count matches the items [invariant:${COUNT}]', () => {
  fc.assert(fc.property(fc.array(fc.nat()), (xs) => count(xs) === xs.length));
});
${
  ids.includes(TOTAL)
    ? `
test('totals are never negative [invariant:${TOTAL}]', () => {
  fc.assert(fc.property(fc.array(fc.nat()), (xs) => total(xs) >= 0));
  expect(total([])).toBe(0);
});
`
    : ''
}`;

const row = (id: string, pending = false) =>
  `  - id: ${id}\n    description: ${id} holds\n${pending ? `    pending: {since: ${TODAY}, owner: Dana Owner, reason: empty bills total -1}\n` : ''}`;

/** A suite test that misses its deadline every other run: a timing flake with no input. */
const FLAKE = `import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';

test('the step keeps its deadline', async () => {
  const file = new URL('./deadline.count', import.meta.url);
  const n = existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
  writeFileSync(file, String(n + 1));
  const start = Date.now();
  if (n % 2) await new Promise((r) => setTimeout(r, 300));
  expect(Date.now() - start).toBeLessThan(200);
});
`;

const PROPERTIES = 'pnpm exec vitest run spec/properties --reporter=junit --outputFile={junit}';
const SUITE = 'pnpm exec vitest run packages --reporter=junit --outputFile={junit}';

testUnless(missing)(
  'pnpm workspace: from the tarball to a proven fix, a rebase judged alike, a frozen flake, the Action',
  () => {
    const p = new Project(
      {
        '.gitignore': 'node_modules/\n*.count\nreplay.json\n',
        'package.json': json({
          name: 'shop',
          private: true,
          type: 'module',
          scripts: { prepare: 'husky', test: 'vitest run' },
          'lint-staged': { '*.ts': 'echo linted' },
          devDependencies: {
            '@shop/core': 'workspace:*',
            'fast-check': '3.23.2',
            husky: '9.1.7',
            'lint-staged': '15.5.2',
            vitest: '3.2.4',
          },
        }),
        'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
        'packages/core/package.json': json({
          name: '@shop/core',
          version: '1.0.0',
          type: 'module',
          main: 'src/index.ts',
        }),
        'packages/core/src/index.ts': core(false),
        'packages/core/test/count.test.ts':
          "import { expect, test } from 'vitest';\nimport { count } from '../src/index.ts';\n\ntest('count', () => expect(count([1])).toBe(1));\n",
        '.husky/pre-commit': 'pnpm exec lint-staged\n',
        'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}`,
        'spec/properties/bill.test.ts': property([COUNT]),
      },
      { PATH },
    );
    ownerSigns(p);
    p.ok('pnpm', ['install', '--no-frozen-lockfile']);
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'the lock']);
    p.ok('git', ['push', '-q']);

    // Install from the tarball with the README's pnpm line (at the workspace's root), init, doctor.
    installVendored(p, ['pnpm', 'add', '-D', '-w']);
    const init = p.ok('pnpm', [
      'exec',
      'patchwarden',
      'init',
      '--yes',
      '--owner-key',
      p.ownerKey,
      '--codeowners',
      '@acme/owners',
    ]);
    assert.match(init.stdout, /\.husky\/pre-commit: added the guard before your commands/);
    assert.match(init.stdout, /src zone: packages\/\*\/src\/\*\*: 1 file of production code/);
    // The owner names the project's runner (the starter knows node's own only), reviewed with the rest.
    const file = path.join(p.dir, '.patchwarden.yml');
    const config = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      config
        .replace(/^ {2}# Set once .*\n {2}# command: .*$/m, `  command: ${PROPERTIES}`)
        .replace(/^suite:\n.*\n/m, '')
        .replace(/^properties:\n/m, `suite:\n  command: ${SUITE}\nproperties:\n`),
    );
    const doctor = p.ok('pnpm', ['exec', 'patchwarden', 'doctor']);
    assert.not.match(doctor.stdout, /^PROBLEM/m, doctor.stdout);
    assert.match(doctor.stdout, /^ok +prop-seed: /m, doctor.stdout);
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'patchwarden: config, hooks, owner']);
    p.ok('git', ['push', '-q']);
    walk(p, {
      pw: ['pnpm', 'exec', 'patchwarden'],
      agentInstall: [['pnpm', 'install', '--frozen-lockfile']],
      ciSetup: [['pnpm', 'install', '--frozen-lockfile']],
      pending: {
        'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}${row(TOTAL, true)}`,
        'spec/properties/bill.test.ts': property([COUNT, TOTAL]),
      },
      unrelated: {
        'README.md': '# shop\n\nBills and their totals.\n',
        'packages/core/test/total.test.ts':
          "import { expect, test } from 'vitest';\nimport { total } from '../src/index.ts';\n\ntest('total of two', () => expect(total([1, 2])).toBeGreaterThan(1));\n",
      },
      draft: { 'packages/core/src/currency.ts': "/** The shop's currency. */\nexport const currency = 'EUR';\n" },
      fix: { 'packages/core/src/index.ts': core(true) },
      states: { [COUNT]: 'holds', [TOTAL]: 'fixed' },
      flake: {
        files: { 'packages/core/test/deadline.test.ts': FLAKE },
        name: 'the step keeps its deadline',
        failNext: (count) => ({ 'packages/core/test/deadline.count': count }),
      },
    });
  },
);

test.run();
