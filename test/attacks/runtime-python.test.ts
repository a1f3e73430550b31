// The Python runtime guard, proven on its own: the static layer is off
// (`tamper.mode: off`) in every project here, so only the guard stands
// between each attack and a green revert check. Each attack is a src-only
// patch that turns a red registered property green without fixing the bug
// (attacks 1-5 of the issue that brought the guard); each is refused, naming
// the event and the file and line behind it. Then a root conftest.py turned
// into a submodule pointer (attack 6), and honest production code that must
// pass with the guard on. Real pytest, real git, a real push and the gate.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cleanup, installPrePush, tempRepo } from '../helpers/repo.js';
import {
  BUGGY_PY,
  config,
  FIXED_PY,
  GC_SWAP_PY,
  project,
  pyProperty,
  PYTEST,
  registry,
} from '../properties/projects.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const ID = 'bill.total_non_negative';
const OFF = 'tamper:\n  mode: off\n';
const baseFiles = (extra: Record<string, string | Buffer> = {}) => ({
  '.patchwarden.yml': config(PYTEST, OFF),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': BUGGY_PY,
  ...extra,
});

const py = testUnless(pytestMissing);

test.after.each(cleanup);

/** The revert check on a src-only patch; the reason it gives. */
function refused(patch: Record<string, string | Buffer>, base_: Record<string, string> = {}): string {
  const { repo, base, head } = project(baseFiles(base_), patch);
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head', r.out.reason);
  assert.match(r.out.reason, /the runtime guard refused the run/);
  return r.out.reason as string;
}

// 1. Partial skips: the failing inputs skip, through a test framework reached from a stdlib module.
const SKIPPING = `import doctest


def total(xs):
    if sum(xs) - 1 < 0:
        raise doctest.unittest.SkipTest("not applicable")
    return sum(xs) - 1
`;

py('attack 1, skips raised from production code: refused at the import and at the skip', () => {
  const reason = refused({ 'src/bill.py': SKIPPING });
  assert.match(reason, /runtime guard: import at src\/bill\.py:1: imports the test framework module doctest/);
  assert.match(
    reason,
    /runtime guard: skip at src\/bill\.py:6: SkipTest raised from production code made spec\/properties\/test_bill\.py::test_total_non_negative read as skipped/,
  );
});

// 2. The property's own code swapped in memory.

py('attack 2, the test function found through gc and its __code__ replaced: refused at gc.get_objects', () => {
  const reason = refused({ 'src/bill.py': GC_SWAP_PY });
  assert.match(reason, /runtime guard: gc\.get_objects at src\/bill\.py:8/);
});

// The guard's decisions are functions of a module on the import path:
// production code imports it (and any module in sys.modules that looks like
// it) and rebinds them to answers that let everything pass, then swaps the
// test function. The guard calls its own copies, bound before project code.
const GUARD_REBOUND_PY = `import gc
import sys

import patchwarden_guard

for _m in [patchwarden_guard] + [m for m in list(sys.modules.values()) if hasattr(m, "classify")]:
    _m.classify = lambda fn, run: "lib"
    _m.is_patch = lambda f, kind: False
    _m.write_finding = lambda *a: None
    _m.under = lambda p, roots: True
${GC_SWAP_PY.slice(GC_SWAP_PY.indexOf('\n\n'))}`;

py("the guard's module imported and its decisions rebound by production code: still refused at gc.get_objects", () => {
  const line = GUARD_REBOUND_PY.split('\n').findIndex((l) => l.includes('gc.get_objects()')) + 1;
  const reason = refused({ 'src/bill.py': GUARD_REBOUND_PY });
  assert.match(reason, new RegExp(`runtime guard: gc\\.get_objects at src/bill\\.py:${line}\\b`));
});

// 3. The forged report, respelled: weakref.finalize as the exit hook, posix._exit, the path from sys.argv.
const FINALIZING = `import posix, re, sys, weakref


def _where():
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            return arg.split("=", 1)[1]


def _tidy():
    path = _where()
    with open(path) as f:
        xml = f.read()
    xml = re.sub(r"<failure[^>]*>.*?</failure>", "", xml, flags=re.S)
    xml = re.sub(r'failures="\\d+"', 'failures="0"', xml)
    with open(path, "w") as f:
        f.write(xml)
    posix._exit(0)


class _Anchor:
    pass


_anchor = _Anchor()
weakref.finalize(_anchor, _tidy)


def total(xs):
    return sum(xs) - 1
`;

py(
  'attack 3, a weakref.finalize hook that rewrites the report and leaves with posix._exit(0): refused three ways',
  () => {
    const reason = refused({ 'src/bill.py': FINALIZING });
    assert.match(
      reason,
      /runtime guard: finalizer at src\/bill\.py:26: a finalizer started by production code is still pending after the session/,
    );
    assert.match(reason, /runtime guard: open at src\/bill\.py:16: writes the test report/);
    assert.match(reason, /ended without the guard's final record/);
  },
);

// 4. Unicode spellings the interpreter folds (NFKC) and a call hidden in an f-string, at exit.
const FOLDED = `import atexit as _a, os, pathlib


def _tidy():
    report = pathlib.Path(os.environ["PATCHWARDEN_JUNIT"])
    report.write_text(report.read_text().replace("<failure", "<skipped").replace("</failure>", "</skipped>"))
    f"{os._\uff45xit(0)}"


_a.register(_tidy)


def total(xs):
    return sum(xs) - 1
`;

py(
  'attack 4, os._ｅxit (NFKC) in an f-string after a report rewrite at exit: refused at the hook and the write',
  () => {
    const reason = refused({ 'src/bill.py': FOLDED });
    assert.match(reason, /runtime guard: atexit\.register at src\/bill\.py:10: registers _tidy to run at exit/);
    assert.match(reason, /runtime guard: open at src\/bill\.py:6: writes the test report/);
  },
);

// 5. Code the scanner cannot read: the forging module compiled to .pyc, imported from a one-line src/bill.py.
function compiled(source: string): Buffer {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import sys, importlib._bootstrap_external as e; src = sys.stdin.read(); sys.stdout.buffer.write(e._code_to_timestamp_pyc(compile(src, "bill_impl.py", "exec"), 0, len(src)))',
    ],
    { input: source },
  );
  assert.is(r.status, 0, String(r.stderr));
  return r.stdout;
}

py('attack 5, the patch shipped as src/_impl.pyc and imported from src/bill.py: refused at the import', () => {
  const reason = refused(
    { 'src/bill.py': 'from _impl import total  # noqa\n', 'src/_impl.pyc': compiled(FINALIZING) },
    { '.gitignore': '__pycache__/\n' },
  );
  assert.match(reason, /runtime guard: import at src\/_impl\.pyc: loads a compiled module without its source/);
});

// Bytecode shipped beside its source: an unchecked-hash .pyc in src/__pycache__ stands in for a src/bill.py that keeps the bug.
function cachedBytecode(source: string): { file: string; bytes: Buffer } {
  const script =
    'import importlib.util, py_compile, sys, tempfile, os\nd = tempfile.mkdtemp()\np = os.path.join(d, "bill.py")\nopen(p, "w").write(sys.stdin.read())\nout = py_compile.compile(p, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\nprint(os.path.basename(out))\nsys.stdout.flush()\nsys.stderr.buffer.write(open(out, "rb").read())';
  const r = spawnSync('python3', ['-c', script], { input: source });
  assert.is(r.status, 0);
  return { file: `src/__pycache__/${r.stdout.toString().trim()}`, bytes: r.stderr };
}

py(
  'a committed __pycache__ .pyc (unchecked hash) standing in for the source: never read, the bug shows, refused',
  () => {
    const pyc = cachedBytecode(FIXED_PY);
    const { repo, base, head } = project(baseFiles({ '.gitignore': 'build/\n' }), {
      'src/bill.py': BUGGY_PY + '# tidied\n',
      [pyc.file]: pyc.bytes,
    });
    const plain = spawnSync('sh', ['-c', PYTEST.replace('{junit}', '/dev/null')], { cwd: repo.dir, env: repo.env });
    assert.is(plain.status, 0, 'the attack is real: a plain pytest run in the checkout reads the bytecode and passes');
    const r = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(r.code, 1, r.stderr);
    assert.is(r.out.status, 'pending_unmarked', r.out.reason);
    assert.match(
      r.out.reason,
      /the base itself fails bill\.total_non_negative \("test_total_non_negative" fail with and without the production diff\)/,
    );
  },
);

// 6. The base's root conftest.py holds the strict cases; the patch turns it into a submodule pointer.
const CASES_CONFTEST = 'def pytest_configure(config):\n    config.bill_cases = [[], [1, 2], [0, 5]]\n';
const EXACT = `def test_total_exact(record_property, pytestconfig):\n    record_property("invariant", "${ID}")\n    for xs in getattr(pytestconfig, "bill_cases", [[1, 2]]):\n        assert total(xs) == sum(xs)\n\nfrom bill import total\n`;
const NONEMPTY_ONLY = 'def total(xs):\n    return sum(xs) if xs else -1\n';

// A class of the framework changed in place keeps its identity, and setting
// a class's attribute raises no audit event: the guard compares the methods
// of the framework's classes at the session's end with those it had before
// collection imported production code.
const REPORT_CLASS = `import sys


def total(xs):
    return sum(xs) - 1


reports = sys.modules.get("_pytest.reports")
if reports is not None:
    made = reports.TestReport.__init__

    def passing(self, *args, **kwargs):
        made(self, *args, **kwargs)
        if self.outcome == "failed":
            self.outcome, self.longrepr = "passed", None

    reports.TestReport.__init__ = passing
`;

py("pytest's TestReport.__init__ replaced through sys.modules to turn failures into passes: refused", () => {
  const reason = refused({ 'src/bill.py': REPORT_CLASS });
  assert.match(
    reason,
    /runtime guard: rebound at .*_pytest\/reports\.py: _pytest\.reports\.TestReport\.__init__ was changed during the session/,
    reason,
  );
});

py("attack 6, a root conftest.py turned into a submodule pointer: both runs read the base's conftest, refused", () => {
  const repo = tempRepo();
  const base = repo.commit(
    {
      '.gitignore': '__pycache__/\n',
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'conftest.py': CASES_CONFTEST,
      ...baseFiles({ 'spec/properties/test_bill.py': EXACT }),
    },
    'base',
  );
  repo.git(['rm', '-q', 'conftest.py']);
  repo.git(['update-index', '--add', '--cacheinfo', `160000,${base},conftest.py`]);
  repo.write('src/bill.py', NONEMPTY_ONLY);
  repo.git(['add', 'src/bill.py']);
  repo.git(['commit', '-q', '--no-verify', '-m', 'fix totals']);
  const head = repo.head();
  assert.match(repo.git(['ls-tree', head, 'conftest.py']).stdout, /^160000 commit/);
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'pending_unmarked', r.out.reason);
  assert.match(
    r.out.reason,
    /the base itself fails bill\.total_non_negative \("test_total_exact" fail with and without the production diff\)/,
  );
  assert.match(r.out.reason, /outside the src zone \(conftest\.py\)/);
});

// Honest production code the guard must leave alone.
const HONEST = `import functools, gc, inspect, logging, signal, sys

log = logging.getLogger("bill")
logging.basicConfig(stream=sys.stderr, level=logging.INFO)


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        log.info("%s%s", fn.__name__, inspect.signature(fn))
        return fn(*args)
    return wrapper


@_logged
def total(xs):
    gc.collect()
    return sum(xs)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(total([int(a) for a in sys.argv[1:]]))


if __name__ == "__main__":
    main()
`;
const TEMP_FILES_PROPERTY = `import os, tempfile\nfrom bill import total\n\ndef test_total_non_negative(record_property, tmp_path):\n    record_property("invariant", "${ID}")\n    with tempfile.TemporaryDirectory() as d:\n        with open(os.path.join(d, "cases.txt"), "w") as f:\n            f.write("1 2\\n0 5\\n")\n    (tmp_path / "seen.txt").write_text("ok")\n    for xs in ([], [1, 2], [0, 5]):\n        assert total(xs) >= 0\n`;

py(
  'honest controls pass with the guard on: temp files, gc.collect, functools.wraps, logging, inspect.signature, signal in an unused CLI',
  () => {
    const { repo, base, head } = project(baseFiles({ 'spec/properties/test_bill.py': TEMP_FILES_PROPERTY }), {
      'src/bill.py': HONEST,
    });
    const r = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(r.code, 0, `${r.out.reason}\n${r.stderr}`);
    assert.is(r.out.status, 'describes_patch');
  },
);

py('git push: attack 2 is refused by the pre-push hook, and the gate refuses attack 3', () => {
  const remote = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(
    { '.gitignore': '__pycache__/\n', 'pytest.ini': '[pytest]\npythonpath = src\n', ...baseFiles() },
    'start',
  );
  assert.is(repo.git(['push', '-q', 'origin', 'main'], { allowFail: true }).code, 0);
  const tip = remote.git(['rev-parse', 'main']).stdout.trim();
  repo.commit({ 'src/bill.py': GC_SWAP_PY }, 'fix totals');
  const push = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
  assert.is.not(push.code, 0, push.stdout + push.stderr);
  assert.match(push.stdout + push.stderr, /runtime guard: gc\.get_objects at src\/bill\.py:8/);
  assert.is(remote.git(['rev-parse', 'main']).stdout.trim(), tip);

  repo.git(['reset', '-q', '--hard', 'origin/main']);
  repo.git(['checkout', '-q', '-b', 'topic']);
  repo.commit({ 'src/bill.py': FINALIZING }, 'fix totals, again');
  const g = repo.json(['gate', '--base', 'main']);
  assert.is(g.code, 1, g.stderr);
  const props = (g.out.layers as { layer: string; status: string; violations: { message: string }[] }[]).find(
    (l) => l.layer === 'properties',
  )!;
  assert.is(props.status, 'refused');
  assert.match(props.violations[0].message, /runtime guard: open at src\/bill\.py:16: writes the test report/);
});

test.run();
