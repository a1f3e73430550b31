// The server hook where node is not: the bundle built by
// scripts/build-server-bundle.sh from the installed package, unpacked on a
// "server" whose PATH has git and a shell but no node, judges real pushes.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sh } from '../helpers/repo.js';
import { Project, removeProjects, tempDir } from './project.js';

test.after.each(removeProjects);

const TOOLS = ['git', 'sh', 'basename', 'dirname', 'mktemp', 'cat', 'rm', 'ln', 'sed', 'pwd'];
const ldd = sh('sh', ['-c', 'command -v ldd']).code === 0 && process.platform === 'linux';

(ldd ? test : test.skip)(
  'the hook runs from the built bundle with no node on PATH, refusing and accepting pushes',
  () => {
    const p = new Project({
      'shop/price.py': 'def price(n):\n    return n\n',
      'spec/test_price.py': 'def test_price():\n    pass\n',
      '.patchwarden.yml': 'version: 1\nzones:\n  src: [shop/**]\n  spec: [spec/**]\n',
      'package.json': '{"name": "shop", "private": true}\n',
    });
    p.npmInstall();
    const server = tempDir('pw-server-');
    const built = p.ok('sh', [
      path.join(p.dir, 'node_modules/patchwarden/scripts/build-server-bundle.sh'),
      path.join(server, 'pw.tar.gz'),
    ]);
    assert.match(built.stdout, 'build-server-bundle: wrote');
    p.ok('tar', ['-xzf', path.join(server, 'pw.tar.gz'), '-C', server]);
    p.ok('sh', [
      path.join(p.dir, 'node_modules/patchwarden/scripts/install-server-hook.sh'),
      '--bin',
      path.join(server, 'patchwarden/bin/patchwarden'),
      '--branch',
      'main',
      p.origin,
    ]);
    // A PATH with git and the shell tools the hook uses, and no node.
    const bin = path.join(server, 'bin');
    mkdirSync(bin);
    for (const t of TOOLS) symlinkSync(sh('sh', ['-c', `command -v ${t}`]).stdout.trim(), path.join(bin, t));
    const bare = { ...p.env, PATH: bin };
    assert.is.not(sh('sh', ['-c', 'command -v node'], { env: bare }).code, 0, 'no node on this PATH');
    p.write({
      'shop/price.py': 'def price(n):\n    return n * 2\n',
      'spec/test_price.py': 'def test_price():\n    assert True\n',
    });
    p.ok('git', ['commit', '-q', '-am', 'mixed']);
    const refused = sh('git', ['push', 'origin', 'main'], { cwd: p.dir, env: bare });
    assert.is(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /remote:\s+\[mix\]/);
    p.ok('git', ['reset', '-q', '--hard', 'HEAD~1']);
    writeFileSync(path.join(p.dir, 'shop/price.py'), 'def price(n):\n    return n * 3\n');
    p.ok('git', ['commit', '-q', '-am', 'production only']);
    const accepted = sh('git', ['push', 'origin', 'main'], { cwd: p.dir, env: bare });
    assert.is(accepted.code, 0, accepted.stdout + accepted.stderr);
    assert.match(accepted.stderr, 'remote: patchwarden: pre-receive ok (1 ref, 1 new commit)');
  },
);
if (!ldd) console.log('  (no ldd on this machine: the server bundle test is skipped; the bundle is built on Linux)');

test.run();
