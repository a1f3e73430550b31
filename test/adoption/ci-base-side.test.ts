// The CI gate runs the judge from the base side: action.yml's and the GitLab
// template's scripts, run as the runners run them, against a pull request
// that ships its own always-passing patchwarden.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { PROJECT, cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { packed, userEnv } from './pack.js';

const action = parse(readFileSync(path.join(PROJECT, 'action.yml'), 'utf8'));
const actionScript: string = action.runs.steps[0].run;
const gitlab = parse(readFileSync(path.join(PROJECT, 'ci/gitlab/patchwarden.gitlab-ci.yml'), 'utf8'));
const gitlabScript: string = gitlab['patchwarden-gate'].script.join('\n');

const FAKE_MARK = 'fake-patchwarden-ran';

/** A repository pushed to an origin (main), then a pull request branch checked out. */
function pullRequest(pr: Record<string, string | Buffer>, baseExtra: Record<string, string | Buffer> = {}): TempRepo {
  const origin = tempRepo({ bare: true });
  const work = tempRepo();
  const base = {
    '.patchwarden.yml': 'version: 1\nzones:\n  src: [src/**]\n  spec: [spec/**]\n',
    'src/price.js': 'export const price = (n) => n;\n',
    'spec/price.test.js': '// a property\n',
    ...baseExtra,
  };
  for (const [f, c] of Object.entries(base)) work.write(f, c);
  if (baseExtra['node_modules/.bin/patchwarden'])
    chmodSync(path.join(work.dir, 'node_modules/.bin/patchwarden'), 0o755);
  work.commit({}, 'base');
  work.git(['remote', 'add', 'origin', origin.dir]);
  work.git(['push', '-q', 'origin', 'main']);
  work.git(['checkout', '-q', '-b', 'pr']);
  for (const [f, c] of Object.entries(pr)) work.write(f, c);
  // The fake is executable: the old `[ -x node_modules/.bin/patchwarden ]` test would have picked it.
  if (pr['node_modules/.bin/patchwarden']) chmodSync(path.join(work.dir, 'node_modules/.bin/patchwarden'), 0o755);
  work.commit({}, 'pull request');
  return work;
}

/** A pull request's fake judge: it would pass everything, and leaves a mark when run. */
const fakeJudge = {
  'node_modules/.bin/patchwarden': `#!/bin/sh\ntouch ${FAKE_MARK}\necho 'patchwarden gate: pass'\nexit 0\n`,
  'package.json': JSON.stringify({ devDependencies: { patchwarden: 'file:./tools/pw' } }),
};

function runAction(work: TempRepo, env: NodeJS.ProcessEnv) {
  const temp = mkdtempSync(path.join(tmpdir(), 'pw-runner-'));
  const output = path.join(temp, 'output');
  writeFileSync(output, '');
  // GitHub runs a bash step as `bash -e -o pipefail`.
  const r = sh('bash', ['-e', '-o', 'pipefail', '-c', actionScript], {
    cwd: work.dir,
    env: userEnv({
      PW_BASE: '',
      PW_BASE_REF: 'main',
      PW_QUEUE_BASE: '',
      PW_VERSION: '',
      PW_SUITE_TIMEOUT: '1m',
      GITHUB_OUTPUT: output,
      RUNNER_TEMP: temp,
      ...env,
    }),
  });
  return { ...r, output: readFileSync(output, 'utf8') };
}

test.after.each(cleanup);

test('action: a pull request with its own fake patchwarden gets the real verdict from the given package', () => {
  const work = pullRequest({
    'src/price.js': 'export const price = (n) => n * 2;\n',
    'spec/price.test.js': '// weakened\n',
    ...fakeJudge,
  });
  const r = runAction(work, { PW_VERSION: packed() });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /::error/);
  assert.match(r.stdout, /refused \(mixing\)/);
  assert.match(r.output, /ok=false/);
  assert.not.ok(existsSync(path.join(work.dir, FAKE_MARK)), "the tree's own binary ran");
});

test("action: a clean pull request passes through the same installed judge, never the checkout's", () => {
  // The fake sits on the base side here: committed beside the code, it is a guard file and refused.
  const work = pullRequest({ 'src/price.js': 'export const price = (n) => n * 2;\n' }, fakeJudge);
  const r = runAction(work, { PW_VERSION: packed() });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.output, /ok=true/);
  assert.not.ok(existsSync(path.join(work.dir, FAKE_MARK)));
});

test('action: a base lock that installs patchwarden from a file: path is refused, not followed', () => {
  const lock = JSON.stringify({
    lockfileVersion: 3,
    packages: { 'node_modules/patchwarden': { version: '0.1.0', resolved: 'file:tools/pw' } },
  });
  const work = pullRequest({ 'src/price.js': 'export const price = (n) => n * 2;\n' }, { 'package-lock.json': lock });
  const r = runAction(work, {});
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /package-lock\.json at the base installs patchwarden from file:tools\/pw, which is neither a registry nor a packed tarball the base holds; set the action's version input/,
  );
});

const VENDORED = '.patchwarden/vendor/patchwarden-0.1.0.tgz';
/** The lock each package manager writes for a devDependency on the vendored tarball. */
const PNPM_LOCK = `lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .:\n    devDependencies:\n      patchwarden:\n        specifier: file:${VENDORED}\n        version: file:${VENDORED}\n\npackages:\n\n  patchwarden@file:${VENDORED}:\n    resolution: {tarball: file:${VENDORED}}\n    hasBin: true\n\nsnapshots:\n\n  patchwarden@file:${VENDORED}: {}\n`;
const YARN_LOCK = `# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n\npatchwarden@./${VENDORED}:\n  version "0.1.0"\n  resolved "./${VENDORED}#8f9afc396f7c4e610bfc8cf1d780b48d8af2deb9"\n`;
/** A mixed change whose own copy of the vendored tarball is not a tarball at all. */
const mixedWithJunk = {
  'src/price.js': 'export const price = (n) => n * 2;\n',
  'spec/price.test.js': '// weakened\n',
  [VENDORED]: 'not a tarball\n',
};

test("action: the tarball the base's pnpm-lock.yaml installs is the judge, read from the base commit", () => {
  const work = pullRequest(mixedWithJunk, { [VENDORED]: readFileSync(packed()), 'pnpm-lock.yaml': PNPM_LOCK });
  const r = runAction(work, {});
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /refused \(mixing\)/);
});

test("action: with no lock naming it, the one tarball in the base's .patchwarden/vendor/ is the judge", () => {
  const work = pullRequest(mixedWithJunk, { [VENDORED]: readFileSync(packed()) });
  const r = runAction(work, {});
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /refused \(mixing\)/);
});

test("gitlab: the tarball the target branch's yarn.lock installs is the judge, read from the target's commit", () => {
  const work = pullRequest(mixedWithJunk, { [VENDORED]: readFileSync(packed()), 'yarn.lock': YARN_LOCK });
  const r = sh('bash', ['-e', '-o', 'pipefail', '-c', gitlabScript], {
    cwd: work.dir,
    env: userEnv({
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      PATCHWARDEN_VERSION: '',
      PATCHWARDEN_SUITE_TIMEOUT: '1m',
      TMPDIR: mkdtempSync(path.join(tmpdir(), 'pw-runner-')),
    }),
  });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /refused \(mixing\)/);
});

test("gitlab: the template ignores the merge request's fake patchwarden and refuses the mixed change", () => {
  const work = pullRequest({
    'src/price.js': 'export const price = (n) => n * 2;\n',
    'spec/price.test.js': '// weakened\n',
    ...fakeJudge,
  });
  const temp = mkdtempSync(path.join(tmpdir(), 'pw-runner-'));
  // GitLab runs a job's script lines in one bash with errexit and pipefail.
  const r = sh('bash', ['-e', '-o', 'pipefail', '-c', gitlabScript], {
    cwd: work.dir,
    env: userEnv({
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      PATCHWARDEN_VERSION: packed(),
      PATCHWARDEN_SUITE_TIMEOUT: '1m',
      TMPDIR: temp,
    }),
  });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /refused \(mixing\)/);
  assert.not.ok(existsSync(path.join(work.dir, FAKE_MARK)));
});

test('action: a merge queue group is judged against the commit the queue builds on', () => {
  const work = pullRequest({
    'src/price.js': 'export const price = (n) => n * 2;\n',
    'spec/price.test.js': '// weakened\n',
  });
  const queueBase = work.git(['rev-parse', 'main']).stdout.trim();
  const r = runAction(work, { PW_BASE_REF: '', PW_QUEUE_BASE: queueBase, PW_VERSION: packed() });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`patchwarden gate: ${queueBase.slice(0, 12)}\\.\\.`));
  assert.match(r.stdout, /refused \(mixing\)/);
});

test('action: a git source for the judge is refused, naming the routes that work', () => {
  const work = pullRequest({ 'src/price.js': 'export const price = (n) => n * 2;\n' });
  const r = runAction(work, { PW_VERSION: 'git+https://github.com/OWNER/patchwarden.git#v0.1.0' });
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    '::error title=patchwarden::the version input git+https://github.com/OWNER/patchwarden.git#v0.1.0 is a git source',
  );
  assert.match(r.stdout, "give an npm version (0.1.0), a packed tarball's path or https URL (npm pack)");
});

test("gitlab: a fork's merge request is judged against the target project's branch, not the fork's", () => {
  const work = pullRequest({
    'src/price.js': 'export const price = (n) => n * 2;\n',
    'spec/price.test.js': '// weakened\n',
  });
  const target = work.git(['remote', 'get-url', 'origin']).stdout.trim();
  // The fork's author moved the fork's main onto the merge request itself.
  const fork = tempRepo({ bare: true });
  work.git(['remote', 'set-url', 'origin', fork.dir]);
  work.git(['push', '-q', '-f', 'origin', 'pr:main', 'pr:pr']);
  const run = (env: NodeJS.ProcessEnv) =>
    sh('bash', ['-e', '-o', 'pipefail', '-c', gitlabScript], {
      cwd: work.dir,
      env: userEnv({
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        PATCHWARDEN_VERSION: packed(),
        PATCHWARDEN_SUITE_TIMEOUT: '1m',
        TMPDIR: mkdtempSync(path.join(tmpdir(), 'pw-runner-')),
        ...env,
      }),
    });
  const judged = run({ CI_MERGE_REQUEST_PROJECT_URL: target });
  assert.is(judged.code, 1, judged.stdout + judged.stderr);
  assert.match(judged.stdout, /refused \(mixing\)/);
  // Against the fork's own main there would be nothing to judge: the hole the target project's URL closes.
  const fooled = run({});
  assert.is(fooled.code, 0, fooled.stdout + fooled.stderr);
  assert.match(fooled.stdout, /\(0 commits\)/);
});

test('gate in a shallow clone says to fetch the full history', () => {
  const work = pullRequest({ 'src/price.js': 'export const price = (n) => n * 2;\n' });
  const shallow = tempRepo();
  shallow.git([
    'fetch',
    '-q',
    '--depth',
    '1',
    `file://${work.dir}`,
    'pr:refs/heads/pr',
    'main:refs/remotes/origin/main',
  ]);
  shallow.git(['checkout', '-q', 'pr']);
  const r = shallow.pw(['gate', '--base', 'origin/main']);
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    'this clone is shallow, so HEAD and origin/main share no history here; fetch the full history (fetch-depth: 0 in actions/checkout, GIT_DEPTH: 0 in GitLab CI, or git fetch --unshallow)',
  );
});

test.run();
