// A side's run started before the steps ask for it (early.ts): taken once,
// stopped when never taken, and reached by the check's interrupt and by the
// taker's own stop. The runs here are timers that end when stopped, as a
// property command is killed when its signal aborts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startEarly } from '../../src/properties/early.js';

/** A run that ends 'done' after `ms`, or 'stopped' once its signal aborts. */
function run(ms: number, log: string[]) {
  return (stop: AbortSignal) =>
    new Promise<string>((resolve) => {
      const t = setTimeout(() => resolve('done'), ms);
      stop.addEventListener('abort', () => {
        clearTimeout(t);
        log.push('stopped');
        resolve('stopped');
      });
    });
}

test('taken once: the taker gets the started run, a second take gets none', async () => {
  const log: string[] = [];
  const early = startEarly(new AbortController().signal, run(10, log));
  const taken = early.take(new AbortController().signal);
  assert.ok(taken);
  assert.is(early.take(new AbortController().signal), null);
  assert.is(await taken, 'done');
  await early.drop(); // taken: nothing to stop
  assert.equal(log, []);
});

test('never taken: drop stops it and waits for its end', async () => {
  const log: string[] = [];
  const early = startEarly(new AbortController().signal, run(60_000, log));
  await early.drop();
  assert.equal(log, ['stopped']);
  assert.is(early.take(new AbortController().signal), null);
});

test("the check's interrupt stops it, taken or not", async () => {
  for (const take of [false, true]) {
    const log: string[] = [];
    const interrupt = new AbortController();
    const early = startEarly(interrupt.signal, run(60_000, log));
    const taken = take ? early.take(new AbortController().signal) : null;
    interrupt.abort();
    if (taken) assert.is(await taken, 'stopped');
    await early.drop();
    assert.equal(log, ['stopped'], take ? 'taken' : 'not taken');
  }
});

test("the taker's stop ends it from then on, and a stop already aborted at once", async () => {
  const log: string[] = [];
  const theirs = new AbortController();
  const early = startEarly(new AbortController().signal, run(60_000, log));
  const taken = early.take(theirs.signal)!;
  theirs.abort();
  assert.is(await taken, 'stopped');
  const aborted = new AbortController();
  aborted.abort();
  const again = startEarly(new AbortController().signal, run(60_000, log));
  assert.is(await again.take(aborted.signal), 'stopped');
  assert.equal(log, ['stopped', 'stopped']);
});

test.run();
