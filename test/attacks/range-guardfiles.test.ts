// Files that change how the oracles are read, or whether the guard runs, are
// guard files: .gitattributes at any depth and the hook managers' configs.
// Output-shaped fixtures are refused by their usual names.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { sha } from '../gate/sample.js';
import { refused, site } from './range-site.js';

test.after.each(cleanup);

const CODE = { 'src/bill.py': 'def total(items):\n    return 0\n' };

for (const [file, text, label] of [
  ['.gitattributes', 'fixtures/input/x.bin text eol=crlf\n', '.gitattributes'],
  ['fixtures/input/.gitattributes', '*.bin text eol=crlf\n', 'a nested .gitattributes'],
  ['lefthook.yml', 'pre-commit:\n  commands: {}\n', 'lefthook.yml'],
  ['.lefthook.yml', 'pre-push:\n  commands: {}\n', '.lefthook.yml'],
  ['lefthook-local.yml', 'pre-commit:\n  skip: true\n', 'lefthook-local.yml'],
  ['.config/lefthook.toml', '[pre-commit]\n', '.config/lefthook.toml'],
  ['.lefthook/pre-commit/skip.sh', 'exit 0\n', 'a lefthook script'],
  ['.pre-commit-config.yaml', 'repos: []\n', '.pre-commit-config.yaml'],
] as const) {
  test(`${label} beside a src change is refused everywhere`, () => {
    const s = site();
    const base = s.ref('main')!;
    s.work.commit({ ...CODE, [file]: text }, `code and ${label}`);
    refused(s.check(`${base}..HEAD`), '[mix]', `${file}  (guard, added)`);
    refused(s.gate(base), 'mixing');
    const before = s.refs();
    refused(s.localPush(['main']), '[mix]');
    refused(s.push(['main']), '[mix]', `${file}  (guard, added)`, 'src/bill.py  (src, modified)');
    assert.is(s.refs(), before);
  });
}

test('a config commit in the range that zones src away cannot judge the mixed commit after it, nor can an uncommitted one', () => {
  const s = site();
  const base = s.ref('main')!;
  s.work.commit({ '.patchwarden.yml': 'version: 1\nzones:\n  src: [nothing/**]\n' }, 'tidy the config');
  s.work.commit({ ...CODE, 'spec/test_bill.py': 'def test_total():\n    assert True\n' }, 'code and its property');
  refused(s.check(`${base}..HEAD`), '[mix]', 'src/bill.py  (src, modified)', 'spec/test_bill.py  (spec, modified)');
  refused(s.gate(base), 'mixing');
  const before = s.refs();
  refused(s.localPush(['main']), '[mix]');
  refused(s.push(['main']), '[mix]', 'src/bill.py  (src, modified)');
  assert.is(s.refs(), before);
  // The staged form: the loosened config only in the working tree.
  s.work.git(['reset', '-q', '--hard', base]);
  s.work
    .write('.patchwarden.yml', 'version: 1\nzones:\n  src: [nothing/**]\n')
    .write('src/bill.py', 'x\n')
    .write('spec/test_bill.py', 'y\n');
  s.work.git(['add', 'src/bill.py', 'spec/test_bill.py']);
  refused(s.work.pw(['check']), '[mix]', 'src/bill.py  (src, modified)');
});

test('expected_total.json and cart.golden.txt cannot be locked as inputs, and the server refuses them', () => {
  const s = site();
  const files = {
    'fixtures/input/cart.json': '{"items": [1]}\n',
    'fixtures/input/expected_total.json': '{"total": 1}\n',
    'fixtures/input/cart.golden.txt': 'total 1\n',
  };
  for (const [f, c] of Object.entries(files)) s.work.write(f, c);
  const lockRun = s.work.pw(['fixtures', 'lock']);
  refused(
    lockRun,
    'fixtures/input/expected_total.json  (named like an output (fixtures.forbid))',
    'fixtures/input/cart.golden.txt  (named like an output (fixtures.forbid))',
  );
  // Locked by hand anyway: refused at the tip.
  s.work.commit(
    {
      ...files,
      'fixtures/inputs.sha256': Object.keys(files)
        .sort()
        .map((f) => `${sha(files[f as keyof typeof files])}  ${f}\n`)
        .join(''),
    },
    'fixtures',
  );
  const before = s.refs();
  refused(s.push(['main']), '[fixtures]', 'fixtures/input/expected_total.json', 'fixtures/input/cart.golden.txt');
  assert.is(s.refs(), before);
});

test.run();
