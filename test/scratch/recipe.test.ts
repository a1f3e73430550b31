// The scratch recipes run the branch's own tests, so they hand the job no
// secret: no seed key, no secrets at all, no write token; and every flag
// they pass is one scratch --help lists.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { CLI, PROJECT, sh } from '../helpers/repo.js';

const GITHUB = 'ci/github/patchwarden-scratch.yml';
const GITLAB = 'ci/gitlab/patchwarden-scratch.gitlab-ci.yml';
const read = (file: string) => readFileSync(path.join(PROJECT, file), 'utf8');
/** The file without its comment lines: what the CI system runs. */
const code = (file: string) =>
  read(file)
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n');

test('neither recipe names a secret, the seed key or an environment that could carry one', () => {
  for (const file of [GITHUB, GITLAB]) {
    const text = code(file);
    assert.not.match(text, /secrets\./, `${file} names no secret`);
    assert.not.match(text, /PATCHWARDEN_SEED_KEY|GITHUB_TOKEN|github\.token/, `${file} hands over no key or token`);
    assert.not.match(text, /^\s*environment:/m, `${file} names no environment (GitLab scopes the key to one)`);
  }
});

test('the GitHub recipe reads only, and its checkout keeps no token', () => {
  const wf = parse(read(GITHUB));
  assert.equal(wf.permissions, { contents: 'read' });
  for (const job of Object.values<any>(wf.jobs)) {
    assert.is(job.permissions, undefined, 'no job widens the permissions');
    assert.is(job.env, undefined, 'no job-wide environment');
    const checkout = job.steps.find((s: { uses?: string }) => s.uses?.startsWith('actions/checkout'));
    assert.is(checkout.with['persist-credentials'], false);
  }
});

test('scratch --help lists every flag the recipes pass, and promote --help says who may run it', () => {
  const help = sh(process.execPath, [CLI, 'scratch', '--help']).stdout;
  for (const file of [GITHUB, GITLAB]) {
    const calls = [...code(file).matchAll(/patchwarden scratch ([^\n]*(?:\n +--[^\n]*)?)/g)];
    assert.ok(calls.length, `${file} runs patchwarden scratch`);
    for (const [, args] of calls)
      for (const [flag] of args.matchAll(/--[a-z][\w-]*/g))
        assert.match(help, new RegExp(`^ +${flag}\\b`, 'm'), `${file} passes ${flag}, which scratch --help lists`);
  }
  const promote = sh(process.execPath, [CLI, 'promote', '--help']).stdout;
  assert.match(promote, /owners\.agents \(an\s+owner promotes, never an agent\)/);
});

test.run();
