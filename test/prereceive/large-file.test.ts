// A 24 MiB single-line minified file pushed into a bare repository with the
// installed pre-receive hook: scanned whole (a hit at its very end is found),
// a clean one accepted, and the hook's peak memory bounded. How fast is for
// `npm run bench server`; the ceiling here only catches a scan gone quadratic.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { guardedServer, type Server } from './server.js';

test.after.each(cleanup);

const MiB = 1 << 20;
/** Minified vendor code on one line: requires, NODE_ENV checks, regular expressions, strings; nothing any rule refuses. */
function minified(bytes: number): string {
  const parts: string[] = [];
  for (let n = 0, k = 0; n < bytes; k++) {
    parts.push(
      `var a${k}=function(b,c){if(typeof b!=="number")throw new Error("bad "+${k});return b+c*${k}},d${k}={x:"s${k}",z:require("./m${k % 50}")};` +
        `"production"!==process.env.NODE_ENV&&a${k}(1,2)>3&&(d${k}.x=/q+[a-z]*/.test("z${k}")?'a':"b");`,
    );
    n += parts[k].length;
  }
  return parts.join('');
}
const LINE = minified(24 * MiB);
/** Far beyond a linear scan of 24 MiB on a loaded machine; a quadratic one takes hours. */
const CEILING_MS = 600_000;
/**
 * The hook peaks at about 760 MB here: the file's tokens in typed arrays and
 * the references a rule can read. One object per token, or a reference for
 * every chain, took it past 1.7 GB; either would fail this.
 */
const PEAK_MB = 1024;
const GNU_TIME = '/usr/bin/time';
const timeMissing = existsSync(GNU_TIME)
  ? null
  : `${GNU_TIME} (GNU time) is not installed: the hook's memory cannot be measured`;

/** Pushes main, the hook run under GNU time when present: its peak resident memory in MB, or null. */
function push(s: Server): { code: number; stderr: string; ms: number; peakMB: number | null } {
  const wrapper = `${s.work.dir}.measured`;
  const out = `${wrapper}.peak`;
  if (!timeMissing)
    writeFileSync(wrapper, `#!/bin/sh\nexec ${GNU_TIME} -f %M -o "${out}" patchwarden "$@"\n`, { mode: 0o755 });
  const t = Date.now();
  const r = s.work.git(['push', 'origin', 'main'], {
    allowFail: true,
    env: timeMissing ? {} : { PATCHWARDEN_BIN: wrapper },
  });
  const ms = Date.now() - t;
  // GNU time writes its figure last (a note comes first when the command exits non-zero).
  const kb = existsSync(out) ? Number(readFileSync(out, 'utf8').trim().split('\n').pop()) : Number.NaN;
  return { code: r.code, stderr: r.stderr, ms, peakMB: Number.isFinite(kb) ? kb / 1024 : null };
}

let cleanPeakMB: number | null = null;

test('a clean 24 MiB single-line file in src is scanned and accepted', () => {
  const s = guardedServer();
  const tip = s.work.commit({ 'src/vendor.min.js': `${LINE}\n` }, 'vendor bundle');
  const r = push(s);
  assert.is(r.code, 0, r.stderr.slice(-2000));
  assert.match(r.stderr, 'patchwarden: pre-receive ok');
  assert.is(s.ref('main'), tip);
  assert.ok(r.ms < CEILING_MS, `the push took ${r.ms} ms`);
  cleanPeakMB = r.peakMB;
});

test('a hit planted at the very end of the 24 MiB line is found', () => {
  const s = guardedServer();
  const before = s.ref('main');
  s.work.commit({ 'src/vendor.min.js': `${LINE}process.exit(0);\n` }, 'vendor bundle');
  const r = push(s);
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '[tamper] [exit.process]');
  assert.match(r.stderr, 'src/vendor.min.js  (line 1:');
  assert.is(s.ref('main'), before);
  assert.ok(r.ms < CEILING_MS, `the push took ${r.ms} ms`);
});

testUnless(timeMissing)("the hook's peak memory on the 24 MiB line is bounded", () => {
  assert.ok(cleanPeakMB !== null, 'GNU time reported no figure for the hook');
  assert.ok(cleanPeakMB <= PEAK_MB, `the hook peaked at ${cleanPeakMB?.toFixed(0)} MB`);
});

test.run();
