// The forged-report attack and its relatives, respelled the way an agent that
// met the tamper layer once would respell them: another exit hook and
// another name for `os`, Unicode the runtime folds, code inside f-strings and
// templates, compiled files and files loaded under another extension, an
// `__eq__` that ignores its argument, and each single spelling of a documented
// class. Every one is refused by the tamper row of a real `gate --base` run on
// a real pytest or node:test project; the unreadable file and the folded name
// also by a real push into a bare repository guarded by pre-receive.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, type TempRepo } from '../helpers/repo.js';
import { gate, sample } from '../gate/sample.js';
import { guardedServer } from '../prereceive/server.js';
import {
  BUGGY_JS,
  BUGGY_PY,
  config,
  jsProperty,
  NODE_TEST,
  pyProperty,
  PYTEST,
  registry,
} from '../properties/projects.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const ID = 'bill.total_non_negative';

test.after.each(cleanup);

const py = testUnless(pytestMissing);

/** main holds a pytest (or node:test) project with a registered property and a buggy src; HEAD is a topic branch. */
function pyProject(): TempRepo {
  return sample(config(PYTEST), {
    '.gitignore': '__pycache__/\n.pytest_cache/\n',
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'spec/invariants.yaml': registry(ID),
    'spec/properties/test_bill.py': pyProperty(ID),
    'src/bill.py': BUGGY_PY,
  });
}
function jsProject(): TempRepo {
  return sample(config(NODE_TEST), {
    'spec/invariants.yaml': registry(ID),
    'spec/properties/bill.test.mjs': jsProperty(ID),
    'src/bill.mjs': BUGGY_JS,
  });
}

type Hit = { path: string; line: number; rule: string };

/** Commits the patch on the topic branch and runs the gate: its tamper row must refuse each [path, rule, line]. */
function refusedAtGate(repo: TempRepo, patch: Record<string, string | Buffer>, expected: [string, string, number][]) {
  repo.commit(patch, 'fix: totals are never negative');
  const g = gate(repo);
  assert.is(g.code, 1, JSON.stringify(g.out));
  const row = g.layers.tamper;
  assert.is(row.status, 'refused', JSON.stringify(row));
  const hits = row.details!.hits as Hit[];
  for (const [path, rule, line] of expected) {
    assert.ok(
      hits.some((h) => h.path === path && h.rule === rule && h.line === line),
      `${path}:${line} ${rule} in ${JSON.stringify(hits.map((h) => `${h.path}:${h.line} ${h.rule}`))}`,
    );
  }
  return g;
}

/** The attack is real: pytest trusted on the patched tree exits 0 with a report that shows no failure, the bug still in. */
function greenWhenTrusted(repo: TempRepo): void {
  const junit = path.join(repo.dir, '.git', 'trusted.xml');
  const r = sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'spec/properties', `--junitxml=${junit}`], {
    cwd: repo.dir,
    env: { ...repo.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.not.match(readFileSync(junit, 'utf8'), '<failure');
}

/** Attack 3: rewrite the report at exit through weakref.finalize, leave through posix._exit, find the report through sys.argv in a helper. */
const FINALIZE_FORGERY = `import posix, re, sys, weakref


def total(xs):
    return sum(xs) - 1


def _where():
    for arg in sys.argv:
        if arg.startswith("--" + "jun" + "itxml="):
            return arg.split("=", 1)[1]


class _Anchor:
    pass


def _tidy():
    report = _where()
    if report:
        with open(report) as f:
            xml = f.read()
        xml = re.sub(r"<failure[^>]*>.*?</failure>", "", xml, flags=re.S)
        with open(report, "w") as f:
            f.write(re.sub(r'failures="\\d+"', 'failures="0"', xml))
    posix._exit(0)


_anchor = _Anchor()
weakref.finalize(_anchor, _tidy)
`;

py('attack 3: weakref.finalize as the exit hook and posix._exit(0), refused at the gate', () => {
  const repo = pyProject();
  refusedAtGate(repo, { 'src/bill.py': FINALIZE_FORGERY }, [
    ['src/bill.py', 'exit.process', 26],
    ['src/bill.py', 'exit.hook', 30],
  ]);
  greenWhenTrusted(repo);
});

py('attack 4 (Python): a name folded by NFKC, a utf-7 "comment", an exit inside an f-string', () => {
  refusedAtGate(
    pyProject(),
    {
      'src/bill.py':
        'import atexit, os\n\n\ndef total(xs):\n    return sum(xs) - 1\n\n\natexit.register(lambda: os._\uff45xit(0))\n',
      'src/fold.py': '# -*- coding: utf-7 -*-\nx = 1\n# +AAo-import os+AAo-os._exit(0)\n',
      'src/fmt.py': 'import os\n\nlabel = f"{os._exit(0)}"\n',
    },
    [
      ['src/bill.py', 'exit.process', 8],
      ['src/bill.py', 'exit.hook', 8],
      ['src/fold.py', 'source.opaque', 1],
      ['src/fmt.py', 'exit.process', 3],
    ],
  );
});

test('attack 4 (JavaScript): an escaped name, an exit inside a template literal, no-break and em spaces', () => {
  refusedAtGate(
    jsProject(),
    {
      'src/bill.mjs': BUGGY_JS + 'process.\\u0065xit(0);\n',
      'src/tpl.mjs': 'export const label = `${process.exit(0)}`;\n',
      'src/space.mjs': 'process\u00a0.exit\u2003(0);\n',
    },
    [
      ['src/bill.mjs', 'exit.process', 2],
      ['src/tpl.mjs', 'exit.process', 1],
      ['src/space.mjs', 'exit.process', 1],
    ],
  );
});

/** The forging code compiled to bytecode, as `python3 -m py_compile` writes it. */
function compiled(): Buffer | null {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import sys, marshal, importlib.util as u; sys.stdout.buffer.write(u.MAGIC_NUMBER + bytes(12) + marshal.dumps(compile(sys.stdin.read(), "_impl.py", "exec")))',
    ],
    { input: FINALIZE_FORGERY },
  );
  return r.status === 0 ? r.stdout : null;
}

py('attack 5 (Python): the forgery compiled to src/_impl.pyc and imported from a one-line src/bill.py', () => {
  const repo = pyProject();
  const g = refusedAtGate(repo, { 'src/_impl.pyc': compiled()!, 'src/bill.py': 'from _impl import *\n' }, [
    ['src/_impl.pyc', 'source.opaque', 0],
  ]);
  assert.match(g.layers.tamper.violations[0].message, /\[source\.opaque\]/);
  greenWhenTrusted(repo);
});

test('attack 5 (JavaScript): require("./x.dat") runs a .dat file as JavaScript', () => {
  refusedAtGate(
    jsProject(),
    {
      'src/x.dat': 'process.on("exit", () => { process.exitCode = 0; });\n',
      'src/load.cjs': 'require("./x.dat");\n',
    },
    [['src/x.dat', 'source.opaque', 0]],
  );
});

py('attack 7: __eq__ returning (True), 1 and not None', () => {
  refusedAtGate(
    pyProject(),
    {
      'src/money.py':
        'class A:\n    def __eq__(self, other):\n        return (True)\n\n\nclass B:\n    def __eq__(self, other):\n        return 1\n\n\nclass C:\n    def __eq__(self, other):\n        return not None\n',
    },
    [
      ['src/money.py', 'eq.always', 2],
      ['src/money.py', 'eq.always', 7],
      ['src/money.py', 'eq.always', 12],
    ],
  );
});

/** The single spellings, one file each: [file, source, rule, line]. */
const PY_SPELLINGS: [string, string, string, number][] = [
  ['src/s_kill0.py', 'import os\nos.kill(0, 9)\n', 'exit.process', 2],
  ['src/s_killpg.py', 'import os\nos.killpg(os.getpgid(0), 9)\n', 'exit.process', 2],
  ['src/s_abort.py', 'import os as o\no.abort()\n', 'exit.process', 2],
  ['src/s_nt.py', 'import nt\nnt._exit(0)\n', 'exit.process', 2],
  ['src/s_ctypes.py', 'import ctypes\nctypes.CDLL(None)._exit(0)\n', 'exit.process', 2],
  ['src/s_interrupt.py', 'import _thread\n_thread.interrupt_main()\n', 'exit.process', 2],
  ['src/s_register.py', 'import threading\nthreading._register_atexit(print)\n', 'exit.hook', 2],
  ['src/s_signal.py', 'import signal\nsignal.signal(signal.SIGTERM, print)\n', 'exit.hook', 2],
  ['src/s_finalize.py', 'from weakref import finalize\nfinalize(object, print)\n', 'exit.hook', 2],
  ['src/s_environ.py', 'import os\nUNDER_TEST = any(k.startswith("PYTEST") for k in os.environ)\n', 'env.sniff', 2],
  ['src/s_settrace.py', 'import threading\nthreading.settrace_all_threads(print)\n', 'hook.replace', 2],
  ['src/s_monitoring.py', 'import sys\nsys.monitoring.use_tool_id(3, "x")\n', 'hook.replace', 2],
  ['src/s_gc.py', 'import gc\nfound = [o for o in gc.get_objects() if callable(o)]\n', 'code.swap', 2],
  ['src/s_code.py', 'def noop():\n    pass\n\n\ndef swap(f):\n    f.__code__ = noop.__code__\n', 'code.swap', 6],
  ['src/s_globals.py', 'def swap(f):\n    setattr(f, "__globals__", {})\n', 'code.swap', 2],
];

py('each single Python spelling is refused at the gate', () => {
  refusedAtGate(
    pyProject(),
    Object.fromEntries(PY_SPELLINGS.map(([f, s]) => [f, s])),
    PY_SPELLINGS.map(([f, , rule, line]) => [f, rule, line]),
  );
});

const JS_SPELLINGS: [string, string, string, number][] = [
  ['src/s_binding.mjs', 'process.binding("process_methods").reallyExit(0);\n', 'exit.process', 1],
  [
    'src/s_import.mjs',
    'export async function end() {\n  (await import("node:process")).default.exit(0);\n}\n',
    'exit.process',
    2,
  ],
  ['src/s_proto.mjs', 'Object.getPrototypeOf(process).exit(0);\n', 'exit.process', 1],
  ['src/s_kill.mjs', 'process.kill(0, "SIGKILL");\n', 'exit.process', 1],
  ['src/s_equals.mjs', 'export class Money {\n  equals(other) {\n    return 1;\n  }\n}\n', 'eq.always', 2],
];

test('each single JavaScript spelling is refused at the gate', () => {
  refusedAtGate(
    jsProject(),
    Object.fromEntries(JS_SPELLINGS.map(([f, s]) => [f, s])),
    JS_SPELLINGS.map(([f, , rule, line]) => [f, rule, line]),
  );
});

test('a real push: a compiled file and a name folded by NFKC are refused by pre-receive, and the server keeps its tip', () => {
  const pyc = compiled();
  for (const [what, files, expect] of [
    [
      'a folded name',
      { 'src/a.py': 'import os\n\n\ndef f():\n    os._\uff45xit(0)\n' },
      /\[exit\.process\][\s\S]*src\/a\.py {2}\(line 5: os\._ｅxit\(0\)\)/,
    ],
    [
      'a compiled file',
      {
        'src/_impl.pyc': pyc ?? Buffer.from([0xa7, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0]),
        'src/bill.py': 'from _impl import *\n',
      },
      /\[source\.opaque\][\s\S]*src\/_impl\.pyc {2}\(a \.pyc file, sha256 [0-9a-f]{64}\)/,
    ],
    [
      'a .dat run as JavaScript',
      { 'src/x.dat': 'process.exit(0);\n', 'src/load.cjs': 'require("./x.dat");\n' },
      /\[source\.opaque\][\s\S]*src\/x\.dat {2}\(run as code by src\/load\.cjs line 1/,
    ],
  ] as [string, Record<string, string | Buffer>, RegExp][]) {
    const s = guardedServer();
    const before = s.ref('refs/heads/main');
    s.work.commit(files, `patch: ${what}`);
    const push = s.push('main');
    assert.is(push.code, 1, `${what}: ${push.stderr}`);
    assert.match(push.stderr, expect, what);
    assert.is(s.ref('refs/heads/main'), before, what);
  }
});

test.run();
