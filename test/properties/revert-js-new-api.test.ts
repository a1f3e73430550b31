// New API in JavaScript and TypeScript, proven: a property for a function the
// fix adds cannot load without the fix (an ES module's missing export, tsc's
// `has no exported member`). With real node --test (and tsc from the
// registry), through the real gate: an owner's signed property beside an
// agent's fix is `fixed (by build)` and accepted; a property that fails on a
// plain assertion is fixed as before; a load error naming a symbol the diff
// does not add (as its parser reads it) stays revert_broken, and so does a
// reverted run that timed out whatever it printed; the owner's split advice,
// run as printed, reaches a state the gate accepts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { site } from '../attacks/range-site.js';
import { cleanup, sh } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { commitAs, Keys } from '../prereceive/server.js';
import { AGENT, commitBy, gate, splitAsAdvised } from './evidence-site.js';

// tsc and node's types, installed once for this file from the registry.
const tools = mkdtempSync(path.join(tmpdir(), 'pw-tsc-'));
writeFileSync(path.join(tools, 'package.json'), '{"name":"tools","private":true}\n');
const got = sh('npm', ['install', '--no-audit', '--no-fund', 'typescript@5', '@types/node@20'], { cwd: tools });
const tscTest = testUnless(
  got.code === 0 ? null : `typescript cannot be installed from the registry: ${got.stderr.trim().split('\n').pop()}`,
);
const TSC = path.join(tools, 'node_modules/typescript/bin/tsc');

const NODE_TEST =
  'node --test --test-reporter=junit --test-reporter-destination={junit} --test-reporter=spec --test-reporter-destination=stderr';
const TOTAL = 'bill.total';
const DOUBLE = 'bill.double';
const config = (command: string, properties = '') => `version: 1
zones:
  spec: [spec/**]
  src: [src/**]
properties:
  command: ${JSON.stringify(command)}
  invariants: spec/invariants.yaml
${properties}owners:
  signers: .patchwarden/allowed_signers
`;
const registry = (...ids: string[]) =>
  `version: 1\ninvariants:\n${ids.map((id) => `  - id: ${id}\n    description: ${id} holds\n`).join('')}`;

const BILL = 'export function total(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n';
const DOUBLE_FN = '\nexport function double(x) {\n  return 2 * x;\n}\n';
const property = (id: string, fn: string, call: string, want: string, from = '../../src/bill.mjs') =>
  `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { ${fn} } from '${from}';\n\ntest('[invariant:${id}] ${fn}', () => assert.equal(${call}, ${want}));\n`;
const TOTAL_TEST = property(TOTAL, 'total', 'total([1, 2])', '3');
const DOUBLE_TEST = property(DOUBLE, 'double', 'double(2)', '4');

const keys = new Keys();
const owner = keys.make('owner');
const signed = { sign: owner.file, email: 'owner@example.com' };
test.after.each(cleanup);
test.after(() => {
  keys.rm();
  rmSync(tools, { recursive: true, force: true });
});

/** A project on main with `total` and its property; the work clone on a branch for the change. */
function jsSite(files: Record<string, string>, command = `${NODE_TEST} spec/properties/`) {
  return siteOn(files, command).work;
}

function siteOn(files: Record<string, string>, command = `${NODE_TEST} spec/properties/`, properties = '') {
  const s = site(config(command, properties), {
    '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
    'spec/invariants.yaml': registry(TOTAL),
    ...files,
  });
  s.work.git(['switch', '-q', '-c', 'double', 'origin/main']);
  return s;
}

test("node --test: an owner's signed property for a new export beside an agent's fix is fixed (by build); the gate accepts it", () => {
  const work = jsSite({ 'src/bill.mjs': BILL, 'spec/properties/total.test.mjs': TOTAL_TEST });
  commitAs(
    work,
    { 'spec/invariants.yaml': registry(TOTAL, DOUBLE), 'spec/properties/double.test.mjs': DOUBLE_TEST },
    'property: double doubles',
    signed,
  );
  commitBy(work, AGENT, { 'src/bill.mjs': BILL + DOUBLE_FN }, 'add double');
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
  assert.equal(revert.failing_on_revert, [DOUBLE]);
  assert.equal(revert.by_build, { [DOUBLE]: ['double (src/bill.mjs)'] });
  assert.match(g.layers.revert.summary, `${DOUBLE} (by build)`);
  assert.is(g.code, 0, JSON.stringify(g.out.layers));
});

test('node --test: a property that fails on a plain assertion without the fix is fixed as before, not by build', () => {
  const wrong = BILL + DOUBLE_FN.replace('2 * x', 'x + 1');
  const work = jsSite({ 'src/bill.mjs': wrong, 'spec/properties/total.test.mjs': TOTAL_TEST });
  commitAs(
    work,
    { 'spec/invariants.yaml': registry(TOTAL, DOUBLE), 'spec/properties/double.test.mjs': DOUBLE_TEST },
    'property: double doubles',
    signed,
  );
  commitBy(work, AGENT, { 'src/bill.mjs': BILL + DOUBLE_FN }, 'fix double');
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
  assert.equal(revert.failing_on_revert, [DOUBLE]);
  assert.is(revert.by_build, undefined);
  assert.not.match(g.layers.revert.summary, 'by build');
  assert.is(g.code, 0, JSON.stringify(g.out.layers));
});

test('node --test: a load error naming a symbol the diff does not add (re-exported through export *) stays revert_broken', () => {
  const work = jsSite({ 'src/bill.mjs': BILL, 'spec/properties/total.test.mjs': TOTAL_TEST });
  commitAs(
    work,
    { 'spec/invariants.yaml': registry(TOTAL, DOUBLE), 'spec/properties/double.test.mjs': DOUBLE_TEST },
    'property: double doubles',
    signed,
  );
  // bill.mjs gains double only through `export *`, which its parser does not follow.
  commitBy(
    work,
    AGENT,
    { 'src/double.mjs': DOUBLE_FN, 'src/bill.mjs': `${BILL}export * from './double.mjs';\n` },
    'add double',
  );
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'revert_broken', `${revert.reason}\n${g.stderr}`);
  assert.match(g.layers.revert.violations[0].message, 'double');
  assert.is.not(g.code, 0);
});

test('node --test: a reverted run that times out is never read as a build failure, whatever its output says', () => {
  // After the properties, a step that waits forever where bill has no double: the reverted run times out.
  const wait = "import('../src/bill.mjs').then((m) => { if (!m.double) setInterval(() => {}, 1000); });\n";
  const s = siteOn(
    { 'src/bill.mjs': BILL, 'spec/properties/total.test.mjs': TOTAL_TEST, 'spec/wait.mjs': wait },
    `${NODE_TEST} spec/properties/; node spec/wait.mjs`,
    '  timeout: 20s\n',
  );
  commitAs(
    s.work,
    { 'spec/invariants.yaml': registry(TOTAL, DOUBLE), 'spec/properties/double.test.mjs': DOUBLE_TEST },
    'property: double doubles',
    signed,
  );
  commitBy(s.work, AGENT, { 'src/bill.mjs': BILL + DOUBLE_FN }, 'add double');
  const g = gate(s.work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'revert_broken', `${revert.reason}\n${g.stderr}`);
  assert.match(g.layers.revert.violations[0].message, 'ran past properties.timeout');
  assert.is(revert.by_build, undefined);
  assert.is.not(g.code, 0);
});

test("node --test: the owner's split advice for a property and a new export, run as printed, reaches a state the gate accepts", () => {
  const s = siteOn({ 'src/bill.mjs': BILL, 'spec/properties/total.test.mjs': TOTAL_TEST });
  const { work } = s;
  const g = splitAsAdvised(work, owner.file, {
    'src/bill.mjs': BILL + DOUBLE_FN,
    'spec/properties/double.test.mjs': DOUBLE_TEST,
    'spec/invariants.yaml': registry(TOTAL, DOUBLE),
  });
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
  assert.equal(revert.by_build, { [DOUBLE]: ['double (src/bill.mjs)'] });
  assert.is(g.code, 0, JSON.stringify(g.out.layers));
  assert.is(s.ref('refs/heads/double'), work.head(), 'pushed as printed');
});

const TS_BILL = 'export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n';
const TS_DOUBLE = '\nexport function double(x: number): number {\n  return 2 * x;\n}\n';
const TSCONFIG = `${JSON.stringify({
  compilerOptions: {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    outDir: 'build',
    rootDir: '.',
    typeRoots: [path.join(tools, 'node_modules/@types')],
    types: ['node'],
  },
  include: ['src', 'spec'],
})}\n`;

tscTest(
  "tsc, then node --test: an owner's signed property for a new export beside an agent's fix is fixed (by build)",
  () => {
    const work = jsSite(
      {
        '.gitignore': 'build/\n',
        'package.json': '{"type":"module"}\n',
        'tsconfig.json': TSCONFIG,
        'src/bill.ts': TS_BILL,
        'spec/properties/total.test.ts': property(TOTAL, 'total', 'total([1, 2])', '3', '../../src/bill.js'),
      },
      // tsc emits what it can, so the runner still writes its report when a property does not type-check.
      `node ${TSC} -p tsconfig.json; ${NODE_TEST} build/spec/properties/`,
    );
    commitAs(
      work,
      {
        'spec/invariants.yaml': registry(TOTAL, DOUBLE),
        'spec/properties/double.test.ts': property(DOUBLE, 'double', 'double(2)', '4', '../../src/bill.js'),
      },
      'property: double doubles',
      signed,
    );
    commitBy(work, AGENT, { 'src/bill.ts': TS_BILL + TS_DOUBLE }, 'add double');
    const g = gate(work);
    const revert = g.layers.revert.details;
    assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
    assert.equal(revert.by_build, { [DOUBLE]: ['double (src/bill.ts)'] });
    assert.is(g.code, 0, JSON.stringify(g.out.layers));
  },
);

test.run();
