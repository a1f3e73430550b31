// Objects named by spec, read and written through git/objects.ts on a real
// repository: a spec git cannot find (a path, a bare object id, an odd name)
// is null in its place, never a shifted answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { objectExists, objectId, objectsOf, readBlob, writeBlob } from '../../src/git/objects.js';
import { openRepo } from '../../src/git/repo.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

test('objectsOf answers each spec in its place, null where it names nothing', async () => {
  const t = tempRepo();
  const head = t.commit({ 'a b/c.txt': 'c\n', 'spec/x.py': 'x\n' }, 'base');
  const repo = await openRepo(t.dir);
  const absent = 'f'.repeat(40);
  const found = await objectsOf(repo, [
    `${head}:a b/c.txt`,
    `${head}:nope`,
    absent,
    `${head}:spec`,
    `${head}^{tree}`,
    head,
  ]);
  const id = (spec: string) => t.git(['rev-parse', spec]).stdout.trim();
  assert.equal(found, [
    { oid: id(`${head}:a b/c.txt`), type: 'blob' },
    null,
    null,
    { oid: id(`${head}:spec`), type: 'tree' },
    { oid: id(`${head}^{tree}`), type: 'tree' },
    { oid: head, type: 'commit' },
  ]);
  assert.equal(await objectsOf(repo, []), []);
});

test('a blob written is read back byte for byte, and named by its spec', async () => {
  const t = tempRepo();
  const head = t.commit({ 'f.txt': 'one\r\n' }, 'base');
  const repo = await openRepo(t.dir);
  const bytes = Buffer.from([0, 1, 13, 10, 255]);
  const oid = await writeBlob(repo, bytes);
  assert.equal(await readBlob(repo, oid), bytes);
  assert.ok(await objectExists(repo, `${head}:f.txt`));
  assert.not.ok(await objectExists(repo, `${head}:g.txt`));
  assert.is(await objectId(repo, `${head}:f.txt`), t.git(['rev-parse', `${head}:f.txt`]).stdout.trim());
  assert.is(await objectId(repo, `${head}:g.txt`), null);
  assert.is(await objectId(repo, '--all'), null);
});

test.run();
