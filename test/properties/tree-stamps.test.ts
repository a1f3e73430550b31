// The stamps of a run's tree under revert.jobs: 2 (tree-stamps.ts), on a real
// checkout. Under the fence, where no other side can write, the checks are of
// type and mode only: what the kernel's write rights leave open (chmod) is
// named, before the stamps or after.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listTree } from '../../src/git/objects.js';
import { openRepo } from '../../src/git/repo.js';
import { changedTree, stampTree } from '../../src/properties/tree-stamps.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

test('under the fence, a file of another mode or type is named before the stamps, and any metadata change after', async () => {
  const repo = tempRepo();
  repo.commit({ 'bill/bill.go': 'package bill\n', 'bill/other.go': 'package bill\n', 'run.sh': 'echo hi\n' });
  const { dir } = repo;
  chmodSync(path.join(dir, 'run.sh'), 0o755);
  repo.commit({ 'run.sh': 'echo hi\n' });
  const entries = await listTree(await openRepo(dir), 'HEAD');

  const clean = stampTree(dir, entries);
  assert.equal(clean.unlike, []);
  writeFileSync(path.join(dir, 'notes.txt'), 'this side may write its own tree\n');
  assert.equal(changedTree(dir, clean), []);

  chmodSync(path.join(dir, 'run.sh'), 0o644);
  chmodSync(path.join(dir, 'bill/bill.go'), 0o000);
  const late = stampTree(dir, entries);
  assert.equal(late.unlike, ['bill/bill.go', 'run.sh']);

  chmodSync(path.join(dir, 'run.sh'), 0o755);
  chmodSync(path.join(dir, 'bill/bill.go'), 0o644);
  const after = stampTree(dir, entries);
  assert.equal(after.unlike, []);
  chmodSync(path.join(dir, 'bill/other.go'), 0o000);
  chmodSync(path.join(dir, 'bill/other.go'), 0o644);
  assert.equal(changedTree(dir, after), ['bill/other.go'], 'made unreadable and back: its change time moved');
});

test.run();
