// The test harness in the guard zone: version 2 only, conftest.py on the
// property path only, the runners' configs at any depth, and the setup files
// a config names read without running it (or said to be unreadable).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/parse.js';
import { zoneRules } from '../../src/config/zone-rules.js';
import { classifierFrom } from '../../src/zones/classify.js';
import { setupFilesOf } from '../../src/config/harness-setup.js';

const ZONES = 'zones:\n  spec: [tests/properties/**]\n  src: ["**/*.py", "**/*.js"]\n';
const HARNESS = [
  'conftest.py',
  'tests/conftest.py',
  'tests/properties/conftest.py',
  'tests/properties/deep/conftest.py',
  'pytest.ini',
  'pkg/pytest.ini',
  'jest.config.js',
  'web/jest.config.ts',
  'vitest.config.mts',
  'vitest.workspace.ts',
  '.mocharc.yml',
  'a/.mocharc.cjs',
];
/** Shared files and conftest.py away from the property path stay where the globs put them. */
const NOT_HARNESS: [string, string | null][] = [
  ['tests/unit/conftest.py', 'src'],
  ['pkg/conftest.py', 'src'],
  ['pyproject.toml', null],
  ['package.json', null],
  ['vite.config.js', 'src'],
  ['src/bill.py', 'src'],
];

test('version 2 puts the harness in the guard zone ahead of a broad src glob; version 1 leaves it where it was', () => {
  const v2 = classifierFrom(zoneRules(parseConfig(`version: 2\n${ZONES}`, 'x')));
  const v1 = classifierFrom(zoneRules(parseConfig(`version: 1\n${ZONES}`, 'x')));
  for (const p of HARNESS) assert.is(v2(p), 'guard', p);
  for (const [p, zone] of NOT_HARNESS) assert.is(v2(p), zone, p);
  for (const p of ['conftest.py', 'jest.config.js', 'tests/conftest.py']) assert.is(v1(p), 'src', p);
  assert.is(v1('tests/properties/conftest.py'), 'spec');
  assert.is(v1('pytest.ini'), null);
});

test('a spec glob that starts with a wildcard puts every conftest.py on the property path', () => {
  const c = classifierFrom(
    zoneRules(parseConfig('version: 2\nzones:\n  spec: ["**/test_prop_*.py"]\n  src: ["**"]\n', 'x')),
  );
  assert.is(c('a/b/conftest.py'), 'guard');
  assert.is(c('a/b/helpers.py'), 'src');
});

test('version 3 is refused, naming the versions this build reads', () => {
  assert.throws(() => parseConfig('version: 3\n', 'x'), /unknown version 3; this patchwarden reads versions 1 and 2/);
});

const all = () => true;

test('setup files read from JSON, YAML, package.json and plain object literals, relative to the config', () => {
  assert.equal(
    setupFilesOf(
      'jest.config.js',
      "module.exports = { setupFiles: ['<rootDir>/jest.setup.js'], setupFilesAfterEnv: './after.js' };",
      all,
    ),
    { files: ['jest.setup.js', 'after.js'] },
  );
  assert.equal(
    setupFilesOf(
      'web/vitest.config.ts',
      'export default { test: { setupFiles: [\'./setup.ts\'], globalSetup: "./global.ts" } }',
      all,
    ),
    {
      files: ['web/setup.ts', 'web/global.ts'],
    },
  );
  assert.equal(
    setupFilesOf('.mocharc.yml', 'require:\n  - ts-node/register\n  - ./test/setup.js\nfile: ./test/hooks.js\n', all),
    {
      files: ['test/setup.js', 'test/hooks.js'],
    },
  );
  assert.equal(setupFilesOf('jest.config.json', '{"projects":[{"setupFilesAfterEach":["./p.js"]}]}', all), {
    files: ['p.js'],
  });
  assert.equal(setupFilesOf('package.json', '{"jest":{"setupFiles":["./s.js"]},"scripts":{"file":"x.js"}}', all), {
    files: ['s.js'],
  });
});

test('names that are no file of the tree, or leave it, are left out', () => {
  const only = (p: string) => p === 'setup.js';
  assert.equal(
    setupFilesOf('jest.config.js', "export default { setupFiles: ['./setup.js', './gone.js', '../up.js'] }", only),
    {
      files: ['setup.js'],
    },
  );
});

test('a value only running the config would give is said to be unreadable, naming the key', () => {
  assert.equal(setupFilesOf('vitest.config.ts', 'export default defineConfig({ test: { setupFiles: files } })', all), {
    unreadable: 'vitest.config.ts gives setupFiles a value that is not a string or a list of strings',
  });
  assert.equal(setupFilesOf('.mocharc.json', '{ "require": [', all), { unreadable: '.mocharc.json does not parse' });
});

test.run();
