// The runtime guard's channel: whether it reached its end is read from the
// pipe, also when the event loop is held up past the wait (a loaded machine),
// where its timers run before it reads the pipe's end.
import { spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_KEPT, openChannel } from '../../src/properties/guard/channel.js';

const dirs: string[] = [];
test.after.each(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A channel with `lines` written by a writer that then closes, unless `keep`. */
function channelWith(lines: string[], keep = false) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-channel-'));
  dirs.push(dir);
  const ch = openChannel(path.join(dir, 'channel'));
  const w = openSync(ch.path, constants.O_WRONLY | constants.O_NONBLOCK);
  for (const l of lines) writeSync(w, `${l}\n`);
  if (!keep) closeSync(w);
  return { ch, close: () => keep && closeSync(w) };
}

/** Holds the event loop for `ms`, as a loaded machine or a synchronous step of the other run does. */
function hold(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

test('every writer closed: the channel ends and its lines are read', async () => {
  const { ch } = channelWith(['{"t":"start","pid":1}', '{"t":"final","pid":1}']);
  assert.equal(await ch.drain(2000), {
    lines: ['{"t":"start","pid":1}', '{"t":"final","pid":1}'],
    ended: true,
    overflowed: false,
  });
});

test('the event loop held up past the wait: the channel still ends, with every line', async () => {
  const { ch } = channelWith(['{"t":"start","pid":1}', '{"t":"final","pid":1}']);
  const drained = ch.drain(20);
  hold(300);
  assert.equal(await drained, {
    lines: ['{"t":"start","pid":1}', '{"t":"final","pid":1}'],
    ended: true,
    overflowed: false,
  });
});

test('a writer still holding the channel: it has not ended, held up or not', async () => {
  for (const held of [0, 300]) {
    const { ch, close } = channelWith(['{"t":"start","pid":1}'], true);
    const drained = ch.drain(20);
    hold(held);
    assert.equal(
      await drained,
      { lines: ['{"t":"start","pid":1}'], ended: false, overflowed: false },
      `held ${held} ms`,
    );
    close();
  }
});

test('lines are heard whole as they arrive, a line or a character split across writes included', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-channel-'));
  dirs.push(dir);
  const heard: string[] = [];
  const ch = openChannel(path.join(dir, 'channel'), (line) => heard.push(line));
  const w = openSync(ch.path, constants.O_WRONLY | constants.O_NONBLOCK);
  const text = Buffer.from('{"t":"failing","name":"a::b[é]"}\n{"t":"fin');
  const wait = () => new Promise((r) => setTimeout(r, 50));
  // Split inside the two bytes of é.
  const cut = text.indexOf(Buffer.from('é')) + 1;
  writeSync(w, text.subarray(0, cut));
  await wait();
  assert.equal(heard, [], 'nothing before a whole line');
  writeSync(w, text.subarray(cut));
  await wait();
  assert.equal(heard, ['{"t":"failing","name":"a::b[é]"}']);
  writeSync(w, 'al","pid":1}\n');
  closeSync(w);
  const drained = await ch.drain(2000);
  assert.equal(heard, ['{"t":"failing","name":"a::b[é]"}', '{"t":"final","pid":1}']);
  assert.equal(drained.lines, heard);
});

test('a line of 48 MB is read in time linear in its length, and not heard; the lines around it are', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-channel-'));
  dirs.push(dir);
  const heard: string[] = [];
  const ch = openChannel(path.join(dir, 'channel'), (line) => heard.push(line));
  const huge = `{"t":"failing","name":"${'x'.repeat(48 << 20)}"}`;
  const out = openSync(ch.path, constants.O_WRONLY);
  const writer = spawn('sh', ['-c', 'printf \'%s\\n\' "$A" && cat && printf \'%s\\n\' "$B"', 'sh'], {
    stdio: ['pipe', out, 'inherit'],
    env: { ...process.env, A: '{"t":"start","pid":1}', B: '{"t":"final","pid":1}' },
  });
  closeSync(out);
  const cpu = process.cpuUsage();
  writer.stdin!.end(`${huge}\n`);
  await new Promise((r) => writer.on('close', r));
  const drained = await ch.drain(5000);
  const { user, system } = process.cpuUsage(cpu);
  assert.ok(user + system < 5_000_000, `read in ${Math.round((user + system) / 1000)} ms of CPU`);
  assert.equal(heard, ['{"t":"start","pid":1}', '{"t":"final","pid":1}']);
  assert.is(drained.ended, true);
  assert.is(drained.lines.length, 3);
  assert.is(drained.lines[1].length, huge.length, 'the drained lines keep it whole');
});

test('past 256 MB the channel keeps nothing more, reads on to its end, and says it overflowed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-channel-'));
  dirs.push(dir);
  const ch = openChannel(path.join(dir, 'channel'), () => undefined);
  const out = openSync(ch.path, constants.O_WRONLY);
  // 600 MB: kept whole, it made a string longer than V8 allows, and the drain threw.
  const writer = spawn('sh', ['-c', 'head -c 600000000 /dev/zero | tr "\\0" x'], { stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  await new Promise((r) => writer.on('close', r));
  const drained = await ch.drain(5000);
  assert.is(drained.ended, true);
  assert.is(drained.overflowed, true);
  assert.ok(drained.lines.join('').length <= MAX_KEPT);
});

test.run();
