// Merges judged by what they author: a merge that takes one side whole equals
// a parent at every path (git's combined diff shows nothing), yet it undoes
// the other side. Each case is refused at the server, pre-push, check --range
// and gate; an honest merge passes everywhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { commitTree, refused, site } from './range-site.js';

test.after.each(cleanup);

const AGENT = { GIT_AUTHOR_EMAIL: 'coder@agents.example.com', GIT_COMMITTER_EMAIL: 'coder@agents.example.com' };
const OWNERS = 'version: 1\nowners:\n  agents: ["*@agents.example.com"]\n';
const tree = (s: ReturnType<typeof site>, rev: string) => s.work.git(['rev-parse', `${rev}^{tree}`]).stdout.trim();

/** main gets an owner's oracle commit; a feature branch from before it changes production code. */
function diverged(config = OWNERS) {
  const s = site(config);
  const start = s.ref('main')!;
  const oracle = s.work.commit(
    { 'spec/test_bill.py': 'def test_total():\n    assert total([1, 2]) == 3\n    assert total([]) == 0\n' },
    'owner: a stricter property',
  );
  assert.is(s.push(['main']).code, 0);
  s.work.git(['checkout', '-q', '-b', 'feature', start]);
  const feature = s.work.commit({ 'src/bill.py': 'def total(items):\n    return sum(items) or 1\n' }, 'feature: code');
  return { s, start, oracle, feature };
}

test('a theirs-merge reverting the owner oracle commit on main: refused by owners (pushed alone) and by the range rule (pushed with its branch)', () => {
  const { s, oracle, feature } = diverged();
  // The adversary's merge: the feature's tree, parents main and feature.
  const merge = commitTree(s.work, tree(s, feature), [oracle, feature], 'Merge branch feature', AGENT);
  assert.is(
    s.work.git(['diff-tree', '--no-commit-id', '-c', '--name-only', merge]).stdout,
    '',
    'the combined diff sees nothing',
  );
  s.work.git(['checkout', '-q', '-B', 'main', merge]);
  refused(s.check(`${oracle}..${merge}`), '[mix-range]', 'spec/test_bill.py');
  refused(s.gate(oracle), 'mixing');
  let before = s.refs();
  refused(s.localPush(['main']), 'spec/test_bill.py');
  refused(s.push(['main']), '[mix-range]', 'spec/test_bill.py  (spec, modified)', 'src/bill.py  (src, modified)');
  assert.is(s.refs(), before);
  // The feature branch alone is clean and lands; the merge then brings only itself.
  assert.is(s.push([`${feature}:refs/heads/feature`]).code, 0);
  before = s.refs();
  const r = s.push(['main']);
  refused(r, '[owners-agent]', '"Merge branch feature"', 'spec/test_bill.py  (spec)');
  assert.is(s.refs(), before);
});

test('an octopus merge that takes one side whole is judged against its first parent', () => {
  const { s, oracle, feature } = diverged('version: 1\n');
  s.work.git(['checkout', '-q', '-b', 'other', feature]);
  const other = s.work.commit({ 'README.md': 'bill, again\n' }, 'docs');
  const merge = commitTree(s.work, tree(s, other), [oracle, feature, other], 'Merge feature and other');
  s.work.git(['checkout', '-q', '-B', 'main', merge]);
  refused(s.check(`${oracle}..${merge}`), '[mix]', 'spec/test_bill.py', 'src/bill.py');
  refused(s.gate(oracle), 'mixing');
  const before = s.refs();
  refused(s.localPush(['main']), '[mix]');
  refused(s.push(['main']), '[mix]', '"Merge feature and other"', 'spec/test_bill.py  (spec, modified)');
  assert.is(s.refs(), before);
});

test('a merge that drops .patchwarden.yml, taking a branch from before the config whole, is refused', () => {
  // The server's history starts without the config; it is added later.
  const s = site();
  const base = s.ref('main')!;
  s.work.git(['rm', '-q', '.patchwarden.yml']);
  const old = commitTree(s.work, s.work.git(['write-tree']).stdout.trim(), [], 'an old root without the config');
  s.work.git(['checkout', '-q', '-b', 'old', old]);
  const feature = s.work.commit({ 'src/bill.py': 'def total(items):\n    return 1\n' }, 'code on the old root');
  const merge = commitTree(s.work, tree(s, feature), [base, feature], 'Merge old');
  assert.is(
    s.work.git(['diff-tree', '--no-commit-id', '-c', '--name-only', merge]).stdout,
    '',
    'the combined diff sees nothing',
  );
  s.work.git(['checkout', '-q', '-B', 'main', merge]);
  refused(s.check(`${base}..${merge}`), '.patchwarden.yml');
  refused(s.gate(base), 'mixing');
  const before = s.refs();
  refused(s.localPush(['main']), '.patchwarden.yml');
  refused(s.push(['main']), '.patchwarden.yml  (guard, deleted)');
  assert.is(s.refs(), before);
  assert.ok(s.bare.git(['cat-file', '-e', 'main:.patchwarden.yml'], { allowFail: true }).code === 0);
});

test('an honest merge of main into a feature branch authors nothing and passes everywhere', () => {
  const { s, oracle, feature } = diverged();
  assert.is(s.push([`${feature}:refs/heads/feature`]).code, 0);
  s.work.git(['checkout', '-q', 'feature']);
  s.work.git(['-c', 'core.hooksPath=/dev/null', 'merge', '-q', '--no-edit', 'main'], { env: AGENT });
  const merge = s.work.head();
  assert.is(s.check(`${feature}..${merge}`).code, 0);
  assert.is(s.check(`${oracle}..${merge}`).code, 0);
  const g = s.gate(oracle);
  assert.is(g.code, 0, g.stdout + g.stderr);
  let r = s.localPush(['feature']);
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('feature'), merge);
  // Fast-forwarding main to it brings the merge and nothing of its own.
  r = s.push(['feature:main']);
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), merge);
});

test('an evil merge that edits code and the property while resolving is refused as one mixed commit', () => {
  const { s, oracle, feature } = diverged('version: 1\n');
  s.work.git(['checkout', '-q', '-B', 'main', oracle]);
  s.work.git(['-c', 'core.hooksPath=/dev/null', 'merge', '-q', '--no-commit', feature]);
  s.work
    .write('spec/test_bill.py', 'def test_total():\n    pass\n')
    .write('src/bill.py', 'def total(items):\n    return 0\n');
  s.work.git(['add', '-A']);
  s.work.git(['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--no-edit']);
  const before = s.refs();
  refused(s.push(['main']), '[mix]', 'spec/test_bill.py  (spec, modified)', 'src/bill.py  (src, modified)');
  assert.is(s.refs(), before);
});

test.run();
