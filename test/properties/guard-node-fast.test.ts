// The guard's locks and V8's fast properties: an object whose methods the
// guard made accessors is left in dictionary mode by V8, where each read of
// one (assert.ok, Array.from, JSON.stringify in a property's loop) is a hash
// lookup the optimizer cannot inline. The guard makes each such object fast
// again (once read, as a property's loop reads it); what it locks stays
// locked. A real guarded Node process, asked
// through V8's own %HasFastProperties.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type GuardSources, openGuard } from '../../src/properties/guard/session.js';
import { propertyRunEnv } from '../../src/properties/runenv.js';
import { guardSources } from '../../scripts/guard-preload.mjs';
import { cleanEnv, sh } from '../helpers/repo.js';

const SOURCES: GuardSources = await guardSources();

// The objects the guard locks that are no prototype V8 keeps fast anyway.
const PROBE = `const assert = require('node:assert');
const strict = require('node:assert/strict');
const objects = { assert, strict, Array, Object, String, Number, JSON, Reflect, async_hooks: require('node:async_hooks'), child_process: require('node:child_process') };
// V8 makes a prototype fast again at the reads that meet it (its inline caches), as a property's loop does.
const read = (o) => o.valueOf;
for (let i = 0; i < 3; i++) for (const o of Object.values(objects)) read(o);
const slow = Object.keys(objects).filter((k) => !%HasFastProperties(objects[k]));
process.stdout.write(JSON.stringify(slow));
`;

/** The objects of PROBE in dictionary mode in a Node process, with the guard loaded or not. */
async function slowObjects(guarded: boolean): Promise<{ slow: string[]; problems: string[] }> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'pw-fast-')));
  try {
    const tree = path.join(root, 'tree');
    const tmp = path.join(root, 'tmp');
    mkdirSync(tree);
    mkdirSync(tmp);
    writeFileSync(path.join(tree, 'probe.cjs'), PROBE);
    const guard = guarded
      ? openGuard({ tree, main: null, trusted: ['probe.cjs'], writable: [tmp, tree] }, SOURCES)
      : null;
    try {
      const env = guard ? propertyRunEnv(tmp, path.join(tmp, 'gocache'), guard, {}) : {};
      const r = sh(process.execPath, ['--allow-natives-syntax', 'probe.cjs'], { cwd: tree, env: cleanEnv(env) });
      assert.is(r.code, 0, r.stderr);
      return { slow: JSON.parse(r.stdout), problems: guard ? (await guard.finish()).problems : [] };
    } finally {
      guard?.dispose();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('the objects whose methods the guard locks keep fast properties, as unguarded', async () => {
  const plain = await slowObjects(false);
  assert.equal(plain.slow, []);
  const guarded = await slowObjects(true);
  assert.equal(guarded.problems, []);
  assert.equal(guarded.slow, []);
});

test.run();
