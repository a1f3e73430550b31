# patchwarden's pytest plugin, loaded by the runtime guard through
# PYTEST_PLUGINS. It sees what only the framework knows: which exception made
# a case skip, the test functions as collected, and the framework's and the
# spec modules' names, which must not change between collection and the end.
# It also runs only the cases the revert check names in PATCHWARDEN_ONLY, and
# only its own share of the test files in a shard of a CI matrix, and names
# each case that fails as it fails (a `failing` record).
import json
import os
import sys

import pytest

_g = sys.modules["_patchwarden_guard"]
# Read as pytest starts, before collection imports production code.
_ONLY = os.environ.get("PATCHWARDEN_ONLY")
_modules = {}
_functions = {}


def _watched():
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and (name.partition(".")[0] in _g.framework or _g.kind(file) == "base"):
            yield name, module


def _bound(module):
    # Functions, classes and modules: what a rebinding would swap.
    return {k: v for k, v in vars(module).items() if not k.startswith("__") and (callable(v) or isinstance(v, type(sys)))}


def _methods(module):
    # The methods of the classes a module defines: a class changed in place
    # (TestReport.__init__ made to turn failures into passes) keeps its identity.
    out = {}
    for k, v in vars(module).items():
        if isinstance(v, type) and v.__module__ == module.__name__:
            out[k] = (v, {a: m for a, m in vars(v).items() if callable(m) or hasattr(m, "__get__")})
    return out


def _functions_of(item):
    fn = getattr(item, "obj", None)
    fn = getattr(fn, "__func__", fn)
    inner = getattr(getattr(fn, "hypothesis", None), "inner_test", None)
    return [f for f in (fn, inner) if hasattr(f, "__code__")]


def _state(fn):
    return (fn.__code__, fn.__defaults__, fn.__kwdefaults__)


def _snapshot():
    # Each module as first seen: the framework's once it has configured
    # itself (plugins add methods to its classes) and before collection
    # imports the spec and production code; the rest (the spec's) at
    # collection's end.
    for name, module in _watched():
        if name not in _modules:
            _modules[name] = (module, _bound(module), _methods(module))


def _untraced():
    # Before Python 3.12 Hypothesis explains a failure by tracing every line
    # of the failing examples with sys.settrace, and its tracer reads each
    # frame's f_code: an audit event the guard judges, millions of them (six
    # times the run). The verdict and the minimal example do not depend on
    # it; only the "Explanation" lines do. Turned off through the switch
    # Hypothesis keeps for this, before the framework's methods are
    # snapshotted, so nothing the guard compares changes.
    core = sys.modules.get("hypothesis.core")
    state = getattr(core, "StateForActualGivenExecution", None)
    if sys.version_info < (3, 12) and state is not None and "_should_trace" not in _untraced.done:
        _untraced.done.add("_should_trace")
        state._should_trace = lambda self: False


_untraced.done = set()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _g.quiet(_untraced)()
    _g.quiet(_snapshot)()


def _shard():
    # PATCHWARDEN_SHARD=K/N (a part of a CI matrix): K and N, or None unsplit.
    k, _, n = os.environ.get("PATCHWARDEN_SHARD", "1/1").partition("/")
    return (int(k), int(n)) if n.isdigit() and k.isdigit() and int(n) > 1 else None


# Read as pytest starts, before collection imports any project code.
_SHARD = _shard()


def _keep(config, items, keep):
    dropped = [item for item in items if not keep(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if keep(item)]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    # A shard keeps whole test files, the files dealt out in sorted order, so
    # the cases of an invariant kept in one file stay together in one shard.
    if _SHARD is not None:
        k, n = _SHARD
        files = sorted({item.nodeid.partition("::")[0] for item in items})
        mine = {f for i, f in enumerate(files) if i % n == k - 1}
        _keep(config, items, lambda item: item.nodeid.partition("::")[0] in mine)
    # The cases a cached reverted run cannot answer for (their names, a JSON
    # list), run fresh on the base: every other case is deselected.
    if _ONLY is not None:
        names = set(json.loads(_ONLY))
        _keep(config, items, lambda item: item.nodeid.rpartition("::")[2] in names)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    @_g.quiet
    def take():
        _untraced()
        _snapshot()
        for item in session.items:
            _functions[item.nodeid] = [(fn, _state(fn)) for fn in _functions_of(item)]
    take()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    @_g.quiet
    def check():
        for fn, before in _functions.get(item.nodeid, []):
            if _state(fn) != before:
                code = before[0]
                _g.send({"t": "finding", "event": "test function", "detail": "the code or defaults of %s were replaced before it ran" % item.nodeid, "file": _g.where_path(code.co_filename), "line": code.co_firstlineno})
    check()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    raised = call.excinfo  # as raised: the unittest plugin swaps in its own for a SkipTest
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        # Streamed as the run goes, before the report exists: the revert check
        # may stop the other side on it (a hint; the report decides).
        _g.send({"t": "failing", "name": item.nodeid})
    if raised is None or not (report.skipped or hasattr(report, "wasxfail")):
        return

    @_g.quiet
    def origin():
        # The innermost frame of production code the skip came through.
        tb, hit = raised.tb, None
        while tb is not None:
            if _g.kind(tb.tb_frame.f_code.co_filename) == "patch":
                hit = (_g.where_path(tb.tb_frame.f_code.co_filename), tb.tb_lineno)
            tb = tb.tb_next
        return hit
    hit = origin()
    if hit:
        _g.send({"t": "finding", "event": "skip", "detail": "%s raised from production code made %s read as %s" % (raised.typename, item.nodeid, "xfail" if hasattr(report, "wasxfail") else "skipped"), "file": hit[0], "line": hit[1]})


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    @_g.quiet
    def compare():
        for name, (module, before, methods) in _modules.items():
            now = vars(module)
            file = _g.where_path(getattr(module, "__file__", "") or "")
            for key, value in before.items():
                if now.get(key) is not value:
                    _g.send({"t": "finding", "event": "rebound", "detail": "%s.%s was rebound during the session" % (name, key), "file": file, "line": 0})
            for key, (cls, was) in methods.items():
                has = {a: m for a, m in vars(cls).items() if callable(m) or hasattr(m, "__get__")}
                for attr in sorted(set(was) | set(has)):
                    if was.get(attr) is not has.get(attr):
                        _g.send({"t": "finding", "event": "rebound", "detail": "%s.%s.%s was changed during the session" % (name, key, attr), "file": file, "line": 0})
    compare()
    _g.session_over()
