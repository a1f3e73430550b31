// scripts/test.mjs run as `npm test` runs it, on test files of a temporary
// folder: a skip counts as skipped wherever its marker lands in uvu's output,
// a probe for a program that is not there skips rather than failing the file,
// and under CI=true a skip for a tool .ci/run installs fails the run; the
// unit tier keeps the files that start no process.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, sh } from '../helpers/repo.js';

const RUNNER = path.join(PROJECT, 'scripts/test.mjs');
const SKIP = path.join(PROJECT, 'test/helpers/skip.ts');

/** A folder laid out as the runner expects (test/, node_modules with uvu and tsx), holding `files` under test/. */
function suite(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pw-runner-'));
  for (const m of ['uvu', 'tsx']) {
    mkdirSync(path.join(root, 'node_modules'), { recursive: true });
    symlinkSync(path.join(PROJECT, 'node_modules', m), path.join(root, 'node_modules', m));
  }
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'test', name)), { recursive: true });
    writeFileSync(path.join(root, 'test', name), text);
  }
  return root;
}

/** Runs the runner in `root` with `args`; CI set only when given. */
function run(root: string, ci?: string, args: string[] = []) {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_JOBS: '1' };
  delete env.CI;
  if (ci !== undefined) env.CI = ci;
  return sh(process.execPath, [RUNNER, ...args], { cwd: root, env });
}

const header = `import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ciInstalls, missingUnless, testUnless } from ${JSON.stringify(SKIP)};
`;

// Two passing tests first, so uvu has printed their marks on the line the skip lands on.
const MID_LINE = `${header}
test('one', () => assert.is(1, 1));
test('two', () => assert.is(2, 2));
testUnless('the frobnicator is not installed')('three', () => assert.unreachable('ran'));
test.run();
`;

const CI_TOOL = `${header}
test('one', () => assert.is(1, 1));
testUnless(missingUnless('pw-no-such-program', ['--version'], ciInstalls('pw-no-such-program is not installed')))(
  'needs the program',
  () => assert.unreachable('ran'),
);
testUnless('the shared corpus is absent')('needs the corpus', () => assert.unreachable('ran'));
test.run();
`;

test('a skip printed mid-line counts as skipped with its reason, never as a pass', () => {
  const root = suite({ 'x/mid.test.ts': MID_LINE });
  try {
    // uvu itself prints the marker after the marks of the tests before it.
    const uvu = sh(process.execPath, ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test/x'], { cwd: root });
    assert.match(uvu.stdout.replace(/\x1b\[[0-9;]*m/g, ''), /[^\n]patchwarden-test skipped: three: /);
    const r = run(root);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\n2 passed, 0 failed, 1 skipped\n$/);
    assert.match(r.stdout, 'test/x/mid.test.ts: three: the frobnicator is not installed');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a missing program .ci/run installs: skipped with its reason, and under CI=true a failure', () => {
  const root = suite({ 'x/tool.test.ts': CI_TOOL });
  try {
    const local = run(root);
    assert.is(local.code, 0, local.stdout + local.stderr);
    assert.match(local.stdout, /\n1 passed, 0 failed, 2 skipped\n$/);
    assert.match(local.stdout, 'needs the program: pw-no-such-program is not installed');
    const ci = run(root, 'true');
    assert.is(ci.code, 1, ci.stdout + ci.stderr);
    assert.match(ci.stdout, /\n1 passed, 1 failed, 1 skipped\n$/);
    assert.match(ci.stdout, 'pw-no-such-program is not installed, which .ci/run installs: under CI=true');
    // The plain reason stays a skip under CI too.
    assert.match(ci.stdout, 'needs the corpus: the shared corpus is absent');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

const PLAIN = "import { test } from 'uvu';\ntest('one', () => {});\ntest.run();\n";
const STARTS = `import { spawnSync } from 'node:child_process';\n${PLAIN}`;

test('the unit tier: the files that start no process, themselves or through a helper at any depth', () => {
  const root = suite({
    'a/plain.test.ts': PLAIN,
    'a/starts.test.ts': STARTS,
    'b/through.test.ts': `import { x } from '../helpers/outer.js';\n${PLAIN}`,
    'b/required.test.ts': `import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)(\`node:child_process\`);\n${PLAIN}`,
    'helpers/outer.ts': "export { x } from './inner.js';\n",
    'helpers/inner.ts': "import { spawn } from 'node:child_process';\nexport const x = spawn;\n",
  });
  try {
    const unit = run(root, undefined, ['--unit']);
    assert.is(unit.code, 0, unit.stdout + unit.stderr);
    assert.match(unit.stdout, 'test: 1 unit-tier files');
    assert.match(unit.stdout, 'ok   test/a/plain.test.ts');
    assert.match(unit.stdout, /\n1 passed, 0 failed, 0 skipped\n$/);
    const all = run(root);
    assert.match(all.stdout, /\n4 passed, 0 failed, 0 skipped\n$/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
