// The rules on source text: each class caught in the spellings the scan
// follows (alias, string-spelled attribute, destructuring, a call over
// several lines, Unicode names and spaces, code inside f-strings and
// templates), and the ordinary code that only resembles a rule left alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hitsIn } from '../../src/tamper/hits.js';
import { langOf } from '../../src/tamper/lang.js';
import { INTEREST, ruleReads } from '../../src/tamper/rules.js';
import { readSource } from '../../src/tamper/scan.js';

const hits = (path: string, text: string, disabled: string[] = []) =>
  hitsIn(path, text, langOf(path)!, null, new Set(disabled)).map((h) => `${h.line} ${h.rule}`);

/** [file, source, expected "line rule" hits] */
const CASES: [string, string, string[]][] = [
  // ending the process / hooking its exit
  ['src/a.py', 'import os\nos._exit(0)\n', ['2 exit.process']],
  ['src/a.py', 'import os as o\no._exit(0)\n', ['2 exit.process']],
  ['src/a.py', 'from os import _exit as leave\n\ndef f():\n    leave(0)\n', ['1 exit.process', '4 exit.process']],
  ['src/a.py', 'import os\ngetattr(os, "_exit")(0)\n', ['2 exit.process']],
  ['src/a.py', 'import os\nname = "_exit"\ngetattr(os, name)(0)\n', ['3 exit.process']],
  ['src/a.py', 'import os\ngetattr(os, "\\x5fexit")(0)\n', ['2 exit.process']],
  ['src/a.py', 'import importlib\nimportlib.import_module("os")._exit(\n    0,\n)\n', ['2 exit.process']],
  ['src/a.py', '__import__("os")._exit(0)\n', ['1 exit.process']],
  ['src/a.py', 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n', ['2 exit.process']],
  ['src/a.py', 'import os, signal\nos.kill(child_pid, signal.SIGTERM)\n', []],
  ['src/a.py', 'import sys\ndef load():\n    sys.exit(1)\n', ['3 exit.library']],
  ['src/a.py', 'def load():\n    raise SystemExit(0)\n', ['2 exit.library']],
  ['src/a.py', 'try:\n    run()\nexcept SystemExit:\n    pass\n', []],
  ['src/a.py', 'import sys\nif __name__ == "__main__":\n    sys.exit(main())\n', []],
  ['src/a.py', 'import sys\ndef main():\n    sys.exit(0)\n', []],
  ['src/pkg/__main__.py', 'import sys\nsys.exit(run())\n', []],
  ['src/a.py', 'import atexit\natexit.register(rewrite)\n', ['2 exit.hook']],
  ['src/a.py', 'from atexit import register as later\nlater(rewrite)\n', ['1 exit.hook', '2 exit.hook']],
  ['src/a.ts', 'process.exit(0);\n', ['1 exit.process']],
  ['src/a.ts', 'const { exit } = process;\nexport const f = () => exit(0);\n', ['1 exit.process', '2 exit.process']],
  ['src/a.ts', 'const { exit: quit } = require("node:process");\nquit(0);\n', ['1 exit.process', '2 exit.process']],
  ['src/a.ts', 'import proc from "node:process";\nproc\n  .exit(0);\n', ['2 exit.process']],
  ['src/a.ts', 'import { exit as bye } from "process";\nbye(0);\n', ['1 exit.process', '2 exit.process']],
  [
    'src/a.ts',
    'process["exit"](0);\nglobalThis.process.exit(1);\nReflect.get(process, "exit")(2);\n',
    ['1 exit.process', '2 exit.process', '3 exit.process'],
  ],
  ['src/a.ts', 'process.on("exit", () => rewrite());\n', ['1 exit.hook']],
  ['src/a.ts', 'process.exitCode = 0;\n', ['1 exit.hook']],
  ['src/a.ts', 'child.on("exit", (code) => done(code));\nserver.on("close", stop);\n', []],
  ['src/a.ts', 'const s = "process.exit(0)"; // process.exit(0)\n/* process.exit(0) */\n', []],
  ['src/a.go', 'package lib\n\nimport "os"\n\nfunc Run() {\n\tos.Exit(0)\n}\n', ['6 exit.process']],
  ['src/main.go', 'package main\n\nimport "os"\n\nfunc main() {\n\tos.Exit(run())\n}\n', []],
  ['src/A.java', 'class A {\n  void f() {\n    System.exit(0);\n  }\n}\n', ['3 exit.process']],
  ['src/A.java', 'class A {\n  public static void main(String[] args) {\n    System.exit(run());\n  }\n}\n', []],
  // the test framework from production code
  ['src/a.py', 'import pytest\n', ['1 framework.import']],
  ['src/a.py', 'from _pytest import runner as r\n', ['1 framework.import']],
  ['src/a.py', 'import unittest.mock\n', ['1 framework.import']],
  ['src/a.py', 'def pytest_runtest_makereport(item, call):\n    pass\n', ['1 framework.import']],
  ['src/conftest.py', 'x = 1\n', ['1 framework.import']],
  ['src/a.ts', 'import { test } from "node:test";\n', ['1 framework.import']],
  ['src/a.ts', 'const { expect } = require("@jest/globals");\n', ['1 framework.import']],
  ['src/a.ts', 'const v = await import("vitest");\n', ['1 framework.import']],
  ['src/a.go', 'package lib\n\nimport (\n\tt "testing"\n)\n', ['4 framework.import']],
  ['src/a_test.go', 'package lib\n\nimport "testing"\n', []],
  ['src/A.java', 'import org.junit.Assert;\nclass A {}\n', ['1 framework.import']],
  // sniffing the test environment
  ['src/a.py', 'import os\nif os.environ.get("PYTEST_CURRENT_TEST"):\n    x = 1\n', ['2 env.sniff']],
  ['src/a.py', 'import sys\nif "pytest" in sys.modules:\n    x = 1\n', ['2 env.sniff']],
  ['src/a.py', 'import os, random\nknown = random.Random(int(os.environ["PROP_SEED"]))\n', ['2 env.sniff']],
  ['src/a.ts', 'const seed = Number(process.env.PROP_SEED);\n', ['1 env.sniff']],
  ['src/a.py', 'import sys\nif "requests" in sys.modules:\n    x = 1\n', []],
  ['src/a.ts', 'if (process.env.NODE_ENV === "test") x = 1;\n', ['1 env.sniff']],
  ['src/a.ts', 'const { NODE_ENV } = process.env;\nif (\n  NODE_ENV == "test"\n) x = 1;\n', ['3 env.sniff']],
  ['src/a.ts', 'if (process.env.NODE_ENV === "production") x = 1;\n', []],
  // the string that names the test environment spelled with an escape, or in a statement of many strings
  ['src/a.ts', 'if (process.env.NODE_ENV === "\\x74est") x = 1;\n', ['1 env.sniff']],
  ['src/a.ts', 'const m = "a" + process.argv[2] + "b" + ("c", "vitest");\n', ['1 env.sniff']],
  ['src/a.py', 'import sys\nif "\\x70ytest" in sys.modules:\n    x = 1\n', ['2 env.sniff']],
  // the string that names the test environment first or last in its statement
  [
    'src/a.js',
    '"test" === process.env.NODE_ENV && run();\nconst t = process.env.NODE_ENV === "test";\n',
    ['1 env.sniff', '2 env.sniff'],
  ],
  [
    'src/a.ts',
    'if (process.env.JEST_WORKER_ID) x = 1;\nif (process.env.VITEST) x = 2;\nif (process.env.NODE_TEST_CONTEXT) x = 3;\n',
    ['1 env.sniff', '2 env.sniff', '3 env.sniff'],
  ],
  ['src/a.ts', 'if (typeof jest !== "undefined") x = 1;\n', ['1 env.sniff']],
  ['src/a.ts', 'const junit = process.env.PATCHWARDEN_JUNIT;\n', ['1 env.sniff']],
  ['src/a.go', 'package lib\n\nimport "flag"\n\nvar testing = flag.Lookup("test.v") != nil\n', ['5 env.sniff']],
  // reading the caller
  ['src/a.py', 'import inspect\ncaller = inspect.stack()[1]\n', ['2 caller.read']],
  ['src/a.py', 'import sys\nf = sys._getframe(1)\n', ['2 caller.read']],
  ['src/a.py', 'from inspect import currentframe as cf\nback = cf().f_back\n', ['1 caller.read', '2 caller.read']],
  ['src/a.py', 'import traceback as tb\nstack = tb.extract_stack()\n', ['2 caller.read']],
  ['src/a.ts', 'const where = new Error().stack;\n', ['1 caller.read']],
  ['src/a.ts', 'const where = (new Error).stack;\n', ['1 caller.read']],
  ['src/a.ts', 'const o = {};\nError.captureStackTrace(o);\n', ['2 caller.read']],
  [
    'src/a.ts',
    'class E extends Error {\n  constructor() {\n    super();\n    Error.captureStackTrace(this, E);\n  }\n}\n',
    [],
  ],
  ['src/a.ts', 'function log(err) {\n  console.error(err.stack);\n}\n', []],
  [
    'src/a.go',
    'package lib\n\nimport "runtime"\n\nfunc F() {\n\t_, file, _, _ := runtime.Caller(1)\n\t_ = file\n}\n',
    ['6 caller.read'],
  ],
  [
    'src/A.java',
    'class A {\n  void f() {\n    var s = Thread.currentThread().getStackTrace();\n  }\n}\n',
    ['3 caller.read'],
  ],
  // replacing process-wide hooks and streams
  ['src/a.py', 'import sys\nsys.stdout = Forged()\n', ['2 hook.replace']],
  ['src/a.py', 'import sys\nsetattr(sys, "stdout", Forged())\n', ['2 hook.replace']],
  ['src/a.py', 'import sys\nsys.settrace(spy)\n', ['2 hook.replace']],
  ['src/a.py', 'import builtins\nbuiltins.print = quiet\n', ['2 hook.replace']],
  ['src/a.py', 'import sys\nsys.modules["requests"] = fake\n', ['2 hook.replace']],
  ['src/a.py', 'import sys\nout = sys.stdout\nprint("x", file=sys.stdout)\n', []],
  ['src/a.ts', 'Object.prototype.toJSON = () => ({});\n', ['1 hook.replace']],
  ['src/a.ts', 'Object.defineProperty(Object.prototype, "then", { value: 1 });\n', ['1 hook.replace']],
  ['src/a.ts', 'globalThis.fetch = fake;\n', ['1 hook.replace']],
  ['src/a.ts', 'process.stdout.write = () => true;\n', ['1 hook.replace']],
  ['src/a.ts', 'Foo.prototype.bar = function () {};\nconst g = globalThis.fetch;\n', []],
  ['src/A.java', 'class A {\n  static { System.setOut(null); }\n}\n', ['2 hook.replace']],
  // comparison that cannot fail
  ['src/a.py', 'class A:\n    def __eq__(self, other):\n        """Equal."""\n        return True\n', ['2 eq.always']],
  ['src/a.py', 'class A:\n    def __ne__(self, other): return False\n', ['2 eq.always']],
  ['src/a.py', 'class A:\n    __eq__ = lambda self, other: True\n', ['2 eq.always']],
  [
    'src/a.py',
    'class A:\n    def __eq__(self, other):\n        if not isinstance(other, A):\n            return NotImplemented\n        return self.x == other.x\n',
    [],
  ],
  [
    'src/a.py',
    'class A:\n    def __eq__(self, other):\n        if type(other) is not A:\n            return False\n        return True\n',
    [],
  ],
  ['src/a.ts', 'export const anything = { asymmetricMatch: () => true };\n', ['1 eq.always']],
  ['src/A.java', 'class A {\n  @Override public boolean equals(Object o) { return true; }\n}\n', ['2 eq.always']],
  ['src/A.java', 'class A {\n  @Override public boolean equals(Object o) { return o instanceof A; }\n}\n', []],
  // writing report-shaped files
  ['src/a.py', 'with open("build/junit.xml", "w") as f:\n    f.write(forged)\n', ['1 report.write']],
  [
    'src/a.py',
    'import os\nreport = os.path.join(out, "results.xml")\nopen(\n    report,\n    mode="w",\n)\n',
    ['3 report.write'],
  ],
  ['src/a.py', 'with open("settings.xml") as f:\n    cfg = f.read()\n', []],
  ['src/a.ts', 'import { writeFileSync as w } from "node:fs";\nw("reports/TEST-all.xml", xml);\n', ['2 report.write']],
  ['src/a.ts', 'const doc = parse(readFileSync("pom.xml", "utf8"));\n', []],
  // what the scan cannot read
  ['src/a.py', '# -*- coding: latin-1 -*-\nx = 1\n', ['1 source.opaque']],
  ['src/a.py', '#!/usr/bin/env python\n# vim: set fileencoding=utf-7 :\nx = 1\n', ['2 source.opaque']],
  ['src/a.py', 'x = 1\n# coding: utf-7\n', []],
  ['src/a.py', '# coding: utf-8\nx = 1\n', []],
  ['src/a.py', '# -*- coding: UTF8 -*-\nx = 1\n', []],
  [
    'src/a.js',
    'require("./x.dat");\nrequire("./y.json");\nrequire("./z");\nimport w from "../w.wasm";\nrequire("lodash.merge");\n',
    ['1 source.opaque', '4 source.opaque'],
  ],
  // what the runtime reads: Unicode names and spaces, code inside strings
  ['src/a.py', 'import os\nos._\uff45xit(0)\n', ['2 exit.process']],
  ['src/a.py', 'import \uff4fs\n\uff4fs.abort()\n', ['2 exit.process']],
  ['src/a.py', 'import os\nx = f"{os._exit(0)}"\n', ['2 exit.process']],
  ['src/a.py', 'import os\nx = f"""\n{  os._exit(\n 0) !r:>{width}}"""\n', ['3 exit.process']],
  ['src/a.py', 'import os\nx = f"{x=}{{os._exit(0)}}"\n', []],
  ['src/a.py', 'import os\nx = t"{os.abort()}"\n', ['2 exit.process']],
  ['src/a.py', 'import os\n# note\ros._exit(0)\n', ['2 exit.process']],
  ['src/a.py', 'import os\nx = rf"\\{os._exit(0)}"\ny = f"\\{os.abort()}"\n', ['2 exit.process', '3 exit.process']],
  ['src/a.py', 'import os\nx = f"\\N{EM DASH}{os._exit(0)}"\ny = r"\\\\" + "os._exit(0)"\n', ['2 exit.process']],
  ['src/a.ts', 'const s = `\\N{${process.exit(0)}}`;\nconst t = `\\${process.exit(0)}`;\n', ['1 exit.process']],
  ['src/a.ts', 'process.\\u0065xit(0);\n', ['1 exit.process']],
  ['src/a.ts', '\\u{70}rocess["exit"](0);\n', ['1 exit.process']],
  ['src/a.ts', 'const s = `${process.exit(0)}`;\n', ['1 exit.process']],
  ['src/a.ts', 'const s = `a${`b${process.exit(0)}`}c`;\n', ['1 exit.process']],
  ['src/a.ts', 'const s = `${"}"}`;\nprocess.exit(0);\n', ['2 exit.process']],
  ['src/a.ts', 'process\u00a0.exit\u2003(0);\n', ['1 exit.process']],
  ['src/a.ts', '// note\u2028process.exit(0);\n', ['1 exit.process']],
  ['src/a.ts', 'const q = a.in / process.exit(0) / 2;\n', ['1 exit.process']],
  ['src/a.js', 'if (a) /"/.test(b); process.exit(0); //"\n', ['1 exit.process']],
  ['src/a.jsx', "export const A = () => <p>Don't {process.exit(0)}</p>;\n", ['1 exit.process']],
  ['src/a.tsx', 'export const A = () => <p>see http://x.org {process.exit(0)}</p>;\n', ['1 exit.process']],
  ['src/a.js', 'function f() {}\n/"/.test(b); process.exit(0); //"\n', ['2 exit.process']],
  ['src/a.js', 'const x = {} / "abc"; process.exit(0); "/";\n', ['1 exit.process']],
  ['src/a.js', 'const s = "abc\\\r\n", process.exit(0);\n', ['2 exit.process']],
  ['src/A.java', 'class A {\n  // \\u000a System.exit(0);\n}\n', ['2 exit.process']],
  // the same module under other names, the same members reached other ways
  ['src/a.py', 'import posix\nposix._exit(0)\n', ['2 exit.process']],
  ['src/a.py', 'from nt import _exit as e\ne(0)\n', ['1 exit.process', '2 exit.process']],
  ['src/a.py', 'import sys\nsys.modules["os"]._exit(0)\n', ['2 exit.process']],
  ['src/a.py', 'import os\nvars(os)["_exit"](0)\nos.__dict__["abort"]()\n', ['2 exit.process', '3 exit.process']],
  ['src/a.py', 'from os import *\nabort()\n', ['2 exit.process']],
  [
    'src/a.ts',
    'const p = (await import("node:process")).default;\np.exit(0);\n(await import("node:process")).default.exit(1);\n',
    ['2 exit.process', '3 exit.process'],
  ],
  [
    'src/a.ts',
    'Object.getPrototypeOf(process).exit(0);\nprocess.__proto__.reallyExit(0);\n',
    ['1 exit.process', '2 exit.process'],
  ],
  ['src/a.ts', 'process.binding("process_methods").reallyExit(0);\n', ['1 exit.process']],
  ['src/a.ts', 'process.kill(0, "SIGKILL");\nprocess.kill(child.pid);\n', ['1 exit.process']],
  // more exits and exit hooks
  ['src/a.py', 'import os\nos.kill(0, 9)\nos.killpg(os.getpgrp(), 9)\n', ['2 exit.process', '3 exit.process']],
  ['src/a.py', 'import os\npid = os.getpid()\nos.kill(pid, 9)\n', ['3 exit.process']],
  [
    'src/a.py',
    'import ctypes\nctypes.CDLL(None)._exit(0)\nlibc = ctypes.CDLL("libc.so.6")\nlibc.exit(0)\n',
    ['2 exit.process', '4 exit.process'],
  ],
  ['src/a.py', 'import ctypes\nbuf = ctypes.create_string_buffer(8)\n', []],
  ['src/a.py', 'import _thread\n_thread.interrupt_main()\n', ['2 exit.process']],
  ['src/a.py', 'import weakref\nweakref.finalize(obj, rewrite)\n', ['2 exit.hook']],
  ['src/a.py', 'import threading\nthreading._register_atexit(rewrite)\n', ['2 exit.hook']],
  ['src/a.py', 'import signal\nsignal.signal(signal.SIGTERM, rewrite)\n', ['2 exit.hook']],
  ['src/a.py', 'import signal, sys\ndef main():\n    signal.signal(signal.SIGINT, lambda *a: sys.exit(130))\n', []],
  // environment scans, tracing
  ['src/a.py', 'import os\nif any(k.startswith("PYTEST") for k in os.environ):\n    x = 1\n', ['2 env.sniff']],
  ['src/a.py', 'import os\nif any("pytest" in k.lower() for k in os.environ):\n    x = 1\n', ['2 env.sniff']],
  ['src/a.py', 'import threading\nthreading.settrace_all_threads(spy)\n', ['2 hook.replace']],
  ['src/a.py', 'import sys\nsys.monitoring.use_tool_id(3, "x")\n', ['2 hook.replace']],
  // rewriting other code in memory
  ['src/a.py', 'import gc\nfor o in gc.get_objects():\n    pass\n', ['2 code.swap']],
  [
    'src/a.py',
    'def f():\n    pass\ntarget.__code__ = f.__code__\nsetattr(target, "__globals__", {})\n',
    ['3 code.swap', '4 code.swap'],
  ],
  ['src/a.py', 'import gc\ngc.collect()\ncode = f.__code__\n', []],
  // comparisons that do not look at their argument
  ['src/a.py', 'class A:\n    def __eq__(self, other):\n        return (True)\n', ['2 eq.always']],
  ['src/a.py', 'class A:\n    def __eq__(self, other):\n        return 1\n', ['2 eq.always']],
  ['src/a.py', 'class A:\n    def __eq__(self, other):\n        return not None\n', ['2 eq.always']],
  ['src/a.py', 'class A:\n    def __eq__(self, other):\n        x = self.x\n        return x == x\n', ['2 eq.always']],
  [
    'src/a.py',
    'class A:\n    def __eq__(self, other):\n        return NotImplemented\n    def __ne__(self, other):\n        raise TypeError("no")\n',
    [],
  ],
  ['src/a.py', 'class A:\n    __eq__ = lambda s, o: 1\n', ['2 eq.always']],
  ['src/a.py', 'def same(a, b):\n    return True\nclass A:\n    __eq__ = same\n', ['4 eq.always']],
  ['src/a.py', 'A = type("A", (), {"__eq__": lambda s, o: not None})\n', ['1 eq.always']],
  ['src/a.ts', 'class A {\n  equals(other: A): boolean {\n    return 1 === 1;\n  }\n}\n', ['2 eq.always']],
  [
    'src/a.ts',
    'class A {\n  equals(other: A): boolean {\n    return this.id === other.id;\n  }\n}\nif (a.equals(b)) { return true; }\n',
    [],
  ],
  [
    'src/a.ts',
    'class A {\n  static [Symbol.hasInstance](x) { return true; }\n  [Symbol.toPrimitive]() { return 3; }\n}\n',
    ['2 eq.always', '3 eq.always'],
  ],
  ['src/A.java', 'class A {\n  public boolean equals(Object o) { return this == this; }\n}\n', ['2 eq.always']],
];

for (const [file, source, expected] of CASES) {
  test(`${file}: ${JSON.stringify(
    source
      .split('\n')
      .find((l) => l.trim() && !/^(import|from|package|class)\b/.test(l))
      ?.trim() ?? source.trim(),
  )} -> ${expected.join(', ') || 'no hit'}`, () => {
    assert.equal(hits(file, source), expected);
  });
}

test('only added lines count; a match over several lines counts when any of its lines is added', () => {
  const src = 'import os\n\ndef f():\n    os._exit(\n        0)\n';
  assert.equal(hitsIn('src/a.py', src, 'python', new Set([1, 2]), new Set()).length, 0);
  assert.equal(
    hitsIn('src/a.py', src, 'python', new Set([5]), new Set()).map((h) => h.line),
    [5],
  );
});

test('tamper.rules.disable switches a rule off', () => {
  assert.equal(hits('src/a.py', 'import os\nos._exit(0)\nimport pytest\n', ['exit.process']), ['3 framework.import']);
});

test('each hit carries the line text, its sha256 and one sentence of why', () => {
  const [h] = hitsIn('src/a.py', 'import os\n   os._exit(0)  \n', 'python', null, new Set());
  assert.is(h.text, 'os._exit(0)');
  assert.match(h.digest, /^[0-9a-f]{64}$/);
  assert.match(h.why, /ends the process/);
});

test('files of other types are not read', () => {
  assert.is(langOf('src/data.json'), null);
  assert.is(langOf('src/Makefile'), null);
  assert.is(langOf('src/x.TSX'), 'js');
});

test('a chain told unread from its tokens or its parts is one no rule reads: the references kept are the same', () => {
  const refsOf = (path: string, text: string, told: boolean) =>
    readSource(text, langOf(path)!, path, ruleReads, told ? INTEREST : undefined).refs.map(
      (r) => `${r.start} ${r.path} ${r.raw}`,
    );
  const texts: [string, string][] = [
    ['src/a.js', 'const x = require("fs"); x.writeFileSync("r.xml", d); globalThis.process.exit(0);'],
    ['src/a.js', 'const w = out.stream.__proto__; w.write(d)(); a.b.default.write(1); o["a.write"](); o[k].dump()();'],
    ['src/a.js', 'f.constructor.prototype.write(1); self["process"].exit(); obj.x.y = 1; fn.__code__ = g;'],
    [
      'src/a.py',
      'import posix as p\np._exit(0)\n__builtins__.open("x", "w")\nos.__dict__["_exit"](0)\nio.open("r.xml")\n',
    ],
    ['src/a.py', 'from pathlib import Path\nPath("r.xml").write_text(x)\nf.__code__ = g.__code__\nq.r.s()\n'],
    // aliases: a bound head, a writer or a special call reached through a name, a string held in a name
    ['src/a.js', 'const w = f.write; w(d); const p = process; p.exit(0); const k = "exit"; o[k](); q[k].z();'],
    ['src/a.js', 'const { get } = Reflect; get(process, "exit")(0); const d = Object; d.defineProperty(g, "x", {});'],
    ['src/a.js', 'const m = require("x.write"); m(); require("./a").b.c; f(process); a!.b.write(1); a?.(1).dump();'],
    ['src/a.js', 'x.y["__code__"] = 1; x.__globals__ = 2; o.constructor.z(); e.default(); v.__proto__.w; n = 5;'],
    ['src/a.js', 'const \\u0077 = f.\\u0077rite; \\u0077(1); o.\\u0064efault.exit(); ｅ.x(); (0, a.b)(c);'],
    [
      'src/a.py',
      'g = getattr\ng(os, "_exit")(0)\nw = f.write\nw(x)\nn = "_exit"\nos.__dict__[n](0)\nsys.modules["os"]._exit(0)\n',
    ],
    ['src/a.py', 'import os as ｏ\nｏ._exit(0)\nx.__code__ = 1\nv = vars(os)\nv["_exit"](0)\ndef __code__(): pass\n'],
    ['src/a.py', 'from os import *\n_exit(0)\nq.write(1)\n'],
    // a name that decodes to more than a word; a bare name that holds a call's result
    ['src/a.js', 'process\\u002eexit(0); const s = out.createWriteStream(p); use(s); const m = require("./m"); m.x;'],
    ['src/a.py', 'os\u2024_exit(0)\nh = f.write_text(x)\nprint(h)\nw = f.write.__dict__\nw(1)\n'],
    [
      'src/a.js',
      'process\\u002eexitCode = 1; f(process\\u002eargv); a.b\\u002ewrite(1); a.b\\u002e__code__ = 1; const q = o.write.__proto__; q();',
    ],
    // what a setter call writes: kept by its first name, by the name it writes, or not at all
    [
      'src/a.js',
      'Object.defineProperty(process, "exitCode", { value: 0 }); Reflect.set(f, "__code__", g); Object.assign(process.env, e); Object.defineProperty(exports, "d0", { value: 1 });',
    ],
    [
      'src/a.py',
      'setattr(f, "__code__", g)\nobject.__setattr__(sys, "exit", h)\nsetattr(obj, "x", 1)\nsetattr(t, k, v)\n',
    ],
  ];
  for (const [path, text] of texts)
    assert.equal(refsOf(path, text, true), refsOf(path, text, false), `${path}: ${text}`);
});

test('a name is bound however its assignment is spelled: the walk notes each token a binding can start at', () => {
  const cases: [string, string, string[]][] = [
    ['src/a.py', 'import os\nif (leave := os._exit):\n    leave(0)\n', ['2 exit.process', '3 exit.process']],
    ['src/a.py', 'import os\nleave: object = os._exit\nleave(0)\n', ['2 exit.process', '3 exit.process']],
    // a keyword argument binds nothing
    ['src/a.py', 'import os\nrun(p, mode=os._exit)\nmode(0)\n', ['2 exit.process']],
    // a stray closer leaves the depth at 0
    ['src/a.py', 'import os\n)\nleave = os._exit\nleave(0)\n', ['3 exit.process', '4 exit.process']],
    ['src/a.ts', 'const leave: Function = process.exit;\nleave(0);\n', ['1 exit.process', '2 exit.process']],
    ['src/a.js', 'let { exit } = process;\nexit(0);\n', ['1 exit.process', '2 exit.process']],
    ['src/a.js', 'export { test } from "node:test";\n', ['1 framework.import']],
    [
      'src/a.go',
      'package lib\n\nfunc f() {\n\tleave := os.Exit\n\tleave(0)\n}\n',
      ['4 exit.process', '5 exit.process'],
    ],
  ];
  for (const [path, text, want] of cases) assert.equal(hits(path, text), want, `${path}: ${text}`);
});

test('a bracket closed more than 65,535 tokens after it still closes there: the chain goes on after it', () => {
  // Two tokens an argument: 40,000 of them put the `)` 80,001 tokens after its `(`, past what the pairs keep in two bytes.
  for (const args of [100, 40_000]) {
    const text = `out.stream(${'0, '.repeat(args)}0).writeFileSync("report.xml", d);\n`;
    assert.equal(hits('src/a.js', text), ['1 report.write'], `${args} arguments`);
  }
});

test.run();
