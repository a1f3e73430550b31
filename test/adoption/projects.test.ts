// The packed tarball installed into fresh projects, as a user would: husky +
// lint-staged, plain git hooks, lefthook and the pre-commit framework. Each
// runs init and doctor, a refused commit whose advice is followed, an accepted
// commit, and pushes into a bare remote.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advice, follow } from '../helpers/advice.js';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';
import { Project, removeProjects, tempDir } from './project.js';

test.after.each(removeProjects);

/** init, doctor, the config committed and pushed on its own, then a refused mixed commit, its advice followed, and the push. */
function adopt(p: Project, checkInit: (out: string) => void = () => {}): void {
  const init = p.pw('init', '--yes', '--owner-key', p.ownerKey);
  assert.is(init.code, 0, init.stdout + init.stderr);
  checkInit(init.stdout);
  const doctor = p.pw('doctor');
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  p.ok('git', ['add', '-A']);
  p.ok('git', ['commit', '-q', '-m', 'project with patchwarden']);
  p.ok('git', ['push', '-q']);
  // init again (npm's "prepare" reruns it on every install) changes nothing.
  const hooks = hookFiles(p);
  const again = p.pw('init', '--yes');
  assert.is(again.code, 0, again.stdout + again.stderr);
  assert.is(p.ok('git', ['status', '--porcelain']).stdout, '');
  assert.equal(hookFiles(p), hooks);
  // commit-msg runs: the owner's spec commit crediting a coding agent is refused (owners.trailers: strict).
  p.write({ 'spec/test_price.py': 'def test_price():\n    assert 2\n' });
  p.ok('git', ['add', '-A']);
  const credited = p.run('git', ['commit', '-q', '-m', 'spec\n\nAssisted-by: Claude Code']);
  assert.is(credited.code, 1, credited.stdout + credited.stderr);
  assert.match(credited.stdout + credited.stderr, /refused \[owners-agent\].* credits the coding agent Claude Code/);
  p.ok('git', ['checkout', '-q', 'HEAD', '--', 'spec/test_price.py']);
  p.write({
    'src/app.py': 'def price(n):\n    return n * 2\n',
    'spec/test_price.py': 'def test_price():\n    assert True\n',
  });
  p.ok('git', ['add', '-A']);
  const refused = p.run('git', ['commit', '-q', '-m', 'mixed']);
  assert.is(refused.code, 1, refused.stdout + refused.stderr);
  const said = refused.stdout + refused.stderr;
  assert.match(said, /refused \[mix\]/);
  // The owner follows it, with git set to sign every commit, as many owners have it.
  follow(
    p.dir,
    { ...p.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'commit.gpgSign', GIT_CONFIG_VALUE_0: 'true' },
    advice(said),
  );
  p.ok('git', ['push', '-q']);
  const remote = p.ok('git', ['log', '--format=%s', 'main'], p.origin).stdout.trim().split('\n');
  assert.equal(remote, ['production change', 'oracle change', 'project with patchwarden', 'the project so far']);
  // A production-only commit is accepted, and its push too.
  p.write({ 'src/app.py': 'def price(n):\n    return n * 3\n' });
  p.ok('git', ['commit', '-q', '-am', 'production only\n\nAssisted-by: Claude Code']);
  p.ok('git', ['push', '-q']);
}

/** The hook files git runs here (plain hooks, husky's, or the manager's), by name. */
function hookFiles(p: Project): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of ['.git/hooks', '.husky'])
    for (const name of ['pre-commit', 'pre-merge-commit', 'commit-msg', 'pre-push']) {
      const file = path.join(p.dir, dir, name);
      if (existsSync(file)) files[`${dir}/${name}`] = readFileSync(file, 'utf8');
    }
  assert.ok(files['.git/hooks/commit-msg'] || files['.husky/commit-msg'], 'a commit-msg hook is installed');
  return files;
}

const PYTHON = {
  'pytest.ini': '[pytest]\n',
  'src/app.py': 'def price(n):\n    return n\n',
  'spec/test_price.py': 'def test_price():\n    pass\n',
};

test("husky + lint-staged: the guard runs before the project's own hook commands", () => {
  const p = new Project({
    ...PYTHON,
    'package.json': JSON.stringify(
      { name: 'shop', private: true, scripts: { prepare: 'husky' }, 'lint-staged': { '*.py': 'echo linted' } },
      null,
      2,
    ),
    '.husky/pre-commit': 'npx lint-staged\n',
  });
  p.npmInstall('husky@9', 'lint-staged@16');
  p.ok('npx', ['--no-install', 'husky']);
  adopt(p, (out) => assert.match(out, /\.husky\/pre-commit: added the guard before your commands/));
  assert.match(
    readFileSync(path.join(p.dir, '.husky/pre-commit'), 'utf8'),
    /^# patchwarden-managed[\s\S]*\nnpx lint-staged\n$/,
  );
});

test('plain git hooks: the shims, and a "prepare" line that gives every clone the hooks', () => {
  const p = new Project({ ...PYTHON, 'package.json': JSON.stringify({ name: 'shop', private: true }, null, 2) });
  p.npmInstall();
  adopt(p, (out) => assert.match(out, /"prepare": "patchwarden init --yes --if-repo"/));
  assert.match(
    readFileSync(path.join(p.dir, '.patchwarden.yml'), 'utf8'),
    /python3 -m pytest/,
    'a pytest project, not a node one',
  );
  // A fresh clone: npm ci runs "prepare", and the hooks are there.
  const clone = path.join(path.dirname(p.dir), 'clone');
  p.ok('git', ['clone', '-q', p.origin, clone], path.dirname(p.dir));
  assert.not.ok(existsSync(path.join(clone, '.git/hooks/pre-commit')));
  p.ok('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone);
  assert.match(readFileSync(path.join(clone, '.git/hooks/pre-commit'), 'utf8'), /patchwarden-managed/);
  const doctor = p.run(path.join(clone, 'node_modules/.bin/patchwarden'), ['doctor'], clone);
  assert.is(doctor.code, 0, doctor.stdout);
});

test("lefthook: init adds the commands to lefthook.yml and runs lefthook install; pre-push gets git's lines", () => {
  const p = new Project({
    ...PYTHON,
    'package.json': JSON.stringify({ name: 'shop', private: true }, null, 2),
    'lefthook.yml': "# the team's hooks\npre-commit:\n  commands:\n    hello:\n      run: echo hello from lefthook\n",
  });
  p.npmInstall('lefthook@2.2.1');
  adopt(p, (out) => {
    assert.match(out, /lefthook\.yml: added patchwarden's hooks/);
    assert.match(out, /lefthook: hooks installed/);
  });
  const config = readFileSync(path.join(p.dir, 'lefthook.yml'), 'utf8');
  assert.match(config, /^# the team's hooks\n/);
  assert.match(config, /hello from lefthook/);
  assert.match(p.pw('doctor').stdout, /pre-push: runs through lefthook \(lefthook\.yml\)/);
  // A push of two refs is judged whole: the second ref mixes across its commits.
  p.ok('git', ['checkout', '-q', '-b', 'topic']);
  p.write({ 'spec/test_price.py': 'def test_price():\n    assert 1\n' });
  p.ok('git', ['commit', '-q', '-am', 'oracle']);
  p.write({ 'src/app.py': 'def price(n):\n    return n * 4\n' });
  p.ok('git', ['commit', '-q', '-am', 'production']);
  const push = p.run('git', ['push', 'origin', 'main', 'topic']);
  assert.is(push.code, 1, push.stderr);
  assert.match(push.stdout + push.stderr, /refused \[mix-range\]/, push.stdout + push.stderr);
});

testUnless(missingUnless('pre-commit', ['--version'], ciInstalls('pre-commit is not installed')))(
  'pre-commit framework (repo: local): init wires it, a first push into an empty remote and later pushes are judged',
  () => {
    const home = tempDir('pw-pre-commit-home-');
    const p = new Project(
      { ...PYTHON, '.pre-commit-config.yaml': "# the team's hooks\nrepos: []\n" },
      { PRE_COMMIT_HOME: home },
    );
    p.npmInstall();
    adopt(p, (out) => {
      assert.match(out, /\.pre-commit-config\.yaml: added patchwarden's hooks/);
      assert.match(out, /pre-commit: hooks installed/);
    });
    const config = readFileSync(path.join(p.dir, '.pre-commit-config.yaml'), 'utf8');
    assert.match(config, /repo: local/);
    assert.match(p.pw('doctor').stdout, /pre-push: runs through pre-commit/);
    // A first push into an empty remote comes without from/to refs from the framework.
    const empty = path.join(path.dirname(p.dir), 'empty.git');
    p.ok('git', ['init', '-q', '--bare', empty]);
    const first = p.ok('git', ['push', empty, 'main']);
    assert.not.match(
      first.stdout + first.stderr,
      /judging refs\/heads\/main only/,
      'one ref pushed: nothing left unjudged to speak of',
    );
    assert.match(first.stdout + first.stderr, /the first push of this history/);
    p.ok('git', ['checkout', '-q', '-b', 'side']);
    p.write({ 'README.md': 'shop\n' });
    p.ok('git', ['add', 'README.md']);
    p.ok('git', ['commit', '-q', '-m', 'docs']);
    p.ok('git', ['checkout', '-q', 'main']);
    const several = p.ok('git', ['push', 'origin', 'main', 'side']);
    assert.match(
      several.stdout + several.stderr,
      /judging refs\/heads\/side only: the pre-commit framework hands its hooks the first pushed ref/,
    );
    // A pushed range that mixes across commits is refused through the framework's variables.
    p.write({ 'spec/test_price.py': 'def test_price():\n    assert 1\n' });
    p.ok('git', ['commit', '-q', '-am', 'oracle']);
    p.write({ 'src/app.py': 'def price(n):\n    return n * 4\n' });
    p.ok('git', ['commit', '-q', '-am', 'production']);
    const push = p.run('git', ['push']);
    assert.is(push.code, 1, push.stdout + push.stderr);
    assert.match(push.stdout + push.stderr, /refused \[mix-range\]/);
  },
);

test.run();
