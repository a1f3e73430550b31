// The lines a change adds, read from git's whole-file patches of a real
// repository: a new file's text is its blob's (less one final line break),
// whatever its rows start with, whatever characters
// it holds and however long its rows, and a changed file's added lines are only
// the ones it gained.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { openRepo } from '../../src/git/repo.js';
import { addedLines, addedLinesOf, type Added } from '../../src/tamper/added.js';

test.after.each(cleanup);

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** What each file gives: its text and its added line numbers (null: every line), by path. */
const shown = (added: Added[]) =>
  Object.fromEntries(
    added.map((a) => [
      a.path,
      { text: a.text, lines: a.lines ? [...a.lines].sort((x, y) => x - y) : range(a.text.split('\n').length) },
    ]),
  );

test('new, once-empty and changed files: the text after the change and the lines added', async () => {
  const r = tempRepo();
  const base = r.commit({ 'src/empty.js': '', 'src/old.js': 'a\nb\n', 'src/gone.js': 'x\n' }, 'base');
  r.git(['rm', '-q', 'src/gone.js']);
  const rows = '+x\n++y\r\n\n-z\n\\ w\n@@ -1 +1 @@\ndiff --git a/b b/b\n+\n';
  const tip = r.commit(
    {
      'src/rows.js': rows,
      'src/tail.py': 'a\nb',
      'src/one.js': 'only\n',
      'src/long.js': `${'x'.repeat(3000)}\n+y\n`,
      'src/latin.js': 'const é = "ü\xff";\n',
      'src/wide.js': 'const s = "日本";\n// €\n',
      'src/empty.js': 'one\ntwo\n',
      'src/old.js': 'a\nc\nb\n',
    },
    'tip',
  );
  const want = {
    'src/empty.js': { text: 'one\ntwo', lines: [1, 2] },
    'src/old.js': { text: 'a\nc\nb', lines: [2] },
    'src/latin.js': { text: 'const é = "ü\xff";', lines: [1] },
    'src/long.js': { text: `${'x'.repeat(3000)}\n+y`, lines: [1, 2] },
    'src/one.js': { text: 'only', lines: [1] },
    'src/rows.js': { text: rows.slice(0, -1), lines: range(rows.split('\n').length - 1) },
    'src/tail.py': { text: 'a\nb', lines: [1, 2] },
    'src/wide.js': { text: 'const s = "日本";\n// €', lines: [1, 2] },
  };
  const repo = await openRepo(r.dir);
  assert.equal(shown(await addedLines(repo, base, tip)), want);
  const [each] = await addedLinesOf(repo, [`${tip} ${base}`]);
  assert.equal(shown(each), want);
});

test.run();
