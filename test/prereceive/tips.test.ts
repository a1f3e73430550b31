// The oracle files at each pushed tip, read from objects inside the push
// quarantine: the fixture lock must match the fixtures it locks.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { guardedServer } from './server.js';

test.after.each(cleanup);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const lock = (files: Record<string, string>) =>
  Object.keys(files)
    .sort()
    .map((f) => `${sha(files[f])}  ${f}\n`)
    .join('');

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
  assert.match(r.stderr, 'fixtures/input/a.json  (changed: the lock has sha256 ');
  assert.is(s.ref('main'), before);
});

test('an output file among the inputs is refused', () => {
  const s = guardedServer();
  const files = { 'fixtures/input/expected.json': '{}\n' };
  s.work.commit({ ...files, 'fixtures/inputs.sha256': lock(files) }, 'golden file');
  const r = s.push('main');
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

const NOW = { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' };
const ROW =
  '  - sig: 7c1a9e2b44d0af13\n    reason: clock skew\n    owner: qa-team\n    expires: 2026-12-09T00:00:00Z\n';

test('a well-formed ledger is accepted; a row without an owner is refused', () => {
  const s = guardedServer();
  s.work.commit({ 'freeze/signatures.yaml': `version: 1\nrecords:\n${ROW}` }, 'freeze one failure');
  let r = s.work.git(['push', 'origin', 'main'], { allowFail: true, env: NOW });
  assert.is(r.code, 0, r.stderr);
  const before = s.ref('main');
  s.work.commit(
    { 'freeze/signatures.yaml': `version: 1\nrecords:\n${ROW.replace('    owner: qa-team\n', '')}` },
    'drop the owner',
  );
  r = s.work.git(['push', 'origin', 'main'], { allowFail: true, env: NOW });
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'owner');
  assert.match(r.stderr, 'freeze/signatures.yaml');
  assert.is(s.ref('main'), before);
});

test.run();
