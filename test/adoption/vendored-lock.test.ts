// A judge vendored under .patchwarden/vendor/ and rebuilt under the same name
// and version (npm pack of a newer checkout): yarn classic installs the one it
// cached before and writes that one's digest into yarn.lock, and an npm
// project whose file was replaced without an install keeps the old integrity.
// doctor names the mismatch, and its printed command, run as printed,
// installs the vendored file. yarn comes from the registry; a fresh cache per
// test, so no other run's cache takes part.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sh } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { packed, userEnv } from './pack.js';
import { Project, removeProjects, tempDir } from './project.js';
import { installVendored, vendored } from './walk.js';

const tools = mkdtempSync(path.join(tmpdir(), 'pw-yarn-tools-'));
writeFileSync(path.join(tools, 'package.json'), '{"name":"tools","private":true}\n');
const got = sh('npm', ['install', '--no-audit', '--no-fund', 'yarn@1'], { cwd: tools });
const missing =
  got.code === 0 ? null : `yarn@1 cannot be installed from the registry: ${got.stderr.trim().split('\n').pop()}`;

test.after.each(removeProjects);

/** The packed tarball again, with one more file: what packing a newer checkout gives under the same name. */
function rebuilt(): string {
  const dir = tempDir('pw-rebuilt-');
  const r = sh('tar', ['xzf', packed(), '-C', dir]);
  assert.is(r.code, 0, r.stderr);
  writeFileSync(path.join(dir, 'package/REBUILT'), 'a newer build\n');
  const out = path.join(tempDir('pw-rebuilt-out-'), path.basename(packed()));
  assert.is(sh('tar', ['czf', out, '-C', dir, 'package']).code, 0);
  return out;
}

function vendoredLine(p: Project): RegExpExecArray {
  const doctor = p.pw('doctor').stdout;
  const line = /^(ok|PROBLEM) +vendored: (.*)$/m.exec(doctor);
  assert.ok(line, doctor);
  return line;
}

/** doctor's printed command, run as printed in the project's folder; then doctor's line. */
function runPrinted(p: Project, detail: string): RegExpExecArray {
  const command = /`([^`]+)`$/.exec(detail)?.[1];
  assert.ok(command, detail);
  p.ok('sh', ['-c', command]);
  return vendoredLine(p);
}

testUnless(missing)(
  'yarn classic: a rebuilt tarball of the same version, named by doctor, reinstalled as printed',
  () => {
    const env = {
      PATH: `${path.join(tools, 'node_modules/.bin')}:${userEnv().PATH}`,
      YARN_CACHE_FOLDER: tempDir('pw-yarn-cache-'),
    };
    const p = new Project(
      {
        'package.json': '{"name":"mono","private":true,"workspaces":["packages/*"]}\n',
        'packages/core/package.json': '{"name":"core","version":"1.0.0"}\n',
      },
      env,
    );
    installVendored(p, ['yarn', 'add', '--dev', '-W']);
    assert.equal(vendoredLine(p).slice(1), ['ok', `${vendored().slice(2)} is the tarball yarn.lock records`]);
    // The owner vendors a newer build and runs the README's line again: yarn keeps the cached one.
    p.ok('sh', ['-c', `cp ${rebuilt()} ${vendored()} && yarn add --dev -W ${vendored()}`]);
    assert.not.ok(readdirSync(path.join(p.dir, 'node_modules/patchwarden')).includes('REBUILT'));
    const [, state, detail] = vendoredLine(p);
    assert.is(state, 'PROBLEM', detail);
    assert.match(
      detail,
      /^yarn\.lock records another tarball than \.patchwarden\/vendor\/patchwarden-[\w.-]+\.tgz \(sha1 /,
    );
    assert.match(
      detail,
      /`yarn cache clean && yarn add --dev -W \.\/\.patchwarden\/vendor\/patchwarden-[\w.-]+\.tgz`$/,
    );
    assert.is(runPrinted(p, detail)[1], 'ok');
    assert.ok(readdirSync(path.join(p.dir, 'node_modules/patchwarden')).includes('REBUILT'));
  },
);

test('npm: a vendored file replaced after the install, named by doctor, reinstalled as printed', () => {
  const p = new Project({ 'package.json': '{"name":"shop","private":true}\n' });
  installVendored(p, ['npm', 'install', '--save-dev', '--no-audit', '--no-fund']);
  assert.is(vendoredLine(p)[1], 'ok');
  p.ok('cp', [rebuilt(), vendored()]);
  const [, state, detail] = vendoredLine(p);
  assert.is(state, 'PROBLEM', detail);
  assert.match(
    detail,
    /^package-lock\.json records another tarball than .*`npm install --save-dev \.\/\.patchwarden\/vendor\/patchwarden-[\w.-]+\.tgz`$/,
  );
  assert.is(runPrinted(p, detail)[1], 'ok');
  assert.ok(readdirSync(path.join(p.dir, 'node_modules/patchwarden')).includes('REBUILT'));
});

test.run();
