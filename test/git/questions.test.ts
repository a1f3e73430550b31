// The questions the enforcement points ask git through git/ (refs, config,
// remotes, trailers, what a commit tracks), on real repositories: each
// answer where git has one, and the empty answer where it has none.
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { messageTrailers } from '../../src/git/commits.js';
import { tracksAnyAt } from '../../src/git/files.js';
import { fetchObjects, headRef, remoteRefs, upstreamOf } from '../../src/git/refs.js';
import {
  aliasOf,
  commitAndParent,
  commitOrNull,
  configMatching,
  gitVars,
  openRepo,
  plainTop,
  repoAt,
} from '../../src/git/repo.js';
import { commitParentAndFile } from '../../src/git/objects.js';
import { treeOf } from '../../src/git/trees.js';
import { cleanup, tempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

test('a repository read from disk at its top is the one git names, and git is asked elsewhere', async () => {
  const t = tempRepo();
  t.commit({ 'sub/a.txt': 'a\n' }, 'base');
  const linked = path.join(t.dir, 'sub', 'linked');
  t.git(['worktree', 'add', '-q', linked]);
  const bare = tempRepo({ bare: true });
  const facts = ({ root, gitDir, commonDir, cwd }: Awaited<ReturnType<typeof openRepo>>) => ({
    root,
    gitDir,
    commonDir,
    cwd,
  });
  for (const dir of [t.dir, path.join(t.dir, 'sub'), linked, bare.dir])
    assert.equal(facts(await repoAt(dir)), facts(await openRepo(dir)), dir);
});

test('the top read from disk: a remote URL holding "bare" or "worktree" is no reason to ask git, the keys are', async () => {
  const t = tempRepo();
  t.commit({ 'a.txt': 'a\n' }, 'base');
  const config = path.join(t.dir, '.git/config');
  const original = readFileSync(config, 'utf8');
  const top = realpathSync(t.dir);
  const cases: [string, string | null][] = [
    ['[remote "origin"]\n\turl = https://example.com/bare/worktree.git\n', top],
    ['[core]\n\tbare = False ; set by init\n', top],
    ['[core]\n\tbare = true\n', null],
    ['[core] bare\n', null],
    ['[core]\n\tBare =\n', null],
    ['[core]\n\tworktree = /elsewhere\n', null],
    ['[extensions]\n\tworktreeConfig = true\n', null],
    ['[remote "origin"]\n\turl = one \\\n bare = true\n', null],
  ];
  for (const [added, expected] of cases) {
    writeFileSync(config, original + added);
    assert.is(plainTop(t.dir), expected, added);
    // Where it answers, git names the same top.
    if (expected) assert.is((await openRepo(t.dir)).root, expected, added);
  }
});

test('a commit, its parent and a file of the parent from one process: none for a root commit or a file the parent lacks', async () => {
  const t = tempRepo();
  const root = t.commit({ 'a.txt': 'a\n' }, 'root');
  const mid = t.commit({ 'cfg.yml': 'x: 1\n', 'dir/b.txt': 'b\n' }, 'mid');
  const tip = t.commit({ 'a.txt': 'b\n' }, 'tip');
  const repo = await openRepo(t.dir);
  assert.equal(await commitParentAndFile(repo, 'HEAD', 'cfg.yml'), {
    id: tip,
    parent: mid,
    file: Buffer.from('x: 1\n'),
  });
  assert.equal(await commitParentAndFile(repo, 'HEAD', 'dir'), { id: tip, parent: mid, file: null });
  assert.equal(await commitParentAndFile(repo, mid, 'cfg.yml'), { id: mid, parent: root, file: null });
  assert.equal(await commitParentAndFile(repo, root, 'a.txt'), { id: root, parent: null, file: null });
  const err = await commitParentAndFile(repo, 'nope', 'cfg.yml').catch((e: Error) => e);
  assert.is((err as Error).message, 'no such commit: nope');
});

test('a commit and its first parent from one revision: none for a root commit, an error naming a missing one', async () => {
  const t = tempRepo();
  const root = t.commit({ 'a.txt': 'a\n' }, 'root\ncommit');
  const tip = t.commit({ 'a.txt': 'b\n' }, 'second one');
  t.git(['tag', '-a', '-m', 'tagged', 'v1', tip]);
  const repo = await openRepo(t.dir);
  assert.equal(await commitAndParent(repo, 'v1'), { id: tip, parent: root });
  assert.equal(await commitAndParent(repo, 'HEAD^{/second one}'), { id: tip, parent: root });
  assert.equal(await commitAndParent(repo, root), { id: root, parent: null });
  assert.equal(await commitAndParent(repo, 'HEAD^{/root\ncommit}'), { id: root, parent: null });
  for (const missing of ['no-such-branch', 'HEAD:a.txt', `${root}..${tip}`, '-v', 'HEAD\r']) {
    const err = await commitAndParent(repo, missing).catch((e: Error) => e);
    assert.instance(err, Error);
    assert.is((err as Error).message, `no such commit: ${missing}`);
  }
});

test('what a commit tracks: a folder with files, none for an unborn HEAD or an untracked folder', async () => {
  const t = tempRepo();
  const repo = await openRepo(t.dir);
  assert.not.ok(await tracksAnyAt(repo, 'HEAD', ['node_modules']));
  const base = t.commit({ 'node_modules/a/index.js': 'a\n', 'src/x.py': 'x\n' }, 'base');
  assert.ok(await tracksAnyAt(repo, 'HEAD', ['node_modules', 'web/node_modules']));
  assert.not.ok(await tracksAnyAt(repo, 'HEAD', ['web/node_modules']));
  assert.is(await treeOf(repo, base), t.git(['rev-parse', 'HEAD^{tree}']).stdout.trim());
});

test('config by pattern: keys lowercased, a key without a value is true; aliases; HEAD by its full name', async () => {
  const t = tempRepo();
  t.commit({ 'a.txt': 'a\n' }, 'base');
  t.git(['config', 'patchwarden.Branch', 'release']);
  writeFileSync(path.join(t.dir, '.git/config'), '[patchwarden]\n\tbootstrap\n', { flag: 'a' });
  t.git(['config', 'alias.ci', 'commit --amend']);
  const repo = await openRepo(t.dir);
  const values = await configMatching(repo, '^patchwarden\\.');
  assert.is(values.get('patchwarden.branch'), 'release');
  assert.is(values.get('patchwarden.bootstrap'), 'true');
  assert.is((await configMatching(repo, '^nosuchsection\\.')).size, 0);
  assert.is(await aliasOf(t.dir, 'ci'), 'commit --amend');
  assert.is(await aliasOf(t.dir, 'nope'), null);
  assert.is(await headRef(repo), 'refs/heads/main');
  t.git(['checkout', '-q', '--detach']);
  assert.is(await headRef(repo), null);
});

test("a branch's upstream; a remote's refs asked of it, and its objects fetched without moving a ref", async () => {
  const remote = tempRepo({ bare: true });
  const t = tempRepo();
  t.commit({ 'a.txt': 'a\n' }, 'base');
  t.git(['remote', 'add', 'origin', remote.dir]);
  t.git(['push', '-q', 'origin', 'main', 'main:develop']);
  t.git(['branch', '-q', '--set-upstream-to=origin/develop', 'main']);
  const repo = await openRepo(t.dir);
  assert.equal(await upstreamOf(repo, 'refs/heads/main'), { remote: 'origin', ref: 'refs/heads/develop' });
  t.git(['branch', '-q', 'loose']);
  assert.is(await upstreamOf(repo, 'refs/heads/loose'), null);
  // The remote moves on with a commit this clone lacks.
  const other = tempRepo();
  other.git(['fetch', '-q', remote.dir, 'develop']);
  other.git(['reset', '-q', '--hard', 'FETCH_HEAD']);
  const ahead = other.commit({ 'b.txt': 'b\n' }, 'ahead');
  other.git(['push', '-q', remote.dir, 'HEAD:refs/heads/develop']);
  const { head, tips } = await remoteRefs(repo, 'origin', ['refs/heads/develop', 'refs/heads/gone']);
  assert.is(head, 'refs/heads/main');
  assert.equal([...tips], [['refs/heads/develop', ahead]]);
  assert.is(await commitOrNull(repo, ahead), null);
  const refs = t.git(['for-each-ref']).stdout;
  await fetchObjects(repo, 'origin', ['refs/heads/develop']);
  assert.is(await commitOrNull(repo, ahead), ahead);
  assert.is(t.git(['for-each-ref']).stdout, refs);
  // A remote that cannot be reached is git's error, never an empty answer.
  const unreachable = await remoteRefs(repo, path.join(t.dir, 'no-such-remote'), []).catch((e: Error) => e);
  assert.instance(unreachable, Error);
  assert.match((unreachable as Error).message, 'does not appear to be a git repository');
});

test("git's variables and a message file's trailers, as git reads them", async () => {
  const t = tempRepo();
  t.git(['config', 'user.name', 'Ann Author']);
  const repo = await openRepo(t.dir);
  const vars = await gitVars(repo);
  // The config first, then git's own variables.
  const name = vars.indexOf('user.name=Ann Author');
  const ident = vars.findIndex((l) => l.startsWith('GIT_COMMITTER_IDENT='));
  assert.ok(name >= 0 && ident > name, vars.join('\n'));
  const file = path.join(t.dir, 'MSG');
  writeFileSync(file, 'subject\n\nbody\n\nCo-authored-by: Bo <bo@example.com>\n# Signed-off-by: not me\n');
  assert.is(await messageTrailers(repo, file), 'Co-authored-by: Bo <bo@example.com>');
});

test.run();
