// The stamps of a run's tree under revert.jobs: 2 (tree-stamps.ts), on a real
// checkout: a file already unlike its blob when stamped (written while the
// tree was being made), a file changed after, restored or not, and a file
// added where .gitignore does not ignore it are each named; a file a
// line-ending rule changed on checkout, an ignored file and a linked entry
// are not. Under the fence, where no other side can write, the checks are of
// type and mode only: what the kernel's write rights leave open (chmod) is
// named, before the stamps or after.
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listTree } from '../../src/git/objects.js';
import { openRepo } from '../../src/git/repo.js';
import { changedTree, stampTree } from '../../src/properties/tree-stamps.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

test('a checkout as committed stamps clean; a write before or after the stamps, or an added file, is named', async () => {
  const repo = tempRepo();
  repo.commit({
    '.gitignore': 'build/\n',
    '.gitattributes': '*.bat text eol=crlf\n',
    'bill/bill.go': 'package bill\n',
    'bill/other.go': 'package bill\n',
    'run.bat': 'echo hi\n',
  });
  const { dir } = repo;
  rmSync(path.join(dir, 'run.bat'));
  repo.git(['checkout', '-q', '--', 'run.bat']);
  assert.is(readFileSync(path.join(dir, 'run.bat'), 'utf8'), 'echo hi\r\n');
  const entries = await listTree(await openRepo(dir), 'HEAD');
  symlinkSync('/usr', path.join(dir, 'node_modules')); // as revert.link links a folder of the main tree in

  const clean = await stampTree(dir, { entries, linked: ['node_modules'] }, {}, false);
  assert.equal(clean.unlike, [], 'run.bat, checked out with CRLF, holds its blob through its filter');
  writeFileSync(path.join(dir, 'notes.txt'), 'added\n');
  mkdirSync(path.join(dir, 'build'));
  writeFileSync(path.join(dir, 'build/out.o'), 'ignored\n');
  assert.equal(changedTree(dir, clean, {}), ['notes.txt']);

  writeFileSync(path.join(dir, 'bill/bill.go'), 'package bill\n\nfunc init() {}\n');
  const late = await stampTree(dir, { entries, linked: ['node_modules'] }, {}, false);
  assert.equal(late.unlike, ['notes.txt', 'bill/bill.go'], 'untracked, or unlike its blob, when stamped');

  const after = await stampTree(dir, { entries, linked: ['node_modules', 'notes.txt'] }, {}, false);
  writeFileSync(path.join(dir, 'bill/other.go'), 'package bill\n'); // the same bytes again
  writeFileSync(path.join(dir, 'bill/zz.go'), 'package bill\n');
  assert.equal(changedTree(dir, after, {}), ['bill/bill.go', 'bill/other.go', 'bill/zz.go']);
});

test('under the fence, a file of another mode or type is named before the stamps, and any metadata change after', async () => {
  const repo = tempRepo();
  repo.commit({ 'bill/bill.go': 'package bill\n', 'bill/other.go': 'package bill\n', 'run.sh': 'echo hi\n' });
  const { dir } = repo;
  chmodSync(path.join(dir, 'run.sh'), 0o755);
  repo.commit({ 'run.sh': 'echo hi\n' });
  const entries = await listTree(await openRepo(dir), 'HEAD');

  const clean = await stampTree(dir, { entries, linked: [] }, {}, true);
  assert.equal(clean.unlike, []);
  assert.is(clean.untracked, null, 'nothing is listed: no other side can add a file');
  writeFileSync(path.join(dir, 'notes.txt'), 'this side may write its own tree\n');
  assert.equal(changedTree(dir, clean, {}), []);

  chmodSync(path.join(dir, 'run.sh'), 0o644);
  chmodSync(path.join(dir, 'bill/bill.go'), 0o000);
  const late = await stampTree(dir, { entries, linked: [] }, {}, true);
  assert.equal(late.unlike, ['bill/bill.go', 'run.sh']);

  chmodSync(path.join(dir, 'run.sh'), 0o755);
  chmodSync(path.join(dir, 'bill/bill.go'), 0o644);
  const after = await stampTree(dir, { entries, linked: [] }, {}, true);
  assert.equal(after.unlike, []);
  chmodSync(path.join(dir, 'bill/other.go'), 0o000);
  chmodSync(path.join(dir, 'bill/other.go'), 0o644);
  assert.equal(changedTree(dir, after, {}), ['bill/other.go'], 'made unreadable and back: its change time moved');
});

test.run();
