// Pushes of many refs at once, read in one walk: each ref is still judged on
// every commit new to it, whichever other ref brings the same commits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { guardedServer, type Server } from './server.js';

test.after.each(cleanup);

/** `count` branches b0..b{count-1} off main, one commit each through fast-import; branch `mixed` changes code and spec together. */
function branches(s: Server, count: number, mixed = -1): void {
  const main = s.work.head();
  const file = (p: string, text: string) => `M 100644 inline ${p}\ndata ${Buffer.byteLength(text)}\n${text}`;
  const lines: string[] = [];
  for (let r = 0; r < count; r++) {
    const subject = r === mixed ? `mixed ${r}` : `branch ${r}`;
    lines.push(
      `commit refs/heads/b${r}`,
      `committer Test <test@example.com> ${1700000000 + r} +0000`,
      `data ${subject.length}`,
      subject,
      `from ${main}`,
    );
    lines.push(file(`src/m${r % 50}.ts`, `export const v = ${r};\n`));
    if (r === mixed) lines.push(file('spec/invariants.yaml', 'version: 1\ninvariants: [] # loosened\n'));
    else if (r % 10 === 0) lines.push(file(`test/t${r}.test.ts`, `ok ${r}\n`));
    lines.push('');
  }
  s.work.git(['fast-import', '--quiet'], { input: lines.join('\n') });
}

test('a push of 1,000 refs with one mixed commit in ref 517 is refused, naming that ref and commit; no ref lands', () => {
  const s = guardedServer();
  branches(s, 1000, 517);
  const mixed = s.work.git(['rev-parse', 'b517']).stdout.trim();
  const r = s.push('refs/heads/b*:refs/heads/b*');
  assert.is.not(r.code, 0);
  const refused = r.stderr.match(/refusing the push to \S+/g) ?? [];
  assert.equal(refused, ['refusing the push to refs/heads/b517']);
  assert.match(r.stderr, `[mix] commit ${mixed.slice(0, 12)} "mixed 517"`);
  assert.match(r.stderr, 'spec/invariants.yaml  (spec, modified)');
  assert.is(s.ref('refs/heads/b0'), null);
  assert.is(s.ref('refs/heads/b999'), null);
});

test('a clean push of 1,000 refs is accepted and counts each new commit once', () => {
  const s = guardedServer();
  branches(s, 1000);
  const r = s.push('refs/heads/b*:refs/heads/b*');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'patchwarden: pre-receive ok (1000 refs, 1000 new commits)');
  assert.is(s.ref('refs/heads/b999'), s.work.git(['rev-parse', 'b999']).stdout.trim());
});

test('a mixed commit brought by two refs at once is refused for both', () => {
  const s = guardedServer();
  const bad = s.work.commit(
    { 'src/app.ts': 'export const a = 2;\n', 'spec/invariants.yaml': 'version: 1\ninvariants: [] # loosened\n' },
    'tweak both',
  );
  const r = s.push('main', 'main:refs/heads/copy');
  assert.is.not(r.code, 0);
  for (const ref of ['refs/heads/main', 'refs/heads/copy']) {
    const part = r.stderr.split(`refusing the push to ${ref}`)[1]?.split('refusing the push to')[0] ?? '';
    assert.match(part, `[mix] commit ${bad.slice(0, 12)} "tweak both"`, ref);
  }
});

test('a ref is judged on all its new commits even when another ref of the push brings some of them', () => {
  const s = guardedServer('version: 1\nmix:\n  range: refuse\n');
  // O changes code, P on top of it the spec: main brings O and P, tmp brings O alone.
  const o = s.work.commit({ 'src/app.ts': 'export const a = 2;\n' }, 'code');
  s.work.commit({ 'spec/invariants.yaml': 'version: 1\ninvariants: []\n# loosened\n' }, 'spec');
  const r = s.push(`${o}:refs/heads/tmp`, 'main');
  assert.is.not(r.code, 0);
  assert.match(r.stderr, 'refusing the push to refs/heads/main');
  assert.match(r.stderr, '[mix-range]');
  assert.not.match(r.stderr, 'refusing the push to refs/heads/tmp');
  // O alone is clean: main was refused for what it brings with P.
  assert.is(s.push(`${o}:refs/heads/tmp`).code, 0);
});

test('the tamper layer judges each ref of one push on what that ref adds: a new ref over its merge-base, an update over its old value', () => {
  const s = guardedServer();
  const base = s.work.head();
  s.work.git(['checkout', '-q', '-b', 'clean']);
  s.work.commit({ 'src/report.py': 'def finish():\n    return 0\n' }, 'clean');
  s.work.git(['checkout', '-q', '-b', 'exits', base]);
  s.work.commit({ 'src/load.py': 'import sys\n\ndef load(path):\n    sys.exit(0)\n' }, 'exits');
  s.work.git(['checkout', '-q', 'main']);
  s.work.commit(
    { 'src/app.ts': 'export const a = 1;\nprocess.on("exit", () => { process.exitCode = 0; });\n' },
    'hooks exit',
  );
  const r = s.push('clean', 'exits', 'main');
  assert.is(r.code, 1, r.stderr);
  const refused = r.stderr.match(/refusing the push to \S+/g) ?? [];
  assert.equal(refused.sort(), ['refusing the push to refs/heads/exits', 'refusing the push to refs/heads/main']);
  assert.match(r.stderr, '[exit.library]');
  assert.match(r.stderr, 'src/load.py');
  assert.match(r.stderr, '[exit.hook]');
  assert.match(r.stderr, 'src/app.ts');
  assert.not.match(r.stderr, 'src/report.py');
});

test.run();
