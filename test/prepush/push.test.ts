// The pre-push hook through real `git push` into a local bare repository,
// with the project's hooks/pre-push installed as a plain git hook.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FENCE } from '../helpers/fence.js';
import { cleanup, tempRepo, type TempRepo, installPrePush } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { BUGGY_JS, config, fingerprint, FIXED_JS, jsProperty, NODE_TEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const START = {
  '.gitignore': 'build/\n',
  '.patchwarden.yml': config(NODE_TEST),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': BUGGY_JS,
};

function pushable(files: Record<string, string> = START): { repo: TempRepo; remote: TempRepo } {
  const remote = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(files, 'start');
  return { repo, remote };
}

/** git push; the hook's verdict (its stdout) and progress (stderr) both reach the user. */
const push = (repo: TempRepo, ...args: string[]) => {
  const r = repo.git(['push', '-q', 'origin', ...args], { allowFail: true });
  return { code: r.code, said: r.stdout + r.stderr };
};
const remoteHead = (remote: TempRepo, ref = 'main') =>
  remote.git(['rev-parse', '--verify', '--quiet', ref], { allowFail: true }).stdout.trim();

test.after.each(cleanup);

test('git push: a new history is accepted (no base to revert to), then a fix whose property describes it', () => {
  const { repo, remote } = pushable();
  const first = push(repo, 'main');
  assert.is(first.code, 0, first.said);
  assert.match(first.said, /the first push of this history to origin/);
  repo.write('scratch.txt', 'untracked\n');
  const fix = repo.commit({ 'src/bill.mjs': FIXED_JS }, 'fix: totals are never negative');
  const after = fingerprint(repo);
  const r = push(repo, 'main');
  assert.is(r.code, 0, r.said);
  assert.match(r.said, /revert-check: done: describes_patch/);
  assert.is(remoteHead(remote), fix);
  // The push changed nothing of the user's but the remote-tracking ref it is meant to.
  const now = fingerprint(repo);
  for (const k of Object.keys(after))
    if (!k.startsWith('.git/refs/remotes') && k !== '(refs)' && !k.startsWith('.git/logs/refs/remotes'))
      assert.is(now[k], after[k], k);
});

test('git push by URL, or to a remote never fetched: refused while the remote holds refs this clone has not seen; an empty one is a first push', () => {
  const { repo, remote } = pushable({ ...START, 'src/bill.mjs': FIXED_JS });
  assert.is(push(repo, 'main').code, 0);
  // Another clone moves main; this one pushes a mixed branch and a forced main by URL and through a second name.
  const elsewhere = remote
    .git(['commit-tree', 'main^{tree}', '-p', 'main', '-m', 'pushed from another clone'])
    .stdout.trim();
  remote.git(['update-ref', 'refs/heads/main', elsewhere]);
  repo.git(['checkout', '-q', '-b', 'topic']);
  repo.commit({ 'spec/invariants.yaml': registry(ID) + '# loosened\n' }, 'spec');
  repo.commit({ 'src/bill.mjs': FIXED_JS + '// more\n' }, 'code');
  repo.git(['remote', 'add', 'mirror', remote.dir]);
  for (const args of [
    [remote.dir, 'topic:refs/heads/topic-url'],
    [remote.dir, '--force', 'topic:main'],
    ['mirror', 'topic'],
  ]) {
    const before = remote.git(['for-each-ref']).stdout;
    const r = repo.git(['push', '-q', ...args], { allowFail: true });
    assert.is.not(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout + r.stderr,
      'holds refs this clone has never fetched',
      `${args.join(' ')}: ${r.stdout}${r.stderr}`,
    );
    assert.is(remote.git(['for-each-ref']).stdout, before);
  }
  const empty = tempRepo({ bare: true });
  const first = repo.git(['push', '-q', empty.dir, 'topic'], { allowFail: true });
  assert.is(first.code, 0, first.stdout + first.stderr);
  assert.match(first.stdout + first.stderr, 'the first push of this history');
});

test("an orphan history that brings its own looser config is judged by the remote default branch's", () => {
  const { repo, remote } = pushable({ ...START, 'src/bill.mjs': FIXED_JS });
  assert.is(push(repo, 'main').code, 0);
  repo.git(['checkout', '-q', '--orphan', 'fresh']);
  repo.commit(
    {
      '.patchwarden.yml': 'version: 1\nzones:\n  src: [nothing/**]\n',
      'src/bill.mjs': FIXED_JS + '// more\n',
      'spec/invariants.yaml': registry(ID) + '# loosened\n',
    },
    'a fresh start',
  );
  const r = push(repo, 'fresh');
  assert.is.not(r.code, 0, r.said);
  assert.match(r.said, 'refused [mix]');
  assert.match(r.said, 'src/bill.mjs  (src, added)');
  assert.is(remoteHead(remote, 'fresh'), '');
});

test('git push: a patch its property does not describe is refused and the remote keeps its tip', () => {
  const { repo, remote } = pushable({ ...START, 'src/bill.mjs': FIXED_JS });
  assert.is(push(repo, 'main').code, 0);
  const old = remoteHead(remote);
  repo.commit({ 'src/bill.mjs': FIXED_JS + 'export const currency = "EUR";\n' }, 'add currency');
  const r = push(repo, 'main');
  assert.is.not(r.code, 0);
  assert.match(r.said, /refused \[revert\] revert check does_not_describe/);
  assert.match(r.said, /src\/bill\.mjs/);
  assert.is(remoteHead(remote), old);
});

test('git push: a commit mixing src and spec, and a range that mixes them across commits, are refused', () => {
  const { repo, remote } = pushable();
  assert.is(push(repo, 'main').code, 0);
  repo.commit({ 'src/bill.mjs': FIXED_JS, 'spec/properties/more.test.mjs': jsProperty(ID) }, 'mixed');
  const mixed = push(repo, 'main');
  assert.is.not(mixed.code, 0);
  assert.match(mixed.said, /refused \[mix\] commit [0-9a-f]{12}/);
  repo.git(['reset', '-q', '--hard', 'HEAD~1']);
  repo.commit({ 'spec/properties/more.test.mjs': jsProperty(ID) }, 'spec');
  repo.commit({ 'src/bill.mjs': FIXED_JS }, 'src');
  const range = push(repo, 'main');
  assert.is.not(range.code, 0);
  assert.match(range.said, /refused \[mix-range\]/);
  assert.is(remoteHead(remote), repo.git(['rev-parse', 'HEAD~2']).stdout.trim());
});

test('git push: fixtures at the pushed tip are verified', () => {
  const { repo } = pushable();
  assert.is(push(repo, 'main').code, 0);
  repo.commit({ 'fixtures/input/case.json': '{"a":1}\n' }, 'a fixture without a lock');
  const r = push(repo, 'main');
  assert.is.not(r.code, 0);
  assert.match(r.said, /refused \[fixtures\]/);
});

test('git push: a new branch is judged from its merge-base with the remote default branch; deleting it passes', () => {
  const { repo, remote } = pushable();
  assert.is(push(repo, 'main').code, 0);
  repo.git(['switch', '-q', '-c', 'feature']);
  repo.commit({ 'src/bill.mjs': BUGGY_JS + 'export const unrelated = 1;\n' }, 'unrelated');
  const bad = push(repo, 'feature');
  assert.is.not(bad.code, 0);
  assert.match(bad.said, /pending_unmarked: the base itself fails/);
  assert.is(remoteHead(remote, 'feature'), '');
  repo.git(['reset', '-q', '--hard', 'main']);
  const fix = repo.commit({ 'src/bill.mjs': FIXED_JS }, 'fix');
  const good = push(repo, 'feature');
  assert.is(good.code, 0, good.said);
  assert.match(good.said, /describes_patch/);
  assert.is(remoteHead(remote, 'feature'), fix);
  const del = push(repo, '--delete', 'feature');
  assert.is(del.code, 0, del.said);
  assert.is(remoteHead(remote, 'feature'), '');
});

test('pre-push --format json: the base side judges, so a pushed `pre_push.revert: false` does not switch the check off', () => {
  // mix.range: allow, so no cheaper layer refuses the range and the revert check runs.
  const allow = 'mix:\n  range: allow\n';
  const { repo, remote } = pushable({
    ...START,
    '.patchwarden.yml': config(NODE_TEST, allow),
    'src/bill.mjs': FIXED_JS,
  });
  assert.is(push(repo, 'main').code, 0);
  const base = repo.head();
  repo.commit({ '.patchwarden.yml': config(NODE_TEST, `${allow}pre_push:\n  revert: false\n`) }, 'loosen');
  const tip = repo.commit({ 'src/bill.mjs': FIXED_JS + 'export const y = 2;\n' }, 'undescribed');
  const r = repo.json(['pre-push', 'origin', remote.dir], {
    input: `refs/heads/main ${tip} refs/heads/main ${base}\n`,
  });
  assert.is(r.code, 1);
  const rules = r.out.violations.map((v: { rule: string }) => v.rule);
  assert.equal(rules, ['revert'], JSON.stringify(r.out.violations));
  assert.is(r.out.refs[0].base, base);
  assert.is(r.out.refs[0].revert, 'does_not_describe');
  assert.equal(r.out.refs[0].commits.length, 2);
  assert.ok(r.out.violations.every((v: { paths: unknown }) => Array.isArray(v.paths)));
  // revert.jobs: 1 asks for no two sides at once: no fence to tell.
  assert.is(r.out.fence, null);
  assert.not.match(r.stderr, /fence:/);
});

/** Both sides at once need the fence (Landlock ABI 2). */
const fencedTest = testUnless(FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides run in turn');

fencedTest(
  'pre-push under revert.jobs: 2 says its fence in a line and in its JSON, fenced and with Landlock off',
  () => {
    const { repo, remote } = pushable({ ...START, '.patchwarden.yml': config(NODE_TEST, 'revert:\n  jobs: 2\n') });
    assert.is(push(repo, 'main').code, 0);
    const base = repo.head();
    const tip = repo.commit({ 'src/bill.mjs': FIXED_JS }, 'fix: totals are never negative');
    const input = `refs/heads/main ${tip} refs/heads/main ${base}\n`;
    const fenced = repo.json(['pre-push', 'origin', remote.dir], { input });
    assert.is(fenced.code, 0, fenced.stderr);
    assert.is(fenced.out.refs[0].revert, 'describes_patch');
    assert.is(fenced.out.fence, 'landlock');
    assert.match(fenced.stderr, /^patchwarden: fence: landlock \(each side could write only its own tree/m);
    const off = repo.json(['pre-push', 'origin', remote.dir], { input, env: { PATCHWARDEN_LANDLOCK: 'off' } });
    assert.is(off.code, 0, off.stderr);
    assert.is(off.out.refs[0].revert, 'describes_patch');
    assert.is(off.out.fence, 'none');
    assert.match(off.stderr, /^patchwarden: fence: none \(in turn, base first: no Landlock ABI 2 here/m);
  },
);

test('pre-push: pre_push.revert false on the base side skips the revert check', () => {
  const { repo, remote } = pushable({
    ...START,
    '.patchwarden.yml': config(NODE_TEST, 'pre_push:\n  revert: false\n'),
    'src/bill.mjs': FIXED_JS,
  });
  assert.is(push(repo, 'main').code, 0);
  const base = repo.head();
  const tip = repo.commit({ 'src/bill.mjs': FIXED_JS + 'export const y = 2;\n' }, 'undescribed');
  const r = repo.json(['pre-push', 'origin', remote.dir], {
    input: `refs/heads/main ${tip} refs/heads/main ${base}\n`,
  });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.refs[0].revert, null);
});

test('pre-push: a deletion passes, a malformed line cannot judge (exit 2)', () => {
  const { repo, remote } = pushable();
  const zero = '0'.repeat(40);
  const del = repo.json(['pre-push', 'origin', remote.dir], {
    input: `(delete) ${zero} refs/heads/old ${repo.head()}\n`,
  });
  assert.is(del.code, 0);
  assert.equal(del.out.violations, []);
  const bad = repo.json(['pre-push', 'origin', remote.dir], { input: 'refs/heads/main nothex refs/heads/main\n' });
  assert.is(bad.code, 2);
  assert.match(bad.out.error, /stdin:1: not a "<local ref> <local sha> <remote ref> <remote sha>" line/);
});

test.run();
