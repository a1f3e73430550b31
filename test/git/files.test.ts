// The files of a working tree as git lists them (git/files.ts), on a real
// repository: tracked and untracked but not ignored, each once, odd names whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkoutFiles, isIgnored, isTracked, trackedFiles, workingFiles } from '../../src/git/files.js';
import { openRepo } from '../../src/git/repo.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

test('working files: tracked and untracked, not ignored, each once; tracked files alone', async () => {
  const t = tempRepo();
  t.commit({ '.gitignore': 'build/\n', 'src/a b.py': 'a\n', 'spec/x\ny.py': 'x\n' }, 'base');
  t.write('new.py', 'n\n').write('build/out.js', 'o\n');
  const repo = await openRepo(t.dir);
  assert.equal((await workingFiles(repo)).sort(), ['.gitignore', 'new.py', 'spec/x\ny.py', 'src/a b.py']);
  assert.equal(checkoutFiles(t.dir).sort(), ['.gitignore', 'new.py', 'spec/x\ny.py', 'src/a b.py']);
  assert.equal((await trackedFiles(repo)).sort(), ['.gitignore', 'spec/x\ny.py', 'src/a b.py']);
  assert.ok(await isIgnored(repo, 'build/'));
  assert.not.ok(await isIgnored(repo, 'src/'));
  assert.ok(await isTracked(repo, 'src'));
  assert.not.ok(await isTracked(repo, 'build'));
  // A pathspec's magic is not read: `*` is a name, not a glob.
  assert.not.ok(await isTracked(repo, '*'));
});

test.run();
