// A push of one commit of 5,008 files with odd names (spaces, newlines, bytes
// that are not UTF-8, leading dashes, unicode) into a bare repository with
// the installed hook: accepted when clean, refused when a tamper hit or a
// spec change hides among them, the path named readably. How long it takes
// is for `npm run bench server`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { baseImport, oddFilesImport, PLANTED, type Plant } from './pushes.js';
import { server, type Server } from './server.js';

test.after.each(cleanup);

const FILES = 5008;

/** A server guarded by the default config, and a clone whose branch `odd` adds the files. */
function site(plant?: Plant): Server {
  const s = server();
  s.work.git(['fast-import', '--quiet'], { input: baseImport() + oddFilesImport(FILES, 'odd', plant) });
  s.work.git(['checkout', '-q', 'main']);
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  s.work.git(['push', '-q', 'origin', 'main']);
  s.bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  return s;
}

test('a clean push of 5,008 files with odd names is accepted', () => {
  const s = site();
  const r = s.push('odd');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'patchwarden: pre-receive ok (1 ref, 1 new commit)');
  assert.is(s.ref('refs/heads/odd'), s.work.git(['rev-parse', 'odd']).stdout.trim());
  assert.is(
    s.bare.git(['ls-tree', '-r', '--name-only', '-z', 'odd']).stdout.split('\0').filter(Boolean).length,
    FILES + 92,
  );
});

test('a tamper hit among them is refused, its path shown readably', () => {
  const s = site('tamper');
  const r = s.push('odd');
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, '[tamper] [exit.process]');
  assert.match(r.stderr, `${JSON.stringify(PLANTED)}  (line 2:`);
  assert.is(s.ref('refs/heads/odd'), null);
});

test('a spec change among them is refused by the mixing rule, its path shown readably', () => {
  const s = site('mix');
  const r = s.push('odd');
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, JSON.stringify('spec/odd\nname.yaml'));
  assert.is(s.ref('refs/heads/odd'), null);
});

test.run();
