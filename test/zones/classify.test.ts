// The zone classifier's shortcuts (literal paths, `dir/**`, literal prefixes)
// agree with micromatch's own regular expressions on every path git can hold.
import micromatch from 'micromatch';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifierFrom } from '../../src/zones/classify.js';
import { globMatcher, globPattern } from '../../src/zones/glob.js';
import { zoneRules } from '../../src/config/zone-rules.js';
import { defaults } from '../../src/config/schema.js';

const GLOBS = [
  'src/**',
  'lib',
  'Makefile',
  '.patchwarden.yml',
  '.github/workflows/**',
  'packages/*/src/**',
  '**/*.snap',
  'docs/{a,b}/**',
  'src/**/*.py',
  'ü/**',
  '[Ss]pec/**',
  '**',
  'a.b/c+d/**',
];
const PATHS = [
  'src',
  'src/a',
  'src/a/b.py',
  'srcx/a',
  'SRC/a',
  'Src/A.PY',
  'a/src/b',
  'src/.hidden',
  'src/a\nb',
  'src/é',
  'lib',
  'lib/x',
  'LIB',
  'Makefile',
  'makefile',
  'a/Makefile',
  '.patchwarden.yml',
  '.PATCHWARDEN.YML',
  '.github/workflows/ci.yml',
  '.GitHub/Workflows/x',
  'packages/x/src/y',
  'packages/x/y/src/z',
  'PACKAGES/X/SRC/Y',
  'x.snap',
  'a/b/c.SNAP',
  'docs/a/x',
  'docs/c/x',
  'ü/x',
  'Ü/x',
  'spec/p',
  'Spec/p',
  'SPEC/p',
  'a.b/c+d/e',
  'aXb/c+d/e',
  '\u212Aey',
  '-dash',
  'sp ace/x',
  'new\nline',
];

test('each glob as a Pattern matches exactly the paths its micromatch regex matches, in both case modes', () => {
  for (const ignoreCase of [false, true]) {
    for (const glob of GLOBS) {
      const fast = classifierFrom([{ zone: 'src', fold: ignoreCase, patterns: [globPattern(glob, { ignoreCase })] }]);
      const slow = globMatcher([glob], { ignoreCase });
      for (const p of PATHS)
        assert.is(fast(p) === 'src', slow(p), `${glob} on ${JSON.stringify(p)}, ignoreCase ${ignoreCase}`);
    }
  }
});

test('a matcher over many globs matches where one of them alone does', () => {
  const globs = GLOBS.filter((g) => g !== '**');
  for (const ignoreCase of [false, true]) {
    const all = globMatcher(globs, { ignoreCase });
    const each = globs.map((g) => globMatcher([g], { ignoreCase }));
    for (const p of PATHS)
      assert.is(
        all(p),
        each.some((m) => m(p)),
        `${JSON.stringify(p)}, ignoreCase ${ignoreCase}`,
      );
  }
  assert.is(globMatcher([])('anything'), false);
});

test("a glob's literal text, looked for before its regex, never changes an answer", () => {
  const globs = [
    ...defaults().fixtures.forbid,
    '**/out',
    'a?c/**',
    '*.md',
    'x/**/y.json',
    'src/**',
    'say"hi"*',
    'a\\*b',
    '**/ü*',
  ];
  const paths = [
    ...PATHS,
    'x/Expected.JSON',
    'a/__SNAPSHOTS__/b/c',
    '__snapshots__/a',
    'q/b.Approved.txt',
    'out.json',
    'a/OUTx.json',
    'out',
    'a/b/out',
    'abc/d',
    'README.md',
    'x/a/b/y.json',
    'x/y.json',
    'say"hi"there',
    'sayhithere',
    'a*b',
    'a\\xb',
    'Ü/ünter',
    'expected\nname',
    'dir/\u212Aelvin-expected',
    '\u0130expected',
    '.snap',
  ];
  for (const ignoreCase of [false, true])
    for (const glob of globs) {
      const re = new RegExp(micromatch.makeRe(glob, { dot: true, nocase: ignoreCase }).source, ignoreCase ? 'is' : 's');
      const matcher = globMatcher([glob], { ignoreCase });
      for (const p of paths)
        assert.is(matcher(p), re.test(p), `${glob} on ${JSON.stringify(p)}, ignoreCase ${ignoreCase}`);
    }
});

test('common globs need no regular expression; others keep their literal prefix', () => {
  assert.equal(globPattern('src/**'), { under: 'src' });
  assert.equal(globPattern('Makefile', { ignoreCase: true }), { exact: 'makefile' });
  const p = globPattern('packages/*/src/**');
  assert.ok('prefix' in p && p.prefix === 'packages/');
  const q = globPattern('**/*.snap');
  assert.ok('prefix' in q && q.prefix === '');
});

test('named files are matched whole, and the guard comes first', () => {
  const config = defaults();
  config.freeze.ledger = 'freeze/sïgnatures.yaml';
  config.zones = [{ name: 'src', globs: ['**'] }];
  for (const ignoreCase of [false, true]) {
    const classify = classifierFrom(zoneRules(config, ignoreCase));
    assert.is(classify('freeze/sïgnatures.yaml'), 'freeze');
    assert.is(classify('freeze/SÏGNATURES.yaml'), ignoreCase ? 'freeze' : 'src');
    assert.is(classify('freeze/sïgnatures.yaml.bak'), 'src');
    assert.is(classify('.patchwarden.yml'), 'guard');
    assert.is(classify('.Patchwarden.yml'), ignoreCase ? 'guard' : 'src');
  }
});

test.run();
