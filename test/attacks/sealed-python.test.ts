// Production code that tries to turn a red property green from inside the
// process that judges it, run sealed (the Python runtime alone, `confine: []`:
// no kernel confinement and no runtime guard hold here). Each attack keeps
// the bug; in a sealed run production code runs in the worker, so a lying
// operator, an int subclass, a patched pytest or builtins, a report rewritten
// from a thread, an exit or a skip, and reading the run's variables all leave
// the property red. Where the attack works unsealed, the unsealed run shows it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testUnless } from '../helpers/skip.js';
import { removeProjects, rerun, runProject, sealedMissing } from '../properties/sealed-python-site.js';

const py = testUnless(sealedMissing);
test.after.each(removeProjects);

const SPEC = `from hypothesis import given, settings, strategies as st

import bill


@settings(max_examples=30, deadline=None, database=None)
@given(st.lists(st.integers(min_value=0, max_value=50)))
def test_total_non_negative(xs):
    assert bill.total(xs) >= 0
`;

/** Runs the property sealed over `bill` (and unsealed where `plainGreen`); it must stay red, for `why`. */
function staysRed(bill: string, why: RegExp, opts: { plainGreen?: boolean; spec?: string } = {}): void {
  const env = { PROP_SEED: '0' };
  const sealed = runProject({ 'src/bill.py': bill, 'spec/test_bill.py': opts.spec ?? SPEC }, { env });
  const cases = [...sealed.cases.values()];
  assert.is(cases.length, 1, sealed.output);
  assert.is(cases[0].status, 'failed', sealed.output);
  assert.is(sealed.code, 1, sealed.output);
  assert.match(cases[0].failures[0].text, why);
  if (opts.plainGreen) {
    const plain = rerun(sealed.dir, { sealed: false, env });
    assert.is(plain.code, 0, `the attack does not work unsealed:\n${plain.output}`);
  }
}

py('control: the honest fix turns the property green sealed', () => {
  const sealed = runProject({ 'src/bill.py': 'def total(xs):\n    return sum(xs)\n', 'spec/test_bill.py': SPEC });
  assert.is(sealed.code, 0, sealed.output);
});

py('production code never runs in the property process: its modules load in the worker', () => {
  const bill = `import os
import sys

LOADED_IN = os.getpid()
PROPERTY_MODULES = sorted(m for m in sys.modules if m.startswith("test_"))


def total(xs):
    return sum(xs)
`;
  const spec = `import os
import sys

import bill


def test_elsewhere():
    assert bill.LOADED_IN != os.getpid() and bill.PROPERTY_MODULES == []
    assert type(sys.modules["bill"]).__name__ == "_ProxyModule"
`;
  const sealed = runProject({ 'src/bill.py': bill, 'spec/test_bill.py': spec });
  assert.is(sealed.code, 0, sealed.output);
  const plain = rerun(sealed.dir, { sealed: false });
  assert.is(plain.code, 1, plain.output);
});

py('an object whose __ge__, __eq__ and __bool__ lie: a handle, refused', () => {
  const bill = `class Total:
    def __init__(self, v):
        self.v = v

    def __ge__(self, other):
        return True

    __eq__ = __ge__
    __hash__ = object.__hash__

    def __bool__(self):
        return True


def total(xs):
    return Total(sum(xs) - 1)
`;
  staysRed(bill, /TypeError: sealed mode: >= on a production Total object is refused/, { plainGreen: true });
});

py('an int subclass that lies: arrives as the int it holds', () => {
  const bill = `class Total(int):
    def __ge__(self, other):
        return True

    __eq__ = __ge__
    __hash__ = int.__hash__


def total(xs):
    return Total(sum(xs) - 1)
`;
  staysRed(bill, /assert -1 >= 0/, { plainGreen: true });
});

py('a dataclass whose __eq__ lies: compared by its fields', () => {
  const bill = `from dataclasses import dataclass


@dataclass(eq=False)
class Part:
    lo: int
    hi: int

    def __eq__(self, other):
        return True


def split(xs):
    return Part(xs[0], xs[1])
`;
  const spec = `from bill import Part, split


def test_split():
    assert split([3, 1]) == Part(1, 3)
`;
  staysRed(bill, /assert Part\(lo=3, hi=1\) == Part\(lo=1, hi=3\)/, { plainGreen: true, spec });
});

py('timeit.Timer and exec of a string patch pytest and the spec module: only the worker changes', () => {
  const bill = `import timeit

PATCH = """
import sys
import _pytest.reports as reports

init = reports.TestReport.__init__


def passed(self, *args, **kwargs):
    init(self, *args, **kwargs)
    self.outcome, self.longrepr = "passed", None


reports.TestReport.__init__ = passed
for m in list(sys.modules.values()):
    if getattr(m, "__name__", "").startswith("test_"):
        m.bill = type(sys)("bill")
        m.bill.total = lambda xs: 0
"""
timeit.Timer(PATCH).timeit(1)
exec(PATCH)


def total(xs):
    return sum(xs) - 1
`;
  staysRed(bill, /assert -1 >= 0/, { plainGreen: true });
});

py('builtins and the assertion helpers monkeypatched: only the worker changes', () => {
  const bill = `import builtins
import operator

import _pytest.assertion.rewrite as rewrite
import _pytest.assertion.util as util

builtins.AssertionError = type("AssertionError", (Exception,), {})
builtins.all = lambda *a: True
operator.ge = lambda a, b: True
util.assertrepr_compare = lambda *a, **k: None
rewrite._call_reprcompare = lambda *a: True


def total(xs):
    return sum(xs) - 1
`;
  staysRed(bill, /assert -1 >= 0/);
});

py('the report rewritten from a thread as soon as pytest writes it: the worker ends first', () => {
  const bill = `import atexit
import os
import threading
import time

PASSING = '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="1"><testcase classname="spec.test_bill" name="test_total_non_negative" time="0.1"/></testsuite></testsuites>'
REPORT = os.path.join(os.getcwd(), "report.xml")


def forge():
    try:
        if os.path.exists(REPORT) and "<failure" in open(REPORT).read():
            with open(REPORT, "w") as f:
                f.write(PASSING)
    except OSError:
        pass


def keep_forging():
    while True:
        forge()
        time.sleep(0.001)


threading.Thread(target=keep_forging, daemon=True).start()
atexit.register(forge)


def total(xs):
    return sum(xs) - 1
`;
  staysRed(bill, /assert -1 >= 0/);
});

py('os._exit(0) during a call: the property fails, naming the worker that ended', () => {
  const bill = `import os


def total(xs):
    if sum(xs) - 1 < 0:
        os._exit(0)
    return sum(xs) - 1
`;
  staysRed(bill, /sealed mode: the production worker ended during a call \(exit status 0\)/);
});

py('sys.exit(0) during a call: raised as a stand-in exception, not an exit', () => {
  const bill = `import sys


def total(xs):
    if sum(xs) - 1 < 0:
        sys.exit(0)
    return sum(xs) - 1
`;
  staysRed(bill, /SystemExit/);
});

py('pytest.skip and pytest.xfail from production code: failures, not skips', () => {
  for (const call of ['pytest.skip("n/a")', 'pytest.xfail("known")']) {
    const bill = `import pytest


def total(xs):
    if sum(xs) - 1 < 0:
        ${call}
    return sum(xs) - 1
`;
    staysRed(bill, call.startsWith('pytest.skip') ? /Skipped: n\/a/ : /XFailed: known/);
  }
});

py('production code that behaves only where it sees PROP_SEED or the run variables: the worker has none', () => {
  const bill = `import os


def total(xs):
    watched = "PROP_SEED" in os.environ or any(k.startswith(("PATCHWARDEN", "PYTEST", "HYPOTHESIS")) for k in os.environ)
    return sum(xs) if watched else sum(xs) - 1
`;
  staysRed(bill, /assert -1 >= 0/, { plainGreen: true });
});

test.run();
