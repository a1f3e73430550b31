// The oracle files at each pushed tip, read from objects inside the push
// quarantine: the fixture lock must match the fixtures it locks.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { guardedServer } from './server.js';

test.after.each(cleanup);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const lock = (files: Record<string, string>) => Object.keys(files).sort().map((f) => `${sha(files[f])}  ${f}\n`).join('');

test('fixtures that match their lock are accepted', () => {
  const s = guardedServer();
  const files = { 'fixtures/input/a.json': '{"a":1}\n' };
  const c = s.work.commit({ ...files, 'fixtures/inputs.sha256': lock(files) }, 'fixture, locked');
  const r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), c);
});

test('a fixture whose bytes differ from the lock is refused at the tip', () => {
  const s = guardedServer();
  const files = { 'fixtures/input/a.json': '{"a":1}\n' };
  s.work.commit({ ...files, 'fixtures/inputs.sha256': lock(files) }, 'fixture, locked');
  assert.is(s.push('main').code, 0);
  const before = s.ref('main');
  s.work.commit({ 'fixtures/input/a.json': '{"a":2}\n' }, 'fixture edited, lock not');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '[fixtures] fixture bytes in refs/heads/main at');
  assert.match(r.stderr, 'fixtures/input/a.json  (changed)');
  assert.is(s.ref('main'), before);
});

test('an output file among the inputs is refused', () => {
  const s = guardedServer();
  const files = { 'fixtures/input/expected.json': '{}\n' };
  const r = (s.work.commit({ ...files, 'fixtures/inputs.sha256': lock(files) }, 'golden file'), s.push('main'));
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'fixtures/input/expected.json');
});

test('a malformed lock blocks the push and names the line', () => {
  const s = guardedServer();
  s.work.commit({ 'fixtures/input/a.json': '{}\n', 'fixtures/inputs.sha256': 'not a lock line\n' }, 'bad lock');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'fixtures/inputs.sha256:1: malformed lock');
});

test.run();
