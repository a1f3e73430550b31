// The runtime guards' records, judged: what refuses a run besides a finding.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failingCase, guardFailures, guardProblems, unreported } from '../../src/properties/guard/records.js';
import type { TestCase } from '../../src/junit/types.js';

const rec = (r: object) => JSON.stringify(r);

test('start and final records with no finding: the run stands', () => {
  assert.equal(guardProblems([rec({ t: 'start', pid: 7, rt: 'python' }), rec({ t: 'final', pid: 7 })], true), []);
});

test("a module.register hooks thread ends with its process: its main thread's final record stands for it, and only that", () => {
  const hooks = rec({ t: 'start', pid: '13.1', rt: 'node', hooks: true });
  assert.equal(
    guardProblems([rec({ t: 'start', pid: 13, rt: 'node' }), hooks, rec({ t: 'final', pid: 13 })], true),
    [],
  );
  assert.equal(guardProblems([rec({ t: 'start', pid: 13, rt: 'node' }), hooks], true).length, 2);
  // A worker thread that is not the hooks thread still owes its own.
  const worker = rec({ t: 'start', pid: '13.2', rt: 'node' });
  assert.equal(guardProblems([rec({ t: 'start', pid: 13, rt: 'node' }), worker, rec({ t: 'final', pid: 13 })], true), [
    "runtime guard: the node process 13.2 ended without the guard's final record, so what it did last went unseen (it left through os._exit, a signal, or a closed channel)",
  ]);
});

test("pytest's failing records are a hint: they refuse nothing, owe no report entry, and name their case", () => {
  const failing = rec({ t: 'failing', pid: 7, name: 'spec/test_a.py::test_x[[invariant:a.b]]' });
  assert.equal(
    guardProblems([rec({ t: 'start', pid: 7, rt: 'python' }), failing, rec({ t: 'final', pid: 7 })], true),
    [],
  );
  assert.equal(guardFailures([failing]), []);
  assert.is(failingCase(failing), 'spec/test_a.py::test_x[[invariant:a.b]]');
  assert.is(failingCase(rec({ t: 'failed', pid: 7, name: 'x' })), null);
  assert.is(failingCase('not a record'), null);
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

const tc = (name: string, status: TestCase['status']): TestCase => ({
  name,
  classname: 'test',
  status,
  failures: [],
  properties: [],
  systemOut: '',
  systemErr: '',
  suites: [],
});

test('failures the guard saw are no problem of the records, and must each show failed in the report', () => {
  const lines = [
    rec({ t: 'start', pid: 7, rt: 'node' }),
    rec({ t: 'failed', pid: 7, name: 'a' }),
    rec({ t: 'failed', pid: 7, name: 'a' }),
    rec({ t: 'failed', pid: 7, name: 'b' }),
    rec({ t: 'final', pid: 7 }),
  ];
  assert.equal(guardProblems(lines, true), []);
  const failures = guardFailures(lines);
  assert.equal(failures, ['a', 'a', 'b']);
  assert.equal(unreported(failures, [tc('a', 'failed'), tc('a', 'error'), tc('b', 'failed'), tc('c', 'passed')]), []);
  const changed = unreported(failures, [tc('a', 'failed'), tc('a', 'passed'), tc('b', 'skipped')]);
  assert.equal(changed.length, 2);
  assert.match(changed[0]!, /sent "a" as failed, and the report does not show it failed/);
  assert.match(changed[1]!, /sent "b" as failed/);
  assert.equal(unreported(['gone'], []).length, 1);
  // As a reporter spells it: line breaks dropped, the suites' names added.
  assert.equal(unreported(['two\nlines', 'c'], [tc('twolines', 'failed'), tc('suite > c', 'failed')]), []);
});

test("the guard's stop after a finding excuses the processes it ended; a stop alone excuses none", () => {
  const start = (pid: number) => rec({ t: 'start', pid, rt: 'node' });
  const finding = rec({ t: 'finding', pid: 8, event: 'Map Iterator.prototype.next changed', detail: 'replaced' });
  const stop = rec({ t: 'stop', pid: 8 });
  assert.equal(guardProblems([start(7), start(8), finding, stop], true), [
    'runtime guard: Map Iterator.prototype.next changed: replaced',
  ]);
  const forged = guardProblems([start(7), stop], true);
  assert.is(forged.length, 1);
  assert.match(forged[0], /the node process 7 ended without the guard's final record/);
});

test.run();
