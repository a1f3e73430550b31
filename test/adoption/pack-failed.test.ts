// Packing swaps the checkout's package.json for a stripped one in prepack and
// puts it back in postpack (scripts/pack-manifest.mjs). npm runs no postpack
// when packing fails between the two, and the checkout was left with the
// stripped package.json (no scripts, no devDependencies) and the original
// only in package.json.packing; a second `npm pack` then ran no prepack at
// all. Now prepack leaves a watcher that puts it back once npm has ended.
// A real `npm pack` of a package with this project's prepack and postpack,
// made to fail by a destination folder that does not exist.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, sh } from '../helpers/repo.js';
import { userEnv } from './pack.js';

/** A package with this checkout's prepack and postpack, and its pack-manifest.mjs. */
function demo(): { dir: string; manifest: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-pack-failed-'));
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(PROJECT, 'scripts/pack-manifest.mjs'), path.join(dir, 'scripts/pack-manifest.mjs'));
  const { prepack, postpack } = JSON.parse(readFileSync(path.join(PROJECT, 'package.json'), 'utf8')).scripts;
  const manifest = `${JSON.stringify(
    {
      name: 'demo',
      version: '1.0.0',
      files: ['index.js'],
      scripts: { prepack, postpack, test: 'true' },
      devDependencies: { typescript: '*' },
    },
    null,
    2,
  )}\n`;
  writeFileSync(path.join(dir, 'package.json'), manifest);
  writeFileSync(path.join(dir, 'index.js'), 'export {};\n');
  return { dir, manifest };
}

/** Waits up to 10 s for `ok`. */
function eventually(ok: () => boolean): boolean {
  for (let i = 0; i < 100 && !ok(); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  return ok();
}

test('a pack that fails after prepack leaves package.json as it was, and the next pack strips it again', () => {
  const { dir, manifest } = demo();
  try {
    const failed = sh('npm', ['pack', '--pack-destination', path.join(dir, 'no/such/folder')], {
      cwd: dir,
      env: userEnv(),
    });
    assert.is.not(failed.code, 0, 'the pack failed');
    assert.match(failed.stdout + failed.stderr, /prepack/, 'after prepack ran');
    const read = () => readFileSync(path.join(dir, 'package.json'), 'utf8');
    assert.ok(
      eventually(() => read() === manifest && !existsSync(path.join(dir, 'package.json.packing'))),
      `package.json is back, byte for byte: ${read()}`,
    );
    const packed = sh('npm', ['pack', '--pack-destination', dir], { cwd: dir, env: userEnv() });
    assert.is(packed.code, 0, packed.stderr);
    const inside = sh('tar', ['-xzOf', path.join(dir, 'demo-1.0.0.tgz'), 'package/package.json']);
    assert.not.match(inside.stdout, /scripts|devDependencies/, 'the packed manifest is stripped');
    assert.is(read(), manifest, 'postpack put it back');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
