// The runtime guards' records, judged: what refuses a run besides a finding.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { guardProblems } from '../../src/properties/guard/records.js';

const rec = (r: object) => JSON.stringify(r);

test('start and final records with no finding: the run stands', () => {
  assert.equal(guardProblems([rec({ t: 'start', pid: 7, rt: 'python' }), rec({ t: 'final', pid: 7 })], true), []);
});

test('a finding names the event, the file and line, once however often it came', () => {
  const f = rec({
    t: 'finding',
    pid: 7,
    event: 'gc.get_objects',
    detail: 'gc.get_objects',
    file: 'src/bill.py',
    line: 4,
  });
  assert.equal(guardProblems([rec({ t: 'start', pid: 7, rt: 'python' }), f, f, rec({ t: 'final', pid: 7 })], true), [
    'runtime guard: gc.get_objects at src/bill.py:4: gc.get_objects',
  ]);
});

test('an interpreter without its final record, a stray line, a channel still open: each refuses', () => {
  const problems = guardProblems(
    [
      rec({ t: 'start', pid: 7, rt: 'python' }),
      'final 7',
      rec({ t: 'start', pid: '8.1', rt: 'node' }),
      rec({ t: 'final', pid: '8.1' }),
    ],
    false,
  );
  assert.is(problems.length, 3);
  assert.match(problems[0], /carried a line that is not one of its records \("final 7"\)/);
  assert.match(problems[1], /the python process 7 ended without the guard's final record/);
  assert.match(problems[2], /channel was still held open/);
});

test.run();
