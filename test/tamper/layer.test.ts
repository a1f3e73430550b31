// The tamper layer on real patches: a commit per rule in a temporary
// repository, refused by `tamper --range`, by a real push into a bare
// repository with the pre-receive hook, and by `gate`; allow rows from the
// base side; modes and disabled rules from the base side's config.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo, installPrePush } from '../helpers/repo.js';
import { guardedServer } from '../prereceive/server.js';
import { gate } from '../gate/sample.js';

test.after.each(cleanup);

const ALLOW = '.patchwarden/tamper-allow.yaml';

/** One real patch per rule: [rule, file, content]. */
const PATCHES: [string, string, string][] = [
  ['exit.process', 'src/report.py', 'import os as _o\n\ndef finish():\n    _o._exit(0)\n'],
  ['exit.library', 'src/load.py', 'import sys\n\ndef load(path):\n    sys.exit(0)\n'],
  ['exit.hook', 'src/app.ts', 'export const a = 1;\nprocess.on("exit", () => { process.exitCode = 0; });\n'],
  ['framework.import', 'src/hooks.py', 'from _pytest import runner as r\n'],
  ['env.sniff', 'src/app.ts', 'export const a = process.env.JEST_WORKER_ID ? 2 : 1;\n'],
  [
    'caller.read',
    'src/who.py',
    'import inspect\n\ndef total(xs):\n    if inspect.stack()[1].function == "test_total":\n        return 6\n    return sum(xs)\n',
  ],
  ['hook.replace', 'src/out.py', 'import sys\nsys.stdout = open("/dev/null", "w")\n'],
  ['eq.always', 'src/money.py', 'class Money:\n    def __eq__(self, other):\n        return True\n'],
  [
    'report.write',
    'src/app.ts',
    'import { writeFileSync } from "node:fs";\nwriteFileSync("build/junit.xml", "<testsuites/>");\n',
  ],
];

for (const [rule, file, content] of PATCHES) {
  test(`${rule}: refused by tamper --range, by a push into the guarded server, and by gate`, () => {
    const s = guardedServer();
    s.work.git(['checkout', '-q', '-b', 'topic']);
    s.work.commit({ [file]: content }, `patch: ${rule}`);
    const r = s.work.json(['tamper', '--range', 'main..topic']);
    assert.is(r.code, 1, JSON.stringify(r.out));
    assert.ok(
      r.out.hits.some((h: { rule: string; path: string }) => h.rule === rule && h.path === file),
      JSON.stringify(r.out.hits),
    );
    assert.is(r.out.violations[0].rule, 'tamper');
    const push = s.push('topic');
    assert.is(push.code, 1, push.stderr);
    assert.match(push.stderr, `[${rule}]`);
    assert.match(push.stderr, file);
    assert.match(push.stderr, ALLOW); // the way forward is named
    assert.is(s.ref('refs/heads/topic'), null);
    const g = gate(s.work);
    assert.is(g.code, 1);
    assert.is(g.layers.tamper.status, 'refused');
    assert.ok(g.layers.tamper.details!.hits.some((h: { rule: string }) => h.rule === rule));
  });
}

test('an alias imported on an untouched line still names what an added line calls, in a push too', () => {
  const s = guardedServer('version: 1\n', { 'src/keep.py': 'import posix as p\n\n\ndef f():\n    return 1\n' });
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit({ 'src/keep.py': 'import posix as p\n\n\ndef f():\n    p._exit(0)\n' }, 'patch');
  const r = s.work.json(['tamper', '--range', 'main..topic']);
  assert.equal(
    r.out.hits.map((h: { path: string; line: number; rule: string }) => `${h.path}:${h.line} ${h.rule}`),
    ['src/keep.py:5 exit.process'],
  );
  const push = s.push('topic');
  assert.is(push.code, 1, push.stderr);
  assert.match(push.stderr, 'src/keep.py  (line 5: p._exit(0))');
});

test('ordinary code passes everywhere and a change with no production lines is not scanned', () => {
  const s = guardedServer();
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit(
    {
      'src/app.ts': 'export const a = 1;\nchild.on("exit", done);\nif (process.env.NODE_ENV === "production") log();\n',
      'docs/x.md': 'os._exit(0)\n',
      'tests/t.py': 'import pytest\n',
    },
    'ordinary',
  );
  const r = s.work.json(['tamper', '--range', 'main..topic']);
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.equal(r.out.hits, []);
  assert.is(s.push('topic').code, 0);
  assert.is(gate(s.work).layers.tamper.status, 'pass');
});

test('an allow row committed on the base side lets the reviewed line through; an edited line is judged again', () => {
  const s = guardedServer();
  const patch = 'import os\n\ndef finish():\n    os._exit(0)\n';
  // The printed row, filled in by an owner and merged first.
  s.work.git(['checkout', '-q', '-b', 'probe']);
  s.work.commit({ 'src/report.py': patch }, 'probe');
  const printed = s.work.pw(['tamper', '--range', 'main..probe', '--allow-line']);
  assert.is(printed.code, 1);
  const row = printed.stdout
    .slice(printed.stdout.indexOf('  - path:'))
    .replace('OWNER', 'platform-team')
    .replace('REASON', 'the worker ends itself on purpose, reviewed');
  s.work.git(['checkout', '-q', 'main']);
  s.work.commit({ [ALLOW]: `version: 1\nallow:\n${row}` }, 'allow a reviewed exit');
  assert.is(s.push('main').code, 0);
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit({ 'src/report.py': patch }, 'the reviewed patch');
  const r = s.work.json(['tamper', '--range', 'main..topic']);
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.match(r.out.hits[0].allowed_by, ALLOW);
  assert.is(s.push('topic').code, 0);
  const passed = gate(s.work).layers.tamper;
  assert.is(passed.status, 'pass');
  assert.is(passed.summary, '1 production file with added lines, 1 hit, allowed');
  // The same rule on an edited line: the row pins the old line's digest.
  s.work.commit({ 'src/report.py': patch.replace('_exit(0)', '_exit(3)') }, 'edited');
  assert.is(s.work.json(['tamper', '--range', 'main..topic']).code, 1);
  const push = s.push('topic');
  assert.is(push.code, 1);
  assert.match(push.stderr, '[exit.process]');
  assert.is(
    gate(s.work).layers.tamper.summary,
    'production code the range adds games the test run (1 hit not allowed)',
  );
});

test('an allow row pushed together with the production change is refused by the mixing rule, and does not judge it', () => {
  const s = guardedServer();
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit({ 'src/report.py': 'import os\nos._exit(0)\n' }, 'patch');
  s.work.commit(
    {
      [ALLOW]: 'version: 1\nallow:\n  - path: "src/**"\n    rule: exit.process\n    owner: me\n    reason: trust me\n',
    },
    'allow it myself',
  );
  const push = s.push('topic');
  assert.is(push.code, 1);
  assert.match(push.stderr, /\[mix-range\]/);
  assert.match(push.stderr, /\[exit\.process\]/); // the row on the pushed side counts for nothing
  const together = s.work.json(['tamper', '--range', 'main..topic']);
  assert.is(together.code, 1);
});

test('tamper.mode warn and off, and tamper.rules.disable, are read from the base side', () => {
  for (const [config, code] of [
    ['tamper:\n  mode: warn\n', 0],
    ['tamper:\n  mode: off\n', 0],
    ['tamper:\n  rules:\n    disable: [exit.process]\n', 0],
    ['', 1],
  ] as const) {
    const s = guardedServer(`version: 1\n${config}`);
    s.work.git(['checkout', '-q', '-b', 'topic']);
    // The patch also tries to switch the layer off for itself: the base side's config judges.
    s.work.commit({ 'src/report.py': 'import os\nos._exit(0)\n' }, 'patch');
    const r = s.work.json(['tamper', '--range', 'main..topic']);
    assert.is(r.code, code, `${config}: ${JSON.stringify(r.out)}`);
    if (config.includes('warn')) {
      assert.match(r.stderr, 'tamper warning [exit.process]');
      assert.is(
        gate(s.work).layers.tamper.summary,
        '1 production file with added lines; 1 hit stands, but tamper.mode is warn',
      );
    }
    assert.is(s.push('topic').code, code, config);
  }
});

test('a config or allow file that is not well-formed cannot judge: exit 2 naming the file and line', () => {
  const s = guardedServer('version: 1\ntamper:\n  rules:\n    disable: [no.such.rule]\n');
  s.work.commit({ 'src/a.py': 'x = 1\n' }, 'x');
  const bad = s.work.pw(['tamper', '--commit', 'HEAD']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /tamper\.rules\.disable: "no\.such\.rule" is not one of/);
  const t = guardedServer();
  t.work.commit({ [ALLOW]: 'version: 1\nallow:\n  - path: "src/**"\n    rule: exit.process\n' }, 'half a row');
  t.work.commit({ 'src/a.py': 'import os\nos._exit(0)\n' }, 'patch');
  const r = t.work.pw(['tamper', '--commit', 'HEAD']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /tamper-allow\.yaml:3: an allow row needs `owner`/);
});

test('--staged reads the index; new files count whole; the guard starts a push hook with the layer too', () => {
  const repo = tempRepo();
  repo.commit({ '.patchwarden.yml': 'version: 1\n', 'src/app.py': 'x = 1\n' }, 'base');
  repo.write('src/new.py', 'import sys\nsys.settrace(None)\n');
  repo.write('src/app.py', 'import os\nos._exit(0)\n'); // not staged: not judged
  repo.git(['add', 'src/new.py']);
  const r = repo.json(['tamper', '--staged']);
  assert.is(r.code, 1);
  assert.equal(
    r.out.hits.map((h: { path: string; line: number; rule: string }) => `${h.path}:${h.line} ${h.rule}`),
    ['src/new.py:2 hook.replace'],
  );
  // pre-push: a real push through hooks/pre-push
  const remote = tempRepo({ bare: true });
  repo.git(['remote', 'add', 'origin', remote.dir]);
  repo.git(['commit', '-q', '--no-verify', '-m', 'staged']);
  repo.git(['push', '-q', 'origin', 'HEAD~1:refs/heads/main']);
  repo.git(['fetch', '-q', 'origin']);
  installPrePush(repo);
  const push = repo.git(['push', '-q', 'origin', 'HEAD:refs/heads/main'], { allowFail: true });
  assert.is(push.code, 1, push.stderr);
  assert.match(push.stdout + push.stderr, '[hook.replace]');
});

test('line numbers survive content that looks like diff headers, blank lines, CRLF and no final newline', () => {
  const repo = tempRepo();
  const before =
    'import os\n\nHEADERS = """\ndiff --git a/x b/x\n@@ -1 +1 @@\n--- a/x\n+++ b/x\n"""\n\n\ndef f():\n    return 1\n';
  repo.commit({ '.patchwarden.yml': 'version: 1\n', 'src/h.py': before, 'src/w.py': 'x = 1\r\ny = 2\r\n' }, 'base');
  repo.commit(
    {
      'src/h.py': before.replace('    return 1\n', '    os._exit(0)') + '\n\n\n\n-- \n',
      'src/w.py': 'x = 1\r\nimport sys\r\nsys.settrace(None)\r\ny = 2',
    },
    'patch',
  );
  const r = repo.json(['tamper', '--commit', 'HEAD']);
  assert.equal(
    r.out.hits.map((h: { path: string; line: number; rule: string }) => `${h.path}:${h.line} ${h.rule}`),
    ['src/h.py:12 exit.process', 'src/w.py:3 hook.replace'],
  );
});

test('paths git quotes (quote, newline, non-ASCII, spaces) are read back exactly; links are not source', () => {
  const repo = tempRepo();
  repo.commit({ '.patchwarden.yml': 'version: 1\n', 'src/ok.py': 'x = 1\n' }, 'base');
  const odd = 'src/a b"c\né.py';
  repo.commit({ [odd]: 'import os\nos._exit(0)\n' }, 'odd path');
  repo.git(['rm', '-q', '--cached', '--', odd]); // keep the next commit to the link alone
  const r = repo.json(['tamper', '--commit', 'HEAD']);
  assert.is(r.code, 1);
  assert.equal(
    r.out.hits.map((h: { path: string }) => h.path),
    [odd],
  );
  repo.git(['commit', '-q', '--no-verify', '-m', 'drop it']);
  repo.git([
    'update-index',
    '--add',
    '--cacheinfo',
    `120000,${repo.git(['hash-object', '-w', '--stdin'], { input: 'import os; os._exit(0)' }).stdout.trim()},src/link.py`,
  ]);
  repo.git(['commit', '-q', '--no-verify', '-m', 'a link whose target text looks like code']);
  assert.is(repo.json(['tamper', '--commit', 'HEAD']).code, 0);
});

test('core.ignorecase decides whether a path is in a zone its glob spells in another case', () => {
  const repo = tempRepo();
  repo.commit({ '.patchwarden.yml': 'version: 1\nzones:\n  src: ["SRC/**"]\n' }, 'base');
  repo.commit({ 'src/app.py': 'import os\nos._exit(0)\n', 'SRC/ok.py': 'x = 1\n' }, 'exit');
  repo.git(['config', 'core.ignorecase', 'true']);
  const folded = repo.json(['tamper', '--commit', 'HEAD']);
  assert.is(folded.code, 1);
  assert.equal(
    folded.out.hits.map((h: { path: string; rule: string }) => `${h.path} ${h.rule}`),
    ['src/app.py exit.process'],
  );
  repo.git(['config', 'core.ignorecase', 'false']);
  assert.is(repo.json(['tamper', '--commit', 'HEAD']).code, 0);
});

test.run();
