// The projects the runtime attacks run in: a property of one invariant under
// node --test, vitest or jest, and src/bill.js with the bug left in, into
// which each attack writes its patch. The static layer is off
// (`tamper.mode: off`), so only the guard stands between the patch and a
// green revert check.
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { PROJECT } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { config, jsProperty, NODE_TEST, project, registry } from '../properties/projects.js';

export const ID = 'bill.total_non_negative';
export const BIN = (p: string) => path.join(PROJECT, 'node_modules', p);
export const JEST = BIN('jest/bin/jest.js');
export const VITEST = BIN('vitest/vitest.mjs');
export const cases = 'for (const xs of [[], [1, 2], [0, 5]])';

export interface Runner {
  command: string;
  property: string;
  package: string;
}

export const nodeTest: Runner = {
  command: NODE_TEST,
  property: jsProperty(ID, 'bill.js'),
  package: '{"name":"bill","private":true,"type":"module"}\n',
};
export const vitest: Runner = {
  command: `node ${VITEST} run --reporter=junit --outputFile={junit} spec/properties`,
  property: `import { test, expect } from 'vitest';\nimport { total } from '../../src/bill.js';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  ${cases} expect(total(xs) >= 0).toBe(true);\n});\n`,
  package: '{"name":"bill","private":true,"type":"module"}\n',
};
// No transform, so the lines the guard names are the file's own.
export const jest: Runner = {
  command: `JEST_JUNIT_OUTPUT_FILE={junit} node ${JEST} --ci --roots spec --reporters=default --reporters=${BIN('jest-junit')}`,
  property: `const { total } = require('../../src/bill');\n\ntest('total is never negative [invariant:${ID}]', () => {\n  ${cases} expect(total(xs) >= 0).toBe(true);\n});\n`,
  package: '{"name":"bill","private":true,"jest":{"transform":{}}}\n',
};

// Two cases of the invariant: one the bug fails, one it passes. A patch that
// drops the failing one from the run leaves a green invariant.
export const jestTwo: Runner = {
  ...jest,
  property: `${jest.property}\ntest('totals add up [invariant:${ID}]', () => {\n  expect(total([1, 2]) - total([1])).toBe(2);\n});\n`,
};

/** src/bill.js: `prelude`, then total() with the bug left in (`body` runs before it returns). */
export function buggy(r: Runner, prelude: string, body = ''): string {
  const head = r.package.includes('"jest"') ? 'exports.total = ' : 'export const total = ';
  return `${prelude}\n${head}(xs) => {\n  const t = xs.reduce((a, b) => a + b, 0) - 1;\n  ${body}\n  return t;\n};\n`;
}

export function check(r: Runner, patch: string) {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(r.command, 'tamper:\n  mode: off\n'),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.js': r.property,
      'src/bill.js': buggy(r, ''),
      'package.json': r.package,
    },
    { 'src/bill.js': patch },
  );
  return repo.json(['revert-check', '--base', base, '--head', head]);
}

/** The guard refused the run, naming what it saw. */
export function refused(r: Runner, patch: string, said: RegExp): void {
  const out = check(r, patch);
  assert.is(out.code, 1, out.stderr);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, /the runtime guard refused the run/, out.out.reason);
  assert.match(out.out.reason, said, out.out.reason);
}

/** The attack cannot be made: production code's file fails to load (`said`), so no case passes on head. */
export function failsToLoad(r: Runner, patch: string, said: RegExp): void {
  const out = check(r, patch);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, said);
}

/** The attack did nothing: the property still fails on head, as it does reverted. */
export function withoutEffect(r: Runner, patch: string): void {
  const out = check(r, patch);
  assert.is(out.code, 1, out.stderr);
  assert.is(out.out.status, 'pending_unmarked', out.out.reason);
  assert.match(out.out.reason, /fail with and without the production diff/, out.out.reason);
}

export const withVitest = testUnless(existsSync(VITEST) ? null : 'vitest is not installed in node_modules (npm ci)');
export const withJest = testUnless(existsSync(JEST) ? null : 'jest is not installed in node_modules (npm ci)');
