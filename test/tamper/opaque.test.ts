// Production files the runtime runs but the scan cannot read: compiled and
// native files, a file loaded as code under another extension, Python in
// another encoding. Each is refused with the sha256 of its bytes; an owner's
// row on the base side pins exactly those bytes, and a pinned file that
// changes is judged again.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';

test.after.each(cleanup);

const ALLOW = '.patchwarden/tamper-allow.yaml';
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
/** The first bytes of a CPython 3.11 .pyc (magic, flags, mtime, size), then a marshalled code object's start. */
const PYC = Buffer.from([
  0xa7, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0xe3, 0, 0, 0, 0, 0x0a, 0xff, 0x00,
]);

function repo(): TempRepo {
  const r = tempRepo();
  r.commit({ '.patchwarden.yml': 'version: 1\n', 'src/app.py': 'x = 1\n', 'src/app.js': 'exports.a = 1;\n' }, 'base');
  r.git(['checkout', '-q', '-b', 'topic']);
  return r;
}

type Hit = { path: string; line: number; rule: string; digest: string; text: string; allowed_by?: string };
const tamper = (r: TempRepo) => {
  const out = r.json(['tamper', '--range', 'main..topic']);
  return { ...out, hits: out.out.hits as Hit[] };
};

test('compiled, native and .pth files in src are refused with their sha256', () => {
  const r = repo();
  const files: Record<string, string | Buffer> = {
    'src/_impl.pyc': PYC,
    'src/fast.so': Buffer.from('\x7fELF\x02\x01\x01'),
    'src/addon.node': Buffer.from('\x7fELF'),
    'src/m.wasm': Buffer.from('\0asm\x01\0\0\0'),
    'src/boot.pth': 'import os; os._exit(0)\n',
    'src/bill.py': 'from _impl import *\n',
    'src/data.csv': 'a,b\n',
  };
  r.commit(files, 'patch');
  const t = tamper(r);
  assert.is(t.code, 1, JSON.stringify(t.out));
  const opaque = t.hits.filter((h) => h.rule === 'source.opaque');
  assert.equal(opaque.map((h) => h.path).sort(), [
    'src/_impl.pyc',
    'src/addon.node',
    'src/boot.pth',
    'src/fast.so',
    'src/m.wasm',
  ]);
  for (const h of opaque) assert.is(h.digest, sha(files[h.path]), h.path);
  const text = r.pw(['tamper', '--range', 'main..topic']);
  assert.match(text.stdout, /\[source\.opaque\]/);
  assert.match(text.stdout, /src\/_impl\.pyc {2}\(a \.pyc file, sha256 [0-9a-f]{64}\)/);
  assert.match(text.stdout, /commit the source instead/);
});

test('a file require()d under an extension the scan does not read is refused at that file; one that resolves to .js is not', () => {
  const r = repo();
  r.commit(
    {
      'src/x.dat': 'process.exit(0);\n',
      'src/lib.v2.js': 'exports.b = 2;\n',
      'src/app.js':
        'require("./x.dat");\nconst { b } = require("./lib.v2");\nconst data = require("./table.json");\nrequire("./gone.txt");\n',
    },
    'patch',
  );
  const t = tamper(r);
  assert.is(t.code, 1, JSON.stringify(t.out));
  const opaque = t.hits.filter((h) => h.rule === 'source.opaque');
  assert.equal(
    opaque.map((h) => h.path),
    ['src/x.dat', 'src/gone.txt'],
  );
  assert.is(opaque[0].digest, sha('process.exit(0);\n'));
  assert.match(opaque[0].text, /run as code by src\/app\.js line 1: require\("\.\/x\.dat"\);/);
  assert.match(opaque[1].text, /not in the tree/);
});

test('a require() bound to a name is one hit: the scan reads its chain twice, and recorded the import each time', () => {
  const r = repo();
  r.commit({ 'src/a.dat': 'process.exit(0);\n', 'src/app.js': 'const x = require("./a.dat");\nx.go();\n' }, 'patch');
  const t = tamper(r);
  assert.is(t.code, 1, JSON.stringify(t.out));
  const opaque = t.hits.filter((h) => h.rule === 'source.opaque');
  assert.equal(
    opaque.map((h) => h.path),
    ['src/a.dat'],
  );
  assert.match(opaque[0].text, /run as code by src\/app\.js line 1: const x = require\("\.\/a\.dat"\);/);
  assert.is(r.pw(['tamper', '--range', 'main..topic']).stdout.split('[source.opaque]').length - 1, 1);
});

test('Python in an encoding other than UTF-8 is refused whichever line the change adds', () => {
  const r = repo();
  r.git(['checkout', '-q', 'main']);
  const utf7 = '# -*- coding: utf-7 -*-\ndef total(xs):\n    return sum(xs)\n';
  r.commit(
    { 'src/bill.py': utf7, 'src/ok.py': '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nx = 1\n' },
    'base in utf-7',
  );
  r.git(['checkout', '-q', '-B', 'topic']);
  const patched = utf7 + '# +AAo-import os+AAo-os._exit(0)\n';
  r.commit(
    { 'src/bill.py': patched, 'src/ok.py': '#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nx = 2\n' },
    'patch',
  );
  const t = tamper(r);
  assert.is(t.code, 1, JSON.stringify(t.out));
  assert.equal(
    t.hits.map((h) => `${h.path}:${h.line} ${h.rule}`),
    ['src/bill.py:1 source.opaque'],
  );
  assert.is(t.hits[0].digest, sha(patched));
});

test('an owner pins an opaque file by its sha256 on the base side; other bytes, or a pinned file changed later, are judged again', () => {
  const r = repo();
  r.commit({ 'src/x.dat': 'module.exports = 1;\n', 'src/app.js': 'require("./x.dat");\n' }, 'probe');
  const printed = r.pw(['tamper', '--range', 'main..topic', '--allow-line']);
  assert.is(printed.code, 1);
  assert.match(printed.stdout, `sha256: ${sha('module.exports = 1;\n')}`);
  const row = printed.stdout
    .slice(printed.stdout.indexOf('  - path:'))
    .replace('OWNER', 'platform-team')
    .replace('REASON', 'a generated table, reviewed');
  r.git(['checkout', '-q', 'main']);
  r.commit({ [ALLOW]: `version: 1\nallow:\n${row}` }, 'pin x.dat');
  r.git(['checkout', '-q', '-B', 'topic']);
  r.commit({ 'src/x.dat': 'module.exports = 1;\n', 'src/app.js': 'require("./x.dat");\n' }, 'the reviewed patch');
  const ok = tamper(r);
  assert.is(ok.code, 0, JSON.stringify(ok.out));
  assert.match(ok.hits[0].allowed_by!, ALLOW);
  // Landed; a later change to the pinned file alone (no line loads it anew) is judged by its bytes.
  r.git(['checkout', '-q', 'main']);
  r.git(['merge', '-q', '--ff-only', 'topic']);
  r.git(['checkout', '-q', '-B', 'topic']);
  r.commit({ 'src/x.dat': 'process.exit(0);\n' }, 'swap the bytes');
  const t = tamper(r);
  assert.is(t.code, 1, JSON.stringify(t.out));
  assert.equal(
    t.hits.map((h) => `${h.path} ${h.rule} ${h.allowed_by ?? ''}`),
    ['src/x.dat source.opaque '],
  );
});

test('a source.opaque row without a sha256, or with a line digest, cannot judge', () => {
  for (const row of ['    line: ' + 'a'.repeat(64) + '\n', '']) {
    const r = repo();
    r.git(['checkout', '-q', 'main']);
    r.commit(
      {
        [ALLOW]: `version: 1\nallow:\n  - path: "src/_impl.pyc"\n    rule: source.opaque\n${row}    owner: qa\n    reason: built by us\n`,
      },
      'row',
    );
    r.git(['checkout', '-q', '-B', 'topic']);
    r.commit({ 'src/_impl.pyc': PYC }, 'patch');
    const t = r.pw(['tamper', '--range', 'main..topic']);
    assert.is(t.code, 2, t.stdout + t.stderr);
    assert.match(t.stderr, /a source\.opaque row needs `sha256:`/);
  }
});

test.run();
