// Real pushes into a bare repository with the pre-receive hook installed.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { guardedServer, server } from './server.js';

test.after.each(cleanup);

test('a mixed commit is refused and the server ref stays where it was', () => {
  const s = guardedServer();
  const before = s.ref('main');
  s.work.commit(
    { 'src/app.ts': 'export const a = 2;\n', 'spec/invariants.yaml': 'version: 1\ninvariants: [] # loosened\n' },
    'tweak both',
  );
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'remote: patchwarden: refusing the push to refs/heads/main');
  assert.match(r.stderr, /\[mix\] commit [0-9a-f]{12} "tweak both"/);
  assert.match(r.stderr, 'src/app.ts  (src, modified)');
  assert.match(r.stderr, 'spec/invariants.yaml  (spec, modified)');
  assert.match(r.stderr, 'pre-receive hook declined');
  assert.is(s.ref('main'), before);
});

test('a mixed change split across two commits is refused as a range', () => {
  const s = guardedServer();
  const before = s.ref('main');
  s.work.commit({ 'src/app.ts': 'export const a = 2;\n' }, 'code');
  s.work.commit({ 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# loosened\n' }, 'spec');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '[mix-range]');
  assert.match(r.stderr, 'split across commits');
  assert.is(s.ref('main'), before);
});

test('src-only and spec-only pushes are accepted', () => {
  const s = guardedServer();
  const code = s.work.commit({ 'src/app.ts': 'export const a = 2;\n', 'test/app.test.ts': 'ok\n' }, 'code and tests');
  let r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'patchwarden: pre-receive ok (1 ref, 1 new commit)');
  assert.is(s.ref('main'), code);
  const spec = s.work.commit({ 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# reviewed\n' }, 'spec');
  r = s.push('main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), spec);
});

test('a new branch is judged by its new commits only', () => {
  const s = guardedServer();
  s.work.git(['checkout', '-q', '-b', 'topic']);
  // Pointing a new branch at commits the server has brings nothing new.
  let r = s.push('topic');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, '(1 ref, 0 new commits)');
  s.work.commit({ 'src/app.ts': 'x\n', 'freeze/signatures.yaml': 'version: 1\nrecords: []\n' }, 'freeze it');
  r = s.push('topic:refs/heads/topic2');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'refusing the push to refs/heads/topic2');
  assert.match(r.stderr, 'freeze/signatures.yaml  (freeze, added)');
  assert.is(s.ref('refs/heads/topic2'), null);
});

test('ref deletions pass by default and are refused with pre_receive.deletions: refuse', () => {
  const s = guardedServer();
  assert.is(s.push('main:refs/heads/old').code, 0);
  let r = s.push(':refs/heads/old');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('refs/heads/old'), null);

  const t = guardedServer('version: 1\npre_receive:\n  deletions: refuse\n');
  assert.is(t.push('main:refs/heads/old').code, 0);
  r = t.push(':refs/heads/old');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '[delete] deleting refs/heads/old is refused (pre_receive.deletions: refuse');
  assert.ok(t.ref('refs/heads/old'));
  // The fix fits a deletion: the judging branch's config lets deletions through.
  assert.match(
    r.stderr,
    'keep refs/heads/old; where deleting refs is wanted, pre_receive.deletions: allow in .patchwarden.yml on refs/heads/main lets deletions through',
  );
  t.work.commit({ '.patchwarden.yml': 'version: 1\npre_receive:\n  deletions: allow\n' }, 'deletions allowed');
  assert.is(t.push('main').code, 0);
  assert.is(t.push(':refs/heads/old').code, 0);
  assert.is(t.ref('refs/heads/old'), null);
});

test('a force push is judged by the commits it brings', () => {
  // Rewinding the judging branch is refused on its own (test/attacks/range-branch); allowed here.
  const s = guardedServer('version: 1\npre_receive:\n  judging_branch: allow\n');
  s.work.commit({ 'src/app.ts': 'v2\n' }, 'code');
  assert.is(s.push('main').code, 0);
  const before = s.ref('main');
  s.work.git(['reset', '-q', '--hard', 'HEAD~1']);
  s.work.commit(
    { 'src/app.ts': 'v3\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# v3\n' },
    'rewritten, mixed',
  );
  let r = s.push('--force', 'main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '"rewritten, mixed"');
  assert.is(s.ref('main'), before);
  s.work.git(['reset', '-q', '--hard', 'HEAD~1']);
  const clean = s.work.commit({ 'src/app.ts': 'v4\n' }, 'rewritten, clean');
  r = s.push('--force', 'main');
  assert.is(r.code, 0, r.stderr);
  assert.is(s.ref('main'), clean);
});

test('a push that loosens the config is judged by the config on the default branch', () => {
  // mix.range: allow, so that only the per-commit rule decides: the pushed
  // config would let the last commit through, the server's does not.
  const s = guardedServer('version: 1\nmix:\n  range: allow\nzones:\n  spec: [spec/**, rules/**]\n');
  s.work.commit({ 'rules/limits.yaml': 'max: 1\n' }, 'rules');
  assert.is(s.push('main').code, 0);
  const before = s.ref('main');
  // The pushed config drops rules/** from the spec zone, in a separate commit.
  s.work.commit({ '.patchwarden.yml': 'version: 1\nmix:\n  range: allow\nzones:\n  spec: [spec/**]\n' }, 'drop a zone');
  s.work.commit({ 'src/app.ts': 'v2\n', 'rules/limits.yaml': 'max: 99\n' }, 'code and rules');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /\[mix\] commit [0-9a-f]{12} "code and rules"/);
  assert.match(r.stderr, 'rules/limits.yaml  (spec, modified)');
  assert.is(s.ref('main'), before);
});

test('an annotated tag on a mixed commit is refused', () => {
  const s = guardedServer();
  s.work.commit({ 'src/app.ts': 'v2\n', 'fixtures/input/a.json': '{}\n' }, 'mixed');
  s.work.git(['tag', '-a', '-m', 'release', 'v1']);
  const r = s.push('refs/tags/v1');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'refusing the push to refs/tags/v1');
  assert.match(r.stderr, 'fixtures/input/a.json  (fixtures, added)');
  assert.is(s.ref('refs/tags/v1'), null);
});

test('paths with newlines and spaces are named exactly', () => {
  const s = guardedServer();
  s.work.commit({ 'src/odd name.ts': 'x\n', 'spec/line\nbreak.yaml': 'y\n' }, 'odd paths');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'src/odd name.ts  (src, added)');
  assert.match(r.stderr, '"spec/line\\nbreak.yaml"  (spec, added)');
});

test('a repository with no config yet refuses pushes; in the bootstrap state it lets them through and says so once', () => {
  const s = server();
  s.work.commit({ 'src/app.ts': 'x\n', 'spec/a.yaml': 'y\n' }, 'mixed, but unguarded');
  let r = s.push('main', 'main:refs/heads/other');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'refs/heads/main, the branch whose .patchwarden.yml judges this repository, does not exist');
  assert.match(r.stderr, 'git config patchwarden.bootstrap true');
  assert.is(s.ref('refs/heads/other'), null);
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  r = s.push('main', 'main:refs/heads/other');
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr.split('is not judged').length - 1, 1, r.stderr);
  assert.ok(s.ref('refs/heads/other'));
});

test('the server parses its config once; a damaged or foreign cache entry is parsed again, never trusted', () => {
  const s = guardedServer();
  s.work.commit({ 'src/app.ts': 'export const a = 2;\n' }, 'code');
  assert.is(s.push('main').code, 0);
  const oid = s.bare.git(['rev-parse', 'main:.patchwarden.yml']).stdout.trim();
  const cache = path.join(s.bare.dir, 'patchwarden', 'config-cache');
  assert.equal(readdirSync(cache), [`${oid}.json`]);
  // A foreign build's entry that would zone nothing, then a truncated one: each push still refuses the mix.
  const lax = { build: 'another-build', key: oid, config: { zones: [] }, rules: { exact: [], folded: [] } };
  for (const entry of [JSON.stringify(lax), '{"build":']) {
    writeFileSync(path.join(cache, `${oid}.json`), entry);
    s.work.commit(
      {
        'src/app.ts': `export const a = ${entry.length};\n`,
        'spec/invariants.yaml': `version: 1\ninvariants: []\n# ${entry.length}\n`,
      },
      'both',
    );
    const r = s.push('main');
    assert.is.not(r.code, 0, r.stderr);
    assert.match(r.stderr, '[mix]');
    s.work.git(['reset', '-q', '--hard', 'HEAD~1']);
  }
});

test('the server reads paths as its core.ignorecase says: SRC/ is production code only where case is ignored', () => {
  const s = guardedServer();
  const before = s.ref('main');
  s.work.commit(
    { 'SRC/Other.ts': 'export const o = 1;\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# more\n' },
    'both, in other case',
  );
  s.bare.git(['config', 'core.ignorecase', 'yes']);
  const r = s.push('main');
  assert.is.not(r.code, 0, r.stderr);
  assert.match(r.stderr, 'SRC/Other.ts  (src, added)');
  assert.is(s.ref('main'), before);
  s.bare.git(['config', 'core.ignorecase', 'false']);
  assert.is(s.push('main').code, 0);
});

test('a broken config on the default branch blocks the push', () => {
  const s = guardedServer('version: 1\nmix:\n  range: sometimes\n');
  s.work.commit({ 'README.md': 'more\n' }, 'docs');
  const r = s.push('main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, '.patchwarden.yml:3: mix.range: must be one of refuse, allow');
});

test('malformed hook input cannot be judged (exit 2)', () => {
  const s = guardedServer();
  const r = s.bare.pw(['pre-receive'], { input: 'not a ref line\n' });
  assert.is(r.code, 2);
  assert.match(r.stderr, 'stdin:1: not a "<old> <new> <ref>" line');
});

test('--format json gives ok, refs and violations with ref, rule and paths', () => {
  const s = guardedServer();
  const main = s.ref('main')!;
  // Objects on the server but on no ref, as in git's quarantine.
  const mixed = s.work.commit(
    { 'src/app.ts': 'v2\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# x\n' },
    'mixed',
  );
  s.work.git(['push', '-q', '--no-verify', 'origin', 'main:refs/parked/x'], { env: { PATCHWARDEN_BIN: 'true' } });
  s.bare.git(['update-ref', '-d', 'refs/parked/x']);
  const r = s.bare.json(['pre-receive'], { input: `${main} ${mixed} refs/heads/main\n` });
  assert.is(r.code, 1);
  assert.is(r.out.ok, false);
  assert.is(r.out.guarded, true);
  assert.equal(r.out.refs, [{ ref: 'refs/heads/main', old: main, new: mixed, commits: 1, ok: false }]);
  assert.is(r.out.violations[0].rule, 'mix');
  assert.is(r.out.violations[0].ref, 'refs/heads/main');
  assert.is(r.out.violations[0].commit, mixed);
  assert.equal(r.out.violations[0].paths.sort(), ['spec/invariants.yaml', 'src/app.ts']);
});

test.run();
