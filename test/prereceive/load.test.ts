// The server hook under concurrent load: eight pushes of 1,000 commits each,
// all at once, into one bare repository with the installed hook. Each is
// judged as it would be alone (the clean ones land, the ones with a refusal
// planted halfway up do not, naming it), and no hook's peak memory passes
// 256 MB. No clock decides anything, so a loaded server refuses no honest
// push; how long the pushes take is for `npm run bench server`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { baseImport, branchesImport, type Plant } from './pushes.js';
import { server, type Server } from './server.js';

test.after.each(cleanup);

const PUSHES = 8;
const COMMITS = 1000;
const PLANTS = new Map<number, Plant>([
  [1, 'tamper'],
  [3, 'mix'],
  [6, 'tamper'],
]);
const PEAK_MB = 256;
const GNU_TIME = '/usr/bin/time';
const timeMissing = existsSync(GNU_TIME)
  ? null
  : `${GNU_TIME} (GNU time) is not installed: the hooks' memory cannot be measured`;

/** A server guarded by the default config, and a clone holding branches b0..b7 off its main. */
function loaded(): Server {
  const s = server();
  s.work.git(['fast-import', '--quiet'], { input: baseImport() + branchesImport(PUSHES, COMMITS, PLANTS) });
  s.work.git(['checkout', '-q', 'main']);
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  s.work.git(['push', '-q', 'origin', 'main']);
  s.bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  return s;
}

/** `git push origin bN`, the hook run under GNU time when present (its peak in MB, or null). */
function push(s: Server, branch: string): Promise<{ code: number; stderr: string; peakMB: number | null }> {
  const wrapper = `${s.work.dir}.${branch}.measured`;
  const out = `${wrapper}.peak`;
  if (!timeMissing)
    writeFileSync(wrapper, `#!/bin/sh\nexec ${GNU_TIME} -f %M -o "${out}" patchwarden "$@"\n`, { mode: 0o755 });
  const env = { ...s.work.env, ...(timeMissing ? {} : { PATCHWARDEN_BIN: wrapper }) };
  return new Promise((resolve, reject) => {
    const p = spawn('git', ['push', 'origin', branch], { cwd: s.work.dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => {
      // GNU time writes its figure last (a note comes first when the command exits non-zero).
      const kb = existsSync(out) ? Number(readFileSync(out, 'utf8').trim().split('\n').pop()) : Number.NaN;
      resolve({ code: code ?? 128, stderr, peakMB: Number.isFinite(kb) ? kb / 1024 : null });
    });
  });
}

let peaks: (number | null)[] = [];

test('eight concurrent pushes of 1,000 commits each are each judged as alone', async () => {
  const s = loaded();
  const branches = Array.from({ length: PUSHES }, (_, b) => `b${b}`);
  const results = await Promise.all(branches.map((b) => push(s, b)));
  for (const [b, r] of results.entries()) {
    const plant = PLANTS.get(b);
    const tip = s.work.git(['rev-parse', `b${b}`]).stdout.trim();
    if (!plant) {
      assert.is(r.code, 0, `b${b}: ${r.stderr}`);
      assert.match(r.stderr, `patchwarden: pre-receive ok (1 ref, ${COMMITS} new commits)`);
      assert.is(s.ref(`refs/heads/b${b}`), tip);
      continue;
    }
    assert.is(r.code, 1, `b${b}: ${r.stderr}`);
    assert.match(r.stderr, `refusing the push to refs/heads/b${b}`);
    if (plant === 'tamper') {
      assert.match(r.stderr, '[tamper] [exit.process]');
      assert.match(r.stderr, `src/b${b}/exit.ts  (line 2:`);
    } else assert.match(r.stderr, `spec/b${b}.yaml`);
    // Nothing of another branch is blamed on this one.
    assert.not.match(r.stderr, new RegExp(`src/b(?!${b}/)\\d/`));
    assert.is(s.ref(`refs/heads/b${b}`), null);
  }
  peaks = results.map((r) => r.peakMB);
});

testUnless(timeMissing)(`each hook's peak memory is at most ${PEAK_MB} MB`, () => {
  assert.is(peaks.length, PUSHES);
  for (const [b, mb] of peaks.entries()) {
    assert.ok(mb !== null, `GNU time reported no figure for the hook of b${b}`);
    assert.ok(mb <= PEAK_MB, `the hook of b${b} peaked at ${mb.toFixed(0)} MB`);
  }
});

test.run();
