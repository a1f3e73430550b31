// Reading a range as git writes it: fields split across chunks, characters
// split across chunks, and a walk long enough to arrive in many chunks, read
// in the same order and with the same paths as git's own --reverse listing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rangeChanges } from '../../src/git/changes.js';
import { openRepo } from '../../src/git/repo.js';
import { nulFields } from '../../src/git/run.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

test('nulFields: a field or a character cut between chunks is read whole', () => {
  const bytes = Buffer.from('a\0bé\0c\nd\0\0€€\0');
  for (let cut = 1; cut < bytes.length; cut++) {
    const fields: string[] = [];
    const take = nulFields((f) => fields.push(f));
    take(bytes.subarray(0, cut));
    take(bytes.subarray(cut));
    assert.equal(fields, ['a', 'bé', 'c\nd', '', '€€'], `cut at byte ${cut}`);
  }
});

test('a long range arrives in many chunks and reads as git lists it, oldest first, odd paths whole', async () => {
  const repo = tempRepo();
  const base = repo.commit({ 'README.md': 'r\n' }, 'base');
  // fast-import: 3,000 commits whose paths hold spaces, newlines and non-ASCII.
  const names = ['src/a b.py', 'spec/x\ny.py', 'src/é€.py', 'tests/t.py'];
  const lines = [];
  for (let c = 1; c <= 3000; c++) {
    const text = `${c}\n`;
    lines.push(
      'commit refs/heads/main',
      `committer T <t@example.com> ${1700000000 + c} +0000`,
      'data 1',
      'c',
      ...(c === 1 ? [`from ${base}`] : []),
    );
    const name = names[c % names.length];
    lines.push(`M 100644 inline "${name.replace(/\n/g, '\\n')}"`, `data ${Buffer.byteLength(text)}`, text);
  }
  repo.git(['fast-import', '--quiet'], { input: lines.join('\n') });
  const r = await rangeChanges(await openRepo(repo.dir), ['main', '--not', base]);
  const listed = repo.git(['log', '--reverse', '--format=%H', 'main', '--not', base]).stdout.trim().split('\n');
  assert.equal(r.commits, listed);
  assert.equal(
    r.commits.map((c) => r.changes.get(c)!.map((ch) => `${ch.status} ${ch.path}`)),
    listed.map((_, i) => [`${i < names.length ? 'A' : 'M'} ${names[(i + 1) % names.length]}`]),
  );
});

test.run();
