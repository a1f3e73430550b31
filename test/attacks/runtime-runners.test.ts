// The Node runtime guard under jest, vitest and mocha, with the static layer
// off (`tamper.mode: off`) so that only the guard stands between each
// src-only patch and a green revert check. Each patch leaves the bug in and
// ends the test process (a destructured alias, Reflect.apply, the process
// module loaded by name) or writes the report; each is refused, naming the
// call and the file and line behind it. Honest fixes, one of which writes its
// own temporary files and logs to stderr, still pass. jest runs each test
// file in a vm context, vitest in worker processes or threads (its vm pools
// are refused), mocha in the process itself. Real runners from the project's
// own node_modules, real git, a real push.
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, installPrePush, PROJECT, tempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { config, registry, project } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const BIN = (p: string) => path.join(PROJECT, 'node_modules', p);

interface Runner {
  name: string;
  bin: string;
  command: string;
  /** Files of the base beside the property and src/bill.* (runner config). */
  base: Record<string, string>;
  spec: string;
  src: string;
  /** The property's test file. */
  property: string;
  /** A module of src: `prelude` at its top, `body` the statements of total() before it returns. */
  module(prelude: string, body: string, fixed?: boolean): string;
  /** How production code reaches the process module by name. */
  byName: string;
  /** The line the guard names for body code: the file's own, or (vitest) that of the code vite transformed it into. */
  line: string;
}

const cjs = (prelude: string, body: string, fixed = false) =>
  `${prelude}
exports.total = (xs) => {
  const t = xs.reduce((a, b) => a + b, 0)${fixed ? '' : ' - 1'};
  ${body}
  return t;
};
`;
const esm = (prelude: string, body: string, fixed = false) =>
  `${prelude}
export const total = (xs) => {
  const t = xs.reduce((a, b) => a + b, 0)${fixed ? '' : ' - 1'};
  ${body}
  return t;
};
`;
const cases = 'for (const xs of [[], [1, 2], [0, 5]])';

const RUNNERS: Runner[] = [
  {
    name: 'jest',
    bin: BIN('jest/bin/jest.js'),
    // No transform, so the lines the guard names are the file's own.
    command: `JEST_JUNIT_OUTPUT_FILE={junit} node ${BIN('jest/bin/jest.js')} --ci --roots spec --reporters=default --reporters=${BIN('jest-junit')}`,
    base: { 'package.json': '{"name":"bill","private":true,"jest":{"transform":{}}}\n' },
    spec: 'spec/properties/bill.test.js',
    src: 'src/bill.js',
    property: `const { total } = require('../../src/bill');\n\ntest('total is never negative [invariant:${ID}]', () => {\n  ${cases} expect(total(xs) >= 0).toBe(true);\n});\n`,
    module: cjs,
    // jest runs CommonJS in its contexts: a dynamic import() needs its ESM mode, so the process module is required by name.
    byName: `const proc = require('node:process');`,
    line: '4',
  },
  {
    name: 'jest (ES modules)',
    bin: BIN('jest/bin/jest.js'),
    command: `NODE_OPTIONS="$NODE_OPTIONS --experimental-vm-modules" JEST_JUNIT_OUTPUT_FILE={junit} node ${BIN('jest/bin/jest.js')} --ci --roots spec --reporters=default --reporters=${BIN('jest-junit')}`,
    base: { 'package.json': '{"name":"bill","private":true,"type":"module","jest":{"transform":{}}}\n' },
    spec: 'spec/properties/bill.test.js',
    src: 'src/bill.js',
    property: `import { total } from '../../src/bill.js';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  ${cases} expect(total(xs) >= 0).toBe(true);\n});\n`,
    module: esm,
    byName: `const proc = (await import('node:process')).default;`,
    line: '4',
  },
  {
    name: 'vitest',
    bin: BIN('vitest/vitest.mjs'),
    command: `node ${BIN('vitest/vitest.mjs')} run --reporter=junit --outputFile={junit} spec/properties`,
    base: { 'package.json': '{"name":"bill","private":true,"type":"module"}\n' },
    spec: 'spec/properties/bill.test.js',
    src: 'src/bill.js',
    property: `import { test, expect } from 'vitest';\nimport { total } from '../../src/bill.js';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  ${cases} expect(total(xs) >= 0).toBe(true);\n});\n`,
    module: esm,
    byName: `const proc = (await import('node:process')).default;`,
    line: '\\d+',
  },
  {
    name: 'mocha',
    bin: BIN('mocha/bin/mocha.js'),
    command: `node ${BIN('mocha/bin/mocha.js')} --reporter xunit --reporter-option output={junit} spec/properties`,
    base: { 'package.json': '{"name":"bill","private":true,"type":"module"}\n' },
    spec: 'spec/properties/bill.test.js',
    src: 'src/bill.js',
    property: `import assert from 'node:assert/strict';\nimport { total } from '../../src/bill.js';\n\nit('total is never negative [invariant:${ID}]', () => {\n  ${cases} assert.ok(total(xs) >= 0);\n});\n`,
    module: esm,
    byName: `const proc = (await import('node:process')).default;`,
    line: '4',
  },
];

test.after.each(cleanup);

/** The property still failed on head: the rebinding was ignored, or threw where it stood. */
function withoutEffect(out: { code: number; stderr: string; out: Record<string, unknown> }): void {
  assert.is(out.code, 1, out.stderr);
  const said = `${out.out.reason}\n${out.stderr}`;
  assert.ok(
    /fail with and without the production diff/.test(said) || /Cannot assign to read only property 'it'/.test(said),
    said,
  );
}

function baseFiles(r: Runner, command = r.command): Record<string, string> {
  return {
    '.patchwarden.yml': config(command, 'tamper:\n  mode: off\n'),
    'spec/invariants.yaml': registry(ID),
    [r.spec]: r.property,
    [r.src]: r.module('', ''),
    ...r.base,
  };
}

function check(r: Runner, patch: string, command?: string) {
  const { repo, base, head } = project(baseFiles(r, command), { [r.src]: patch });
  return repo.json(['revert-check', '--base', base, '--head', head]);
}

function refused(r: Runner, patch: string, command?: string): string {
  const out = check(r, patch, command);
  assert.is(out.code, 1, out.stderr);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, /the runtime guard refused the run/);
  return out.out.reason as string;
}

for (const r of RUNNERS) {
  const it = testUnless(existsSync(r.bin) ? null : `${r.name} is not installed in node_modules (npm ci)`);
  const at = (call: string) => new RegExp(`runtime guard: process\\.${call} at src/bill\\.js:${r.line}: ${call}\\(`);
  const matches = (reason: string, re: RegExp) => assert.match(reason, re, reason);

  it(`${r.name}: process.exit through a destructured alias: refused at the call`, () => {
    matches(refused(r, r.module('const { exit } = process;', 'if (t < 0) exit(0);')), at('exit'));
  });

  it(`${r.name}: process.exit through Reflect.apply: refused at the call`, () => {
    matches(refused(r, r.module('', 'if (t < 0) Reflect.apply(process.exit, process, [0]);')), at('exit'));
  });

  it(`${r.name}: the process module loaded by name, then reallyExit: refused at the call`, () => {
    matches(refused(r, r.module(r.byName, 'if (t < 0) proc.reallyExit(0);')), at('reallyExit'));
  });

  it(`${r.name}: process.kill of its own process and process.abort: refused at the call`, () => {
    matches(refused(r, r.module('', "if (t < 0) process.kill(process.pid, 'SIGKILL');")), at('kill'));
    matches(refused(r, r.module('', 'if (t < 0) process.abort();')), at('abort'));
  });

  it(`${r.name}: a write over the report: refused at the write`, () => {
    const prelude =
      r.module === cjs ? "const { writeFileSync } = require('node:fs');" : "import { writeFileSync } from 'node:fs';";
    const reason = refused(r, r.module(prelude, "writeFileSync(process.env.PATCHWARDEN_JUNIT, '<testsuites/>');"));
    matches(reason, new RegExp(`runtime guard: fs\\.writeFileSync on the test report at src/bill\\.js:${r.line}:`));
  });

  // jest's globals are read-only in each test context: the assignment does
  // nothing in sloppy code and throws in strict code, so the property fails
  // as it should (mocha's and vitest's are refused by the guard).
  it(`${r.name}: production code rebinding the framework's globals: refused, or (jest) without effect`, () => {
    const out = check(r, r.module('globalThis.expect = globalThis.it = () => ({ toBe() {} });', ''));
    assert.is(out.code, 1, out.stderr);
    if (r.name.startsWith('jest')) withoutEffect(out);
    else matches(out.out.reason, /runtime guard: globalThis\.(expect|it) replaced at src\/bill\.js:\d+: /);
  });

  it(`${r.name}: an honest fix that writes its own temporary files and logs to stderr passes`, () => {
    const prelude =
      r.module === cjs
        ? "const fs = require('node:fs');\nconst os = require('node:os');\nconst path = require('node:path');"
        : "import fs from 'node:fs';\nimport os from 'node:os';\nimport path from 'node:path';";
    const body =
      "const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bill-'));\n  fs.writeFileSync(path.join(dir, 'last.txt'), String(t));\n  console.error('total of', xs.length, 'items');";
    const out = check(r, r.module(prelude, body, true));
    assert.is(out.code, 0, `${out.stderr}\n${out.out.reason}`);
    assert.is(out.out.status, 'describes_patch', out.out.reason);
  });

  it(`${r.name}: a plain fix passes (fails reverted, passes on head)`, () => {
    const out = check(r, r.module('', '', true));
    assert.is(out.code, 0, `${out.stderr}\n${out.out.reason}`);
    assert.is(out.out.status, 'describes_patch', out.out.reason);
  });
}

const vitest = RUNNERS.find((r) => r.name === 'vitest')!;
const withVitest = testUnless(existsSync(vitest.bin) ? null : 'vitest is not installed in node_modules (npm ci)');

for (const pool of ['vmThreads', 'vmForks'])
  withVitest(`vitest --pool=${pool}: refused for property runs, even for an honest fix, with the pool to use`, () => {
    const reason = refused(
      vitest,
      vitest.module('', '', true),
      vitest.command.replace(' run ', ` run --pool=${pool} `),
    );
    assert.match(reason, /runtime guard: vitest vm pool/);
    assert.match(reason, /pass --pool=forks \(or --pool=threads\) to vitest in properties.command/);
  });

// The pool's own end of a worker closes it for the guard; any other end does not.
withVitest('vitest: a worker killed from production code ends without the final record: refused', () => {
  const patch = vitest.module(
    "import { execSync } from 'node:child_process';",
    'if (t < 0) execSync(`kill -9 ${process.pid}`);',
  );
  const reason = refused(vitest, patch);
  assert.match(reason, /ended without the guard's final record/, reason);
});

withVitest('vitest --pool=threads: an honest fix passes', () => {
  const command = vitest.command.replace(' run ', ' run --pool=threads ');
  const { repo, base, head } = project(baseFiles(vitest, command), { [vitest.src]: vitest.module('', '', true) });
  const out = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(out.code, 0, `${out.stderr}\n${out.out.reason}`);
  assert.is(out.out.status, 'describes_patch', out.out.reason);
});

// `import { it } from 'mocha'` reads mocha's exports: production code that
// replaces one before the test file's import is evaluated would swap the
// test. The runner comes from the project's node_modules, linked into each
// run's tree (revert.link) and matching the base's lock file.
const mocha = RUNNERS.find((r) => r.name === 'mocha')!;
testUnless(existsSync(mocha.bin) ? null : 'mocha is not installed in node_modules (npm ci)')(
  "mocha: production code replacing mocha's exported it: without effect, the property fails as it should",
  () => {
    const files = {
      ...baseFiles(mocha),
      '.patchwarden.yml': config(mocha.command, 'tamper:\n  mode: off\nrevert:\n  link: [node_modules]\n'),
      '.gitignore': 'node_modules\n',
      'package-lock.json': readFileSync(path.join(PROJECT, 'package-lock.json'), 'utf8'),
      [mocha.spec]: mocha.property.replace(
        "import assert from 'node:assert/strict';\nimport { total } from '../../src/bill.js';",
        "import assert from 'node:assert/strict';\nimport { total } from '../../src/bill.js';\nimport { it } from 'mocha';",
      ),
    };
    const patch = mocha.module(
      "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('mocha').it = (name) => undefined;",
      '',
    );
    const { repo, base, head } = project(files, { [mocha.src]: patch });
    symlinkSync(path.join(PROJECT, 'node_modules'), path.join(repo.dir, 'node_modules'));
    const out = repo.json(['revert-check', '--base', base, '--head', head]);
    withoutEffect(out);
  },
);

const jest = RUNNERS[0]!;

// Worker processes: jest with several test files and two workers, mocha --parallel.
const pooled: [Runner, string, Record<string, string>][] = [
  [
    jest,
    jest.command.replace(' --ci ', ' --ci --maxWorkers=2 '),
    Object.fromEntries(
      [1, 2, 3, 4].map((n) => [
        `spec/properties/more${n}.test.js`,
        `test('more ${n}', () => expect(${n}).toBe(${n}));\n`,
      ]),
    ),
  ],
  [
    mocha,
    mocha.command.replace(' --reporter ', ' --parallel --jobs 2 --reporter '),
    { 'spec/properties/more.test.js': "it('more', () => {});\n" },
  ],
];
for (const [r, command, more] of pooled) {
  const it = testUnless(existsSync(r.bin) ? null : `${r.name} is not installed in node_modules (npm ci)`);
  const run = (patch: string) => {
    const { repo, base, head } = project({ ...baseFiles(r, command), ...more }, { [r.src]: patch });
    return repo.json(['revert-check', '--base', base, '--head', head]);
  };
  it(`${r.name} in worker processes: a destructured exit is refused, an honest fix passes`, () => {
    const out = run(r.module('const { exit } = process;', 'if (t < 0) exit(0);'));
    assert.is(out.code, 1, out.stderr);
    assert.match(out.out.reason, /runtime guard: process\.exit at src\/bill\.js:4: exit\(0\)/, out.out.reason);
    const fixed = run(r.module('', '', true));
    assert.is(fixed.code, 0, `${fixed.stderr}\n${fixed.out.reason}`);
    assert.is(fixed.out.status, 'describes_patch', fixed.out.reason);
  });
}
const withJest = testUnless(existsSync(jest.bin) ? null : 'jest is not installed in node_modules (npm ci)');

withJest("jest: the base's own setup file may still set jest's globals; an honest fix passes", () => {
  const files = {
    ...baseFiles(jest),
    'package.json':
      '{"name":"bill","private":true,"jest":{"transform":{},"setupFilesAfterEnv":["<rootDir>/spec/setup.js"]}}\n',
    'spec/setup.js':
      'const real = expect;\nglobalThis.wrapped = Object.assign((v) => real(v), real);\nglobalThis.expect = globalThis.wrapped;\n',
    [jest.spec]: jest.property.replace(
      "test('",
      "test('the setup file set expect', () => expect(globalThis.expect === globalThis.wrapped).toBe(true));\ntest('",
    ),
  };
  const { repo, base, head } = project(files, { [jest.src]: jest.module('', '', true) });
  const out = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(out.code, 0, `${out.stderr}\n${out.out.reason}`);
  assert.is(out.out.status, 'describes_patch', out.out.reason);
});
withJest(
  'git push: a destructured exit under jest is refused by the pre-push hook, and the remote keeps its tip',
  () => {
    const remote = tempRepo({ bare: true });
    const repo = tempRepo();
    repo.git(['remote', 'add', 'origin', remote.dir]);
    installPrePush(repo);
    repo.commit({ 'pytest.ini': '[pytest]\n', ...baseFiles(jest) }, 'start');
    assert.is(repo.git(['push', '-q', 'origin', 'main'], { allowFail: true }).code, 0);
    const tip = remote.git(['rev-parse', 'main']).stdout.trim();
    repo.commit({ [jest.src]: jest.module('const { exit } = process;', 'if (t < 0) exit(0);') }, 'fix totals');
    const push = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
    assert.is.not(push.code, 0, push.stdout + push.stderr);
    assert.match(
      push.stdout + push.stderr,
      /runtime guard: process\.exit at src\/bill\.js:4/,
      push.stdout + push.stderr,
    );
    assert.is(remote.git(['rev-parse', 'main']).stdout.trim(), tip);
  },
);

test.run();
