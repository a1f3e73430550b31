// What a merge authored, read from real repositories: the quick path (merge
// base inside the walk, no merge-tree) and git's merge-tree agree, and a
// merge that undoes one side is never passed by the quick path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rangeChanges } from '../../src/git/changes.js';
import { Graph, netChange, sameChanges, type Walked } from '../../src/git/merges.js';
import { openRepo } from '../../src/git/repo.js';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

/** root, then a fork point X inside the walk; main changes spec, feature changes src. */
function forked(): { repo: TempRepo; root: string; x: string; main: string; feature: string } {
  const repo = tempRepo();
  const root = repo.commit({ 'src/a.py': 'a\n', 'spec/s.py': 's\n', 'README.md': 'r\n' }, 'root');
  const x = repo.commit({ 'README.md': 'r2\n' }, 'x');
  const main = repo.commit({ 'spec/s.py': 's2\n' }, 'oracle');
  repo.git(['checkout', '-q', '-b', 'feature', x]);
  const feature = repo.commit({ 'src/a.py': 'a2\n' }, 'code');
  repo.git(['checkout', '-q', 'main']);
  return { repo, root, x, main, feature };
}

const authored = async (repo: TempRepo, merge: string, not: string) => {
  const r = await rangeChanges(await openRepo(repo.dir), [merge, '--not', not]);
  return (r.changes.get(merge) ?? []).map((c) => `${c.status} ${c.path}`).sort();
};

test('an honest merge with its base inside the walk authors nothing; the same merge judged alone (merge-tree) agrees', async () => {
  const { repo, root } = forked();
  repo.git(['merge', '-q', '--no-edit', 'feature']);
  const merge = repo.head();
  assert.equal(await authored(repo, merge, root), []);
  assert.equal(await authored(repo, merge, `${merge}^@`), []);
});

test('a theirs-merge is found by both paths: the spec change it undid', async () => {
  const { repo, root, main, feature } = forked();
  const tree = repo.git(['rev-parse', `${feature}^{tree}`]).stdout.trim();
  const merge = repo.git(['commit-tree', tree, '-p', main, '-p', feature, '-m', 'theirs']).stdout.trim();
  assert.equal(await authored(repo, merge, root), ['M spec/s.py']);
  assert.equal(await authored(repo, merge, `${merge}^@`), ['M spec/s.py']);
});

test('a merge resolving a conflict authors the paths it resolved, not what git merged cleanly', async () => {
  const { repo, root, x } = forked();
  repo.git(['checkout', '-q', '-b', 'other', x]);
  const other = repo.commit({ 'spec/s.py': 's3\n', 'src/b.py': 'b\n' }, 'other oracle, and code git merges cleanly');
  repo.git(['checkout', '-q', 'main']);
  repo.git(['merge', '-q', '--no-edit', other], { allowFail: true });
  repo.write('spec/s.py', 's2 and s3\n').git(['add', '-A']);
  repo.git(['commit', '-q', '--no-verify', '--no-edit']);
  assert.equal(await authored(repo, repo.head(), root), ['M spec/s.py']);
  assert.equal(await authored(repo, repo.head(), `${repo.head()}^@`), ['M spec/s.py']);
});

test('a resolution that takes one side whole still authors the conflicted path', async () => {
  const { repo, x } = forked();
  repo.git(['checkout', '-q', '-b', 'other', x]);
  const other = repo.commit({ 'spec/s.py': 's3\n' }, 'other oracle');
  repo.git(['checkout', '-q', 'main']);
  repo.git(['merge', '-q', '--no-edit', other], { allowFail: true });
  repo.git(['checkout', '--theirs', '--', 'spec/s.py']);
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '--no-verify', '--no-edit']);
  assert.equal(await authored(repo, repo.head(), `${repo.head()}^@`), ['M spec/s.py']);
});

test('onCommit hands over each commit once with its final changes: a merge with what it authored, not its first-parent diff', async () => {
  const { repo, root, main, feature } = forked();
  const tree = repo.git(['rev-parse', `${feature}^{tree}`]).stdout.trim();
  const merge = repo.git(['commit-tree', tree, '-p', main, '-p', feature, '-m', 'theirs']).stdout.trim();
  const handed: [string, string[]][] = [];
  const r = await rangeChanges(await openRepo(repo.dir), [merge, '--not', root], {
    onCommit: (id, changes) => handed.push([id, changes.map((c) => `${c.status} ${c.path}`).sort()]),
  });
  assert.equal(handed.map(([id]) => id).sort(), [...r.commits].sort());
  for (const [id, paths] of handed)
    assert.equal(
      paths,
      r.changes
        .get(id)!
        .map((c) => `${c.status} ${c.path}`)
        .sort(),
      id,
    );
  assert.equal(new Map(handed).get(merge), ['M spec/s.py']);
});

test('Graph: the sole base inside the walk, none when a side leaves the walk first or bases cross', () => {
  const c = (id: string, ...parents: string[]): Walked => ({ id, tree: `t${id}`, parents });
  // x -> (a1 -> a2), (b1): base x.
  let g = new Graph([c('x', 'out'), c('a1', 'x'), c('a2', 'a1'), c('b1', 'x')]);
  assert.is(g.soleBase('a2', 'b1'), 'x');
  assert.is(g.soleBase('a2', 'a1'), 'a1');
  // b1 forks from outside the walk: its base with a2 cannot be proved here.
  g = new Graph([c('x', 'out'), c('a1', 'x'), c('b1', 'out2')]);
  assert.is(g.soleBase('a1', 'b1'), null);
  // Criss-cross: p and q each merge both of x1 and x2.
  g = new Graph([c('r', 'out'), c('x1', 'r'), c('x2', 'r'), c('p', 'x1', 'x2'), c('q', 'x2', 'x1')]);
  assert.is(g.soleBase('p', 'q'), null);
  // A parent listed after its child (dates running backwards): the graph still orders them.
  g = new Graph([c('a1', 'x'), c('b1', 'x'), c('x', 'out')]);
  assert.is(g.soleBase('a1', 'b1'), 'x');
  assert.equal(g.firstParentChain('x', 'a1'), ['a1']);
});

test('sameChanges: the same records in any order; another path, blob or mode is not the same', () => {
  const ch = (path: string, from: string, to: string, mode = '100644') => ({
    status: 'M',
    path,
    oldMode: '100644',
    oldOid: from,
    newMode: mode,
    newOid: to,
  });
  assert.ok(sameChanges([ch('a', '1', '2'), ch('b', '1', '3')], [ch('b', '1', '3'), ch('a', '1', '2')]));
  assert.ok(sameChanges([], []));
  assert.not.ok(sameChanges(undefined, []), 'no diff known');
  assert.not.ok(sameChanges([ch('a', '1', '2')], [ch('a', '1', '2'), ch('b', '1', '3')]), 'side one undone');
  assert.not.ok(sameChanges([ch('a', '1', '2'), ch('c', '1', '9')], [ch('a', '1', '2')]), 'a path of its own');
  assert.not.ok(sameChanges([ch('a', '0', '2')], [ch('a', '1', '2')]), 'the first parent had changed the path too');
  assert.not.ok(sameChanges([ch('a', '1', '2', '120000')], [ch('a', '1', '2')]), 'made a link');
});

test('both sides making the same change: the quick path declines and merge-tree finds nothing authored', async () => {
  const { repo, root, x } = forked();
  repo.git(['checkout', '-q', '-b', 'same', x]);
  repo.commit({ 'spec/s.py': 's2\n', 'tests/t.py': 't\n' }, 'the same oracle change, and a test');
  repo.git(['checkout', '-q', 'main']);
  repo.git(['merge', '-q', '--no-edit', 'same']);
  const merge = repo.head();
  assert.equal(await authored(repo, merge, root), []);
  // The same tree with the side's test left out is a merge that undid it.
  repo.git(['rm', '-q', 'tests/t.py']);
  const tree = repo.git(['write-tree']).stdout.trim();
  const evil = repo
    .git(['commit-tree', tree, '-p', `${merge}^1`, '-p', `${merge}^2`, '-m', 'drops the test'])
    .stdout.trim();
  assert.equal(await authored(repo, evil, root), ['D tests/t.py']);
});

test('a topic branch of several commits, merged: the side is put together from the walk, and undoing the other side is still found', async () => {
  const { repo, root, x, main } = forked();
  repo.git(['checkout', '-q', '-b', 'topic', x]);
  repo.commit({ 'src/a.py': 'a2\n', 'src/tmp.py': 't\n' }, 'code and a scratch file');
  repo.git(['rm', '-q', 'src/tmp.py']);
  repo.commit({ 'src/a.py': 'a3\n' }, 'more code, scratch gone');
  repo.commit({ 'src/a.py': 'a2\n', 'README.md': 'r3\n' }, 'back to a2, docs');
  repo.git(['checkout', '-q', 'main']);
  repo.git(['merge', '-q', '--no-edit', 'topic']);
  const merge = repo.head();
  assert.equal(await authored(repo, merge, root), []);
  assert.equal(await authored(repo, merge, `${merge}^@`), []);
  const theirs = repo
    .git([
      'commit-tree',
      repo.git(['rev-parse', 'topic^{tree}']).stdout.trim(),
      '-p',
      main,
      '-p',
      'topic',
      '-m',
      'theirs',
    ])
    .stdout.trim();
  assert.equal(await authored(repo, theirs, root), ['M spec/s.py']);
});

test('a side whose first parents pass below the base is asked of git, and agrees with merge-tree', async () => {
  const { repo, root, x } = forked();
  repo.git(['checkout', '-q', '-b', 'other', root]);
  repo.commit({ 'docs/o.md': 'o\n' }, 'other');
  repo.git(['checkout', '-q', '-b', 'topic', x]);
  repo.commit({ 'src/a.py': 'a2\n' }, 'code');
  // The topic merges into other's line, so its first parents run other -> root, below the base x.
  repo.git(['checkout', '-q', 'other']);
  repo.git(['merge', '-q', '--no-edit', 'topic']);
  repo.git(['checkout', '-q', 'main']);
  repo.git(['merge', '-q', '--no-edit', 'other']);
  const merge = repo.head();
  assert.equal(await authored(repo, merge, root), []);
  assert.equal(await authored(repo, merge, `${merge}^@`), []);
});

test('netChange: each path from its first old side to its last new side; a path put back is no change', () => {
  const ch = (path: string, from: string, to: string, oldMode = '100644', newMode = '100644') => ({
    status: '?',
    path,
    oldMode,
    oldOid: from,
    newMode,
    newOid: to,
  });
  const net = netChange([
    [ch('a', '1', '2'), ch('t', '0', '5', '000000')],
    [ch('a', '2', '3'), ch('t', '5', '0', '100644', '000000')],
    [ch('a', '3', '1'), ch('b', '1', '4'), ch('l', '1', '6', '100644', '120000')],
  ]);
  assert.equal(
    net.map((c) => `${c.status} ${c.path} ${c.oldOid}->${c.newOid}`),
    ['M b 1->4', 'T l 1->6'],
  );
  assert.equal(
    netChange([[ch('n', '0', '7', '000000')]]).map((c) => c.status),
    ['A'],
  );
});

test('Graph.firstParentChain: the first-parent line from a base to a tip, or null when it does not reach it', () => {
  const c = (id: string, ...parents: string[]): Walked => ({ id, tree: `t${id}`, parents });
  const g = new Graph([c('x', 'out'), c('a1', 'x'), c('o1', 'out'), c('a2', 'o1', 'a1'), c('b1', 'a1')]);
  assert.equal(g.firstParentChain('x', 'b1'), ['a1', 'b1']);
  assert.equal(g.firstParentChain('x', 'x'), []);
  assert.is(g.firstParentChain('x', 'a2'), null, 'a2 reaches x only through its second parent');
  assert.is(g.firstParentChain('a1', 'o1'), null, 'o1 leaves the walk');
});

test.run();
