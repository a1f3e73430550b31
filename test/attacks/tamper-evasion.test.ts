// The same tactics spelled another way, each pushed for real into a bare
// repository guarded by the pre-receive hook: an alias, an attribute reached
// by a string (escaped, or held in a variable), a destructured binding, a
// call split over lines, a module loaded by name, a report path built in
// another statement. Each push is refused naming the rule and the line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { guardedServer } from '../prereceive/server.js';

test.after.each(cleanup);

/** [what, file, content, rule, line] */
const EVASIONS: [string, string, string, string, number][] = [
  ['an alias', 'src/a.py', 'from os import _exit as done\n\n\ndef f():\n    done(0)\n', 'exit.process', 1],
  [
    'a string-spelled attribute, escaped',
    'src/a.py',
    'import os\n\n\ndef f():\n    getattr(os, "\\x5f\\x65xit")(0)\n',
    'exit.process',
    5,
  ],
  [
    'a name held in a variable',
    'src/a.py',
    'import sys\nWHERE = "stdout"\nsetattr(sys, WHERE, None)\n',
    'hook.replace',
    3,
  ],
  [
    'a module loaded by name',
    'src/a.py',
    'import importlib\nm = importlib.import_module("inspect")\nframes = m.stack()\n',
    'caller.read',
    3,
  ],
  [
    'a destructured binding',
    'src/a.ts',
    'const { exit: leave } = process;\nexport function f() {\n  leave(0);\n}\n',
    'exit.process',
    1,
  ],
  [
    'a call split over lines',
    'src/a.ts',
    'export function f() {\n  process\n    .exit(\n      0,\n    );\n}\n',
    'exit.process',
    2,
  ],
  [
    'a computed member',
    'src/a.ts',
    'export function f() {\n  globalThis["process"]["exit"](0);\n}\n',
    'exit.process',
    2,
  ],
  [
    'a report path built elsewhere',
    'src/a.ts',
    'import * as fs from "node:fs";\nconst out = ["build", "junit.xml"].join("/");\nexport const f = () => fs.writeFileSync(out, "<testsuites/>");\n',
    'report.write',
    2,
  ],
  [
    'a Go exit outside main',
    'src/run.go',
    'package run\n\nimport quit "os"\n\nfunc Run() {\n\tquit.Exit(0)\n}\n',
    'exit.process',
    6,
  ],
];

for (const [what, file, content, rule, line] of EVASIONS) {
  test(`${what}: the push is refused by ${rule} at line ${line}`, () => {
    const s = guardedServer();
    s.work.commit({ [file]: content }, `patch: ${what}`);
    const push = s.push('main');
    assert.is(push.code, 1, push.stderr);
    assert.match(push.stderr, `[${rule}]`);
    assert.match(push.stderr, `${file}  (line ${line}:`);
    const r = s.work.json(['tamper', '--commit', 'HEAD']);
    assert.ok(
      r.out.hits.some((h: { rule: string; line: number }) => h.rule === rule && h.line === line),
      JSON.stringify(r.out.hits),
    );
  });
}

test.run();
