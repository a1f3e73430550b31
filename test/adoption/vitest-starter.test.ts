// A vitest project's starter: init writes vitest's run mode (never watch) with
// its JUnit reporter writing to {junit}, the properties under spec/ and a
// suite without them; with the real vitest from the registry, both commands
// write the report the guard reads, and an honest fix passes the revert check.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { skip } from '../helpers/skip.js';
import { Project, removeProjects, tempDir } from './project.js';

test.after.each(removeProjects);

const TOTAL = 'bill.total_non_negative';
const VITEST = 'npx vitest run --reporter=default --reporter=junit --outputFile.junit={junit}';

test('a vitest project: init writes `vitest run` with the JUnit reporter, and the commands run as written', () => {
  const p = new Project({
    'package.json': JSON.stringify({ name: 'bill', private: true, type: 'module', scripts: { test: 'vitest' } }),
    'src/bill.js': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
    'spec/invariants.yaml': `version: 1\ninvariants:\n  - id: ${TOTAL}\n    description: totals never go negative\n`,
    'spec/properties/bill.test.js': `import { expect, test } from 'vitest';\nimport { total } from '../../src/bill.js';\n\ntest('totals never go negative [invariant:${TOTAL}]', () => {\n  for (const xs of [[], [1, 2]]) expect(total(xs)).toBeGreaterThanOrEqual(0);\n});\n`,
    'test/bill.test.js': `import { expect, test } from 'vitest';\nimport { total } from '../src/bill.js';\n\ntest('two items', () => expect(total([1, 2])).toBeGreaterThan(0));\n`,
  });
  p.npmInstall();
  const got = p.run('npm', ['install', '--no-audit', '--no-fund', '--save-dev', 'vitest']);
  if (got.code !== 0)
    return skip(`vitest cannot be installed from the registry: ${got.stderr.trim().split('\n').pop()}`);
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.is(init.code, 0, init.stdout + init.stderr);
  const config = readFileSync(path.join(p.dir, '.patchwarden.yml'), 'utf8');
  const properties = `${VITEST} spec/properties`;
  const suite = `${VITEST} --exclude 'spec/**'`;
  assert.ok(config.includes(`\n  command: ${properties}\n`), config);
  assert.ok(config.includes(`\n  command: ${suite}\n`), config);
  // Each command as written writes its report: the properties only, and the suite without them.
  const reports = tempDir('pw-vitest-');
  const ran = (command: string, name: string) => {
    const junit = path.join(reports, name);
    p.run('sh', ['-c', command.replace('{junit}', `'${junit}'`)]);
    return readFileSync(junit, 'utf8');
  };
  const props = ran(properties, 'properties.xml');
  assert.match(props, `[invariant:${TOTAL}]`);
  assert.match(props, '<failure');
  assert.not.match(props, 'two items');
  const tests = ran(suite, 'suite.xml');
  assert.match(tests, 'classname="test/bill.test.js" name="two items"');
  assert.not.match(tests, 'invariant:');
  // An honest fix, judged by the revert check under the runtime guard.
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'patchwarden, vitest']);
  p.write({ 'src/bill.js': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n' });
  p.ok('git', ['commit', '-q', '-am', 'fix: totals never go negative']);
  const check = p.pw('revert-check', '--base', 'HEAD~1');
  assert.is(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, `${TOTAL}  fixed`);
});

test.run();
