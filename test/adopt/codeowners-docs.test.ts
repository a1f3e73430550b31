// CODEOWNERS read as the hosts document it: each statement of GitHub's
// example file ("About code owners") and of GitLab's sections is one
// assertion on the owners our reader requires for a path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCodeowners, requiredOwners } from '../../src/adopt/codeowners.js';

const owners = (file: string, path: string) => requiredOwners(parseCodeowners(file), path).sort();

// GitHub's example, in the order the documentation gives it.
const GITHUB = `# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
`;

test('GitHub: the last matching pattern wins; an inline comment is not an owner', () => {
  assert.equal(owners(GITHUB, 'index.js'), ['@js-owner']);
  assert.equal(owners(GITHUB, 'README.md'), ['@global-owner1', '@global-owner2']);
  assert.equal(owners(GITHUB, 'main.go'), ['docs@example.com']);
  assert.equal(owners(GITHUB, 'notes.txt'), ['@octo-org/octocats']);
});

test('GitHub: /build/logs/ owns the folder at the root and below; **/logs any logs folder', () => {
  assert.equal(owners('/build/logs/ @doctocat\n', 'build/logs/a/b.log'), ['@doctocat']);
  assert.equal(owners('/build/logs/ @doctocat\n', 'x/build/logs/a.log'), []);
  for (const p of ['build/logs/a', 'scripts/logs/a', 'deeply/nested/logs/a'])
    assert.equal(owners('**/logs @octocat\n', p), ['@octocat'], p);
});

test('GitHub: docs/* matches docs/getting-started.md, not docs/build-app/troubleshooting.md', () => {
  assert.equal(owners('docs/*  docs@example.com\n', 'docs/getting-started.md'), ['docs@example.com']);
  assert.equal(owners('docs/*  docs@example.com\n', 'docs/build-app/troubleshooting.md'), []);
});

test('GitHub: apps/ owns an apps folder anywhere; /docs/ and /scripts/ only at the root', () => {
  assert.equal(owners('apps/ @octocat\n', 'a/b/apps/x.js'), ['@octocat']);
  assert.equal(owners('/docs/ @doctocat\n', 'docs/a/b.md'), ['@doctocat']);
  assert.equal(owners('/docs/ @doctocat\n', 'src/docs/b.md'), []);
  assert.equal(owners('/scripts/ @doctocat @octocat\n', 'scripts/x.sh'), ['@doctocat', '@octocat']);
});

test('GitHub: a later rule with no owners leaves its path unowned; one with owners takes it', () => {
  assert.equal(owners('/apps/ @octocat\n/apps/github\n', 'apps/github/x'), []);
  assert.equal(owners('/apps/ @octocat\n/apps/github\n', 'apps/other/x'), ['@octocat']);
  assert.equal(owners('/apps/ @octocat\n/apps/github @doctocat\n', 'apps/github/x'), ['@doctocat']);
});

test('GitLab: each section judged on its own; default owners; an optional section requires nobody', () => {
  const sections = `[README Owners]
README.md @user1 @user2
internal/README.md @user4

[README other owners]
README.md @user3
`;
  assert.equal(owners(sections, 'README.md'), ['@user1', '@user2', '@user3']);
  assert.equal(owners(sections, 'internal/README.md'), ['@user3', '@user4']);
  assert.equal(owners('[Documentation] @docs-team\ndocs/\n', 'docs/a.md'), ['@docs-team']);
  assert.equal(owners('^[Documentation] @docs-team\ndocs/\n', 'docs/a.md'), []);
  assert.equal(owners('[Docs][2] @docs-team\ndocs/ @lead\n', 'docs/a.md'), ['@lead']);
});

test('an escaped space in a pattern', () => {
  assert.equal(owners('/my\\ docs/ @doctocat\n', 'my docs/a.md'), ['@doctocat']);
});

test.run();
