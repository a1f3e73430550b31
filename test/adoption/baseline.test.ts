// Adopting on a repository with history: `init --baseline` records every
// branch and tag tip, and pre-push, pre-receive and the gate leave exactly
// the commits reachable from them out of the commit rules. An open branch
// with an old mixed commit pushes again; every new commit is still judged,
// whatever date it carries, and a baseline edited in the range counts for
// nothing (it is read from the base side). The last test takes the route a
// user takes: the packed tarball installed into a project, its hooks and
// its server hook.
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownerKey } from '../helpers/owner.js';
import { cleanup } from '../helpers/repo.js';
import { server, type Server } from '../prereceive/server.js';
import { Project, removeProjects } from './project.js';

/**
 * A server and a clone with history from before the guard: main pushed, and
 * an open branch `feature` whose commit mixes production code and the
 * registry, never pushed. Then the guard is adopted on main (with or without
 * the baseline), committed and pushed, and `feature` gets a clean new commit.
 */
function adopted(baseline: boolean): Server {
  const s = server();
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  s.work.commit(
    {
      'src/app.ts': 'export const a = 1;\n',
      'spec/invariants.yaml': 'version: 1\ninvariants: []\n',
      'README.md': 'app\n',
    },
    'the project so far',
  );
  assert.is(s.push('main').code, 0);
  s.work.git(['checkout', '-q', '-b', 'feature']);
  s.work.commit(
    { 'src/app.ts': 'export const a = 2;\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# two\n' },
    'old work: code and registry together',
  );
  s.work.git(['tag', 'v0.9']);
  s.work.git(['checkout', '-q', 'main']);
  const init = s.work.pw(['init', '--yes', ...(baseline ? ['--baseline'] : [])]);
  assert.is(init.code, 0, init.stdout + init.stderr);
  if (baseline) assert.match(init.stdout, /\.patchwarden\/baseline: written with \d+ branch and tag tips/);
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '-m', 'adopt patchwarden']);
  const r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  s.bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  s.work.git(['fetch', '-q', 'origin']);
  s.work.git(['checkout', '-q', 'feature']);
  s.work.git(['merge', '-q', '--no-edit', 'origin/main'], { env: { GIT_EDITOR: 'true' } });
  s.work.commit({ 'src/app.ts': 'export const a = 3;\n' }, 'new work, production only');
  return s;
}

test.after.each(() => {
  cleanup();
  removeProjects();
});

test("without a baseline, the open branch's old mixed commit stops its next push", () => {
  const s = adopted(false);
  const r = s.work.git(['push', 'origin', 'feature'], { allowFail: true });
  assert.is.not(r.code, 0);
  assert.match(
    r.stdout + r.stderr,
    /refused \[mix\] commit [0-9a-f]{12}: .*old work|refused \[mix\]/s,
    r.stdout + r.stderr,
  );
});

test('with the baseline, pre-push, pre-receive and the gate judge only the new commits', () => {
  const s = adopted(true);
  const baseline = s.work.git(['show', 'origin/main:.patchwarden/baseline']).stdout;
  const old = s.work.git(['rev-parse', 'feature~2']).stdout.trim();
  assert.match(baseline, new RegExp(`^${old} refs/heads/feature$`, 'm'));
  assert.match(baseline, new RegExp(`^${old} refs/tags/v0\\.9$`, 'm'));
  // Both hooks run: pre-push here (installed by init), pre-receive on the server.
  const r = s.work.git(['push', 'origin', 'feature'], { allowFail: true });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /1 commit of the adoption baseline \(\.patchwarden\/baseline\) not judged/);
  assert.match(r.stderr, /remote: patchwarden: 1 commit of the adoption baseline/);
  assert.is(s.ref('refs/heads/feature'), s.work.head());
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  const mixing = gate.out.layers.find((l: { layer: string }) => l.layer === 'mixing');
  assert.is(mixing.status, 'pass', JSON.stringify(gate.out));
  assert.match(gate.stderr, /1 commit of the adoption baseline/);
});

test('a new mixed commit is judged, whatever date it carries; a baseline edited in the range counts for nothing', () => {
  const s = adopted(true);
  const old = { GIT_AUTHOR_DATE: '2001-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2001-01-01T00:00:00Z' };
  s.work
    .write('src/app.ts', 'export const a = 4;\n')
    .write('spec/invariants.yaml', 'version: 1\ninvariants: []\n# four\n');
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '--no-verify', '-m', 'backdated mixed commit'], { env: old });
  const mixed = s.work.head();
  // The patch adds its own commit to the baseline: judged by the base side's file, it changes nothing.
  s.work.commit(
    {
      '.patchwarden/baseline': `${s.work.git(['show', 'origin/main:.patchwarden/baseline']).stdout}${mixed} refs/heads/feature\n`,
    },
    'widen the baseline',
  );
  const r = s.work.git(['push', '--no-verify', 'origin', 'feature'], { allowFail: true });
  assert.is.not(r.code, 0);
  assert.match(r.stderr, new RegExp(`\\[mix\\] commit ${mixed.slice(0, 12)} "backdated mixed commit"`), r.stderr);
  assert.is(s.ref('refs/heads/feature'), null);
  const gate = s.work.json(['gate', '--base', 'origin/main']);
  assert.is(gate.code, 1);
  const mixing = gate.out.layers.find((l: { layer: string }) => l.layer === 'mixing');
  assert.ok(
    mixing.violations.some((v: { commit?: string }) => v.commit === mixed),
    JSON.stringify(mixing),
  );
});

test('a baseline line that is not "<commit> <ref>" is refused before it lands, naming its line', () => {
  const s = adopted(true);
  s.work.git(['checkout', '-q', 'main']);
  s.work.commit({ '.patchwarden/baseline': '# tips\nnot-a-commit refs/heads/x\n' }, 'broken baseline');
  const r = s.work.git(['push', '--no-verify', 'origin', 'main'], { allowFail: true });
  assert.is.not(r.code, 0);
  assert.match(
    r.stderr,
    /\[guard-file\].*\.patchwarden\/baseline:2: "not-a-commit refs\/heads\/x" is not "<commit id> <ref>"/s,
    r.stderr,
  );
});

test('from the installed tarball: the open branch pushes again past both hooks, a new mixed commit is refused', () => {
  // A flat Python package with history on its remote, and an open branch whose old commit mixes code and its spec.
  const p = new Project({
    'pyproject.toml': '[project]\nname = "shop"\n',
    'shop/__init__.py': '',
    'shop/price.py': 'def price(n):\n    return n\n',
    'spec/test_price.py': 'def test_price():\n    assert True\n',
    'package.json': '{"name": "shop", "private": true}\n',
  });
  p.ok('git', ['checkout', '-q', '-b', 'feature']);
  p.write({
    'shop/price.py': 'def price(n):\n    return n * 2\n',
    'spec/test_price.py': 'def test_price():\n    assert 2\n',
  });
  p.ok('git', ['commit', '-q', '-am', 'old work: code and spec together']);
  const old = p.ok('git', ['rev-parse', 'HEAD']).stdout.trim();
  p.ok('git', ['checkout', '-q', 'main']);
  // Adoption on main, from the package as npm installs it.
  p.npmInstall();
  const bin = path.join(p.dir, 'node_modules/.bin/patchwarden');
  const init = p.ok(bin, ['init', '--yes', '--baseline']);
  assert.match(init.stdout, /\.patchwarden\/baseline: written with \d+ branch and tag tips/);
  p.write({ '.patchwarden.yml': 'version: 1\nzones:\n  src: [shop/**]\n  spec: [spec/**]\n' });
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'Adopt patchwarden']);
  assert.match(p.ok('git', ['show', 'HEAD:.patchwarden/baseline']).stdout, `${old} refs/heads/feature`);
  p.ok('git', ['push', '-q']);
  p.ok('sh', [
    path.join(p.dir, 'node_modules/patchwarden/scripts/install-server-hook.sh'),
    '--bin',
    bin,
    '--branch',
    'main',
    p.origin,
  ]);
  // The open branch takes main in, adds new work, and pushes: pre-push and pre-receive both pass it.
  p.ok('git', ['checkout', '-q', 'feature']);
  p.ok('git', ['merge', '-q', '--no-edit', 'main']);
  p.write({ 'shop/price.py': 'def price(n):\n    return n * 3\n' });
  p.ok('git', ['commit', '-q', '-am', 'new work, production only']);
  const push = p.run('git', ['push', '-u', 'origin', 'feature']);
  assert.is(push.code, 0, push.stdout + push.stderr);
  assert.match(
    push.stderr,
    /^patchwarden: refs\/heads\/feature: 1 commit of the adoption baseline \(\.patchwarden\/baseline\) not judged/m,
  );
  assert.match(
    push.stderr,
    /^remote: patchwarden: 1 commit of the adoption baseline[\s\S]*^remote: patchwarden: pre-receive ok/m,
  );
  // A new mixed commit is judged: refused by pre-push and, with the local hooks skipped, by the server.
  p.write({
    'shop/price.py': 'def price(n):\n    return n * 4\n',
    'spec/test_price.py': 'def test_price():\n    assert 4\n',
  });
  p.ok('git', ['commit', '-q', '--no-verify', '-am', 'new mixed work']);
  const mixed = p.ok('git', ['rev-parse', 'HEAD']).stdout.trim();
  const refused = p.run('git', ['push']);
  assert.is(refused.code, 1, refused.stdout + refused.stderr);
  assert.match(refused.stdout + refused.stderr, `refused [mix] commit ${mixed.slice(0, 12)}: this commit changes`);
  const server = p.run('git', ['push', '--no-verify']);
  assert.is(server.code, 1, server.stderr);
  assert.match(server.stderr, `[mix] commit ${mixed.slice(0, 12)} "new mixed work"`);
  assert.match(server.stderr, '(pre-receive hook declined)');
  assert.is.not(p.ok('git', ['rev-parse', 'feature'], p.origin).stdout.trim(), mixed, 'nothing landed');
});

test("an open branch the server held before adoption pushes new work, judged by main's registry and signers", () => {
  // The branch was on the server before the guard: its range base has no config, registry or signers file.
  const s = server();
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  s.work.commit({ 'src/app.mjs': 'export const double = (x) => x + 2;\n', 'README.md': 'app\n' }, 'the project so far');
  assert.is(s.push('main').code, 0);
  s.work.git(['checkout', '-q', '-b', 'feature']);
  s.work.commit({ 'src/app.mjs': 'export const double = (x) => x + 2; // old work\n' }, 'old work');
  assert.is(s.push('feature').code, 0);
  s.work.git(['checkout', '-q', 'main']);
  // Adoption on main: a property of double, pending, and an owner's key.
  const today = new Date().toISOString().slice(0, 10);
  const adoption: Record<string, string> = {
    '.patchwarden.yml':
      'version: 1\nzones:\n  spec: [spec/**]\n  src: [src/**]\nproperties:\n  command: node --test --test-reporter=junit --test-reporter-destination={junit} spec\n',
    'spec/invariants.yaml': `version: 1\ninvariants:\n  - id: app.double\n    description: double doubles\n    pending: {since: ${today}, owner: Dana Owner, reason: it adds}\n`,
    'spec/double.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { double } from '../src/app.mjs';\n\ntest('[invariant:app.double] doubles', () => {\n  for (const x of [0, 1, 5, -3]) assert.equal(double(x), x * 2);\n});\n",
  };
  for (const [file, text] of Object.entries(adoption)) s.work.write(file, text);
  const init = s.work.pw(['init', '--yes', '--baseline', '--owner-key', ownerKey()]);
  assert.is(init.code, 0, init.stdout + init.stderr);
  s.work.git(['add', '-A']);
  s.work.git(['commit', '-q', '-m', 'adopt patchwarden']);
  assert.is(s.push('main').code, 0);
  s.bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  // The branch's new commit fixes double, without taking main in: pre-push judges it on main's tree and rules.
  s.work.git(['checkout', '-q', 'feature']);
  s.work.commit({ 'src/app.mjs': 'export const double = (x) => x * 2;\n' }, 'fix: double doubles');
  const r = s.push('feature');
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /revert check describes_patch: .*app\.double/, r.stderr);
  assert.match(r.stderr, /has no \.patchwarden\.yml/, r.stderr);
});

test.run();
