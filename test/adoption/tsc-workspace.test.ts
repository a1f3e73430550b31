// An npm workspace whose packages TypeScript compiles into dist/ (ignored by
// git), its tests run after the build (`npm run build && node --test test/`):
// the revert check's trees hold nothing a build wrote, so init's starter puts
// the test script's build before both commands, and an agent's fix is proven
// with no edit of the config. Without the build, every property file failed
// to load on both sides.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Project, removeProjects } from './project.js';
import { installVendored } from './walk.js';

test.after.each(removeProjects);

const TODAY = new Date().toISOString().slice(0, 10);
const clamp = (fixed: boolean) =>
  `export function clampPercent(n: number): number {\n  if (n > 100) return 100;\n${fixed ? '  if (n < 0) return 0;\n' : ''}  return n;\n}\n`;

test('a tsc-built workspace: the starter builds before its runs, and a fix is proven as init wrote it', () => {
  const p = new Project({
    '.gitignore': 'node_modules/\ndist/\n*.tsbuildinfo\n',
    'package.json': JSON.stringify({
      name: 'mono',
      private: true,
      workspaces: ['packages/*'],
      scripts: { build: 'tsc -b packages/core', test: 'npm run build && node --test test/' },
    }),
    'packages/core/package.json': JSON.stringify({
      name: '@acme/core',
      version: '1.0.0',
      type: 'module',
      main: 'dist/index.js',
    }),
    'packages/core/tsconfig.json': JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', rootDir: 'src', outDir: 'dist', composite: true },
      include: ['src'],
    }),
    'packages/core/src/index.ts': clamp(false),
    'test/clamp.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clampPercent } from '@acme/core';\n\ntest('full', () => assert.equal(clampPercent(150), 100));\n",
  });
  p.ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', 'typescript@5']);
  installVendored(p, ['npm', 'install', '--save-dev', '--no-audit', '--no-fund']);
  p.write({
    'spec/invariants.yaml': `version: 1\ninvariants:\n  - id: core.clamp_in_range\n    description: a clamped percentage is in 0..100\n    pending: {since: ${TODAY}, owner: Dana Owner, reason: negatives pass through}\n`,
    'spec/properties/clamp.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clampPercent } from '@acme/core';\n\ntest('[invariant:core.clamp_in_range] in range', () => {\n  for (const n of [-50, -1, 0, 42, 100, 250]) assert.ok(clampPercent(n) >= 0 && clampPercent(n) <= 100);\n});\n",
  });
  p.ok('npx', ['patchwarden', 'init', '--yes', '--owner-key', p.ownerKey]);
  const config = readFileSync(path.join(p.dir, '.patchwarden.yml'), 'utf8');
  assert.match(config, /^ {2}command: npm run build; node --test .* spec\/properties$/m);
  assert.match(config, /^ {2}command: npm run build; node --test .* test$/m);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden, and the clamp property (pending)']);
  // The fix, judged as committed: the property fails on the base's build and passes on head's.
  p.write({ 'packages/core/src/index.ts': clamp(true) });
  p.ok('git', ['commit', '-q', '-am', 'fix: negatives clamp to 0']);
  const r = p.pw('revert-check', '--base', 'HEAD~1', '--format', 'json');
  const verdict = JSON.parse(r.stdout);
  assert.is(verdict.status, 'describes_patch', r.stdout + r.stderr);
  assert.equal(
    verdict.states.map((s: { id: string; state: string }) => [s.id, s.state]),
    [['core.clamp_in_range', 'fixed']],
  );
});

test.run();
