// Replace refs and grafts: git shows a decoy in place of the real objects
// wherever it reads them. The guard always reads the real ones, and the server
// refuses refs/replace/* pushes.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { commitTree, refused, site } from './range-site.js';

test.after.each(cleanup);

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

test('server: a replace ref for the tip of main (an empty root decoy) is refused and nothing moves', () => {
  const s = site();
  const tip = s.ref('main')!;
  const decoy = commitTree(s.work, EMPTY_TREE, [], 'decoy');
  s.work.git(['replace', tip, decoy]);
  const before = s.refs();
  const r = s.push([`refs/replace/${tip}`]);
  refused(r, `[replace-ref] refs/replace/${tip} is a replace ref`, 'pre_receive.replace_refs: refuse');
  assert.is(s.refs(), before);
});

test('server: with replace refs allowed, a decoy for main does not switch the guard off', () => {
  const s = site('version: 1\npre_receive:\n  replace_refs: allow\n');
  const tip = s.ref('main')!;
  const decoy = commitTree(s.work, EMPTY_TREE, [], 'decoy');
  s.work.git(['replace', tip, decoy]);
  assert.is(s.push([`refs/replace/${tip}`]).code, 0);
  // git itself now reads the decoy on the server: no config there.
  assert.is(s.bare.git(['ls-tree', 'main']).stdout, '');
  const before = s.ref('main');
  s.work.commit(
    { 'src/bill.py': 'def total(items):\n    return 0\n', 'spec/test_bill.py': 'def test_total():\n    pass\n' },
    'mixed',
  );
  refused(s.push(['main']), '[mix]', 'src/bill.py  (src, modified)', 'spec/test_bill.py  (spec, modified)');
  assert.is(s.ref('main'), before);
});

test('a replace ref for a pushed mixed commit: the server, pre-push, check --range and gate judge the real commit', () => {
  const s = site();
  const base = s.ref('main')!;
  const mixed = s.work.commit(
    { 'src/bill.py': 'def total(items):\n    return 0\n', 'spec/test_bill.py': 'def test_total():\n    pass\n' },
    'mixed',
  );
  // The decoy: the same parent, production code only.
  s.work.write('spec/test_bill.py', 'def test_total():\n    assert total([1, 2]) == 3\n');
  s.work.git(['add', '-A']);
  const decoy = commitTree(s.work, s.work.git(['write-tree']).stdout.trim(), [base], 'code only');
  s.work.git(['replace', mixed, decoy]);
  assert.match(s.work.git(['show', '--stat', '--format=%s', mixed]).stdout, 'code only');
  refused(s.check(`${base}..${mixed}`), '[mix]', 'spec/test_bill.py');
  refused(s.gate(base), 'mixing');
  const before = s.refs();
  refused(s.localPush(['main', `refs/replace/${mixed}`]), '[mix]');
  refused(s.push(['main', `refs/replace/${mixed}`]), '[mix]', '[replace-ref]');
  refused(s.push(['main']), '[mix]', 'spec/test_bill.py  (spec, modified)');
  assert.is(s.refs(), before);
});

test('grafts: an info/grafts file that hides a mixed commit from the range changes nothing', () => {
  const s = site();
  const base = s.ref('main')!;
  s.work.commit(
    { 'src/bill.py': 'def total(items):\n    return 0\n', 'spec/test_bill.py': 'def test_total():\n    pass\n' },
    'mixed',
  );
  const tip = s.work.commit({ 'src/bill.py': 'def total(items):\n    return -1\n' }, 'code');
  // The base, as git would now read it, descends from the tip: the range is empty.
  writeFileSync(path.join(s.work.dir, '.git/info/grafts'), `${base} ${tip}\n`);
  assert.is(
    s.work.git(['-c', 'advice.graftFileDeprecated=false', 'rev-list', '--count', `${base}..${tip}`]).stdout.trim(),
    '0',
  );
  refused(s.check(`${base}..${tip}`), '[mix]', 'spec/test_bill.py');
  refused(s.gate(base), 'mixing');
  const before = s.refs();
  // The client's git now sees a rewind and wants --force; the hooks see the real history.
  refused(s.localPush(['--force', 'main']), '[mix]');
  // Without the hook, the client's grafted git sends too little; the server refuses either way.
  refused(s.push(['--force', 'main']));
  assert.is(s.refs(), before);
});

test.run();
