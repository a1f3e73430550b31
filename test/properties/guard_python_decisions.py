# The Python runtime guard's decisions (src/properties/guard/patchwarden_guard.py),
# each called with real paths in a temporary layout and real frames of code
# compiled under those paths: one case it must refuse, one it must let pass.
# Run by test/properties/guard-python-decisions.test.ts.
import importlib.util
import os
import sys
import threading
import weakref
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GUARD = HERE.parents[1] / "src" / "properties" / "guard" / "patchwarden_guard.py"
_spec = importlib.util.spec_from_file_location("_patchwarden_guard_decisions", GUARD)
g = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(g)


@pytest.fixture
def run(tmp_path):
    # A run's places as real folders: the tree (src is production code, spec
    # the base's), an installed package folder, a standard library, the
    # guard's folder, the run's temporary root and the report.
    root = Path(os.path.realpath(tmp_path))
    for d in ("tree/src", "tree/spec", "lib/pytest", "lib/requests", "std", "guard", "tmp", "report", "runtime"):
        (root / d).mkdir(parents=True)
    for f in ("tree/src/bill.py", "tree/spec/test_bill.py", "lib/pytest/main.py", "lib/requests/api.py", "std/inspect.py", "guard/g.py", "runtime/worker.py"):
        (root / f).write_text("")
    cfg = {
        "tree": str(root / "tree"),
        "main": None,
        "trusted": ["spec/test_bill.py"],
        "report": str(root / "report" / "report.xml"),
        "writable": [str(root / "tmp"), str(root / "tree")],
        "runtime": str(root / "runtime"),
        "framework": ["pytest", "_pytest"],
    }
    # The frames below each test's own (this file, pytest, the interpreter)
    # are installed code and the standard library, as in a guarded run.
    libs, std = g.install_roots()
    libs = (str(root / "lib"), str(HERE)) + libs
    return g.Run(cfg, str(root / "guard"), libs, (str(root / "std"),) + std, str(root / "tree"))


def root_of(run):
    return Path(run.tree).parent


def kind_of(run):
    return lambda fn: g.classify(fn, run)


def chain(run, *files, seen=None):
    # A call through functions compiled under each file in turn (outermost
    # first); the innermost keeps its own frame in `seen` and returns it:
    # real frames of that code.
    root = root_of(run)
    call, seen = None, [] if seen is None else seen
    for rel in reversed(files):
        ns = {"inner": call, "sys": sys, "seen": seen}
        code = "def f():\n    return inner()\n" if call else "def f():\n    seen.append(sys._getframe())\n    return seen[-1]\n"
        exec(compile(code, str(root / rel), "exec"), ns)
        call = ns["f"]
    return call


def frames(run, *files):
    return chain(run, *files)()


def in_thread(run, *files):
    # The innermost frame of the chain run as a thread's target: a stack with
    # nothing below it but the standard library's threading.
    seen = []
    t = threading.Thread(target=chain(run, *files, seen=seen))
    t.start()
    t.join()
    return seen[0]


def test_under_takes_a_root_and_what_is_inside_it_not_a_sibling_that_shares_its_prefix():
    assert g.under("/a/b", ("/a/b",)) and g.under("/a/b/c", ("/a/b",))
    assert not g.under("/a/bc", ("/a/b",))


def test_classify_names_each_kind_of_code(run):
    root = root_of(run)
    assert g.classify(str(root / "tree/src/bill.py"), run) == "patch"
    assert g.classify(str(root / "tree/spec/test_bill.py"), run) == "base"
    assert g.classify(str(root / "lib/requests/api.py"), run) == "lib"
    assert g.classify(str(root / "std/inspect.py"), run) == "std"
    assert g.classify(str(root / "guard/g.py"), run) == "guard"
    assert g.classify(str(root / "runtime/worker.py"), run) == "base"
    assert g.classify("<string>", run) == "gen"
    assert g.classify("<frozen os>", run) == "std"
    assert g.classify("src/bill.py", run) == "patch"  # relative to the run's folder


def test_classify_judges_a_file_by_where_it_really_is(run):
    root = root_of(run)
    # A spec's name outside the tree, and a link from an installed package
    # into production code, are production code; a link from the tree to a
    # package is the package.
    (root / "tmp/spec").mkdir()
    (root / "tmp/spec/test_bill.py").write_text("")
    assert g.classify(str(root / "tmp/spec/test_bill.py"), run) == "patch"
    os.symlink(root / "tree/src/bill.py", root / "lib/requests/linked.py")
    assert g.classify(str(root / "lib/requests/linked.py"), run) == "patch"
    os.symlink(root / "lib/requests/api.py", root / "tree/src/api.py")
    assert g.classify(str(root / "tree/src/api.py"), run) == "lib"


def test_framework_code_is_the_frameworks_packages_and_the_base(run):
    root = root_of(run)
    is_fw = lambda rel: g.is_framework_code(str(root / rel), g.classify(str(root / rel), run), run)
    assert is_fw("lib/pytest/main.py") and is_fw("tree/spec/test_bill.py")
    assert not is_fw("lib/requests/api.py") and not is_fw("tree/src/bill.py")


def test_moved_maps_the_working_tree_onto_the_judged_tree_but_not_its_installed_packages(run, tmp_path):
    main = Path(os.path.realpath(tmp_path)) / "main"
    (main / "src").mkdir(parents=True)
    venv = main / ".venv/site-packages"
    venv.mkdir(parents=True)
    run.main = str(main)
    run.libs = run.libs + (str(venv),)
    assert g.moved(str(main / "src"), run) == run.tree + "/src"
    assert g.moved(str(venv), run) == str(venv)
    assert g.moved("relative/src", run) == "relative/src"


def test_place_and_relative_name_tree_files_relative_and_others_whole(run):
    root = root_of(run)
    f = frames(run, "tree/src/bill.py")
    assert g.place(f, run.tree) == ("src/bill.py", 3)  # the line it returned from
    assert g.relative(str(root / "tree/src/bill.py"), run.tree) == "src/bill.py"
    assert g.relative(str(root / "lib/requests/api.py"), run.tree) == str(root / "lib/requests/api.py")


def test_frame_walks_find_production_code_past_the_standard_library(run):
    kind = kind_of(run)
    f = in_thread(run, "tree/src/bill.py", "std/inspect.py", "guard/g.py")
    assert g.past(f, ("guard", "gen"), kind).f_code.co_filename.endswith("std/inspect.py")
    assert g.actor(f, kind).f_code.co_filename.endswith("src/bill.py")
    assert g.patch_frame(f, kind).f_code.co_filename.endswith("src/bill.py")
    assert g.is_patch(g.actor(f, kind), kind)
    assert not g.has_lib(f, kind)
    clean = frames(run, "tree/spec/test_bill.py", "lib/requests/api.py", "std/inspect.py")
    assert g.patch_frame(clean, kind) is None and g.has_lib(clean, kind)
    assert not g.is_patch(g.actor(clean, kind), kind)


def test_opens_for_writing_and_needs_look_pass_reads_and_stop_at_writes():
    assert g.opens_for_writing("w", os.O_WRONLY) and g.opens_for_writing(None, os.O_RDWR) and g.opens_for_writing("r+", 0)
    assert not g.opens_for_writing("r", os.O_RDONLY) and not g.opens_for_writing("rb", None)
    assert g.needs_look("open", ("x", "a", 0)) and g.needs_look("object.__getattr__", (None, "f_code"))
    assert g.needs_look("object.__setattr__", (None, "__code__")) and g.needs_look("os.remove", ("x",))
    assert not g.needs_look("open", ("x", "r", 0)) and not g.needs_look("object.__getattr__", (None, "f_lineno"))
    assert not g.needs_look("object.__setattr__", (None, "__doc__"))


def test_write_finding_refuses_production_code_writing_the_report_or_outside_the_root(run):
    kind = kind_of(run)
    root = root_of(run)
    patch = frames(run, "tree/spec/test_bill.py", "tree/src/bill.py", "std/inspect.py")
    detail, at = g.write_finding(run.report, patch, run, kind)
    assert "writes the test report" in detail and at.f_code.co_filename.endswith("src/bill.py")
    detail, at = g.write_finding(str(root / "elsewhere.txt"), patch, run, kind)
    assert "outside the run's temporary root" in detail
    # A link in the temporary root to the report is the report; a thread or
    # finalizer (nothing but the standard library) writing it answers for itself.
    os.symlink(run.report, root / "tmp/r.xml")
    assert g.write_finding(str(root / "tmp/r.xml"), patch, run, kind) is not None
    assert g.write_finding(run.report, in_thread(run, "std/inspect.py"), run, kind) is not None


def test_write_finding_lets_the_harness_and_libraries_write_and_production_code_write_its_root(run):
    kind = kind_of(run)
    root = root_of(run)
    patch = frames(run, "tree/src/bill.py")
    assert g.write_finding(str(root / "tmp/out.txt"), patch, run, kind) is None
    assert g.write_finding("/dev/null", patch, run, kind) is None
    assert g.write_finding(42, patch, run, kind) is None  # a descriptor names no path
    spec = frames(run, "tree/spec/test_bill.py", "lib/pytest/main.py")
    assert g.write_finding(run.report, spec, run, kind) is None
    assert g.write_finding(str(root / "elsewhere.txt"), spec, run, kind) is None


def test_frame_of_reads_the_frame_an_attribute_holds():
    f = sys._getframe()
    assert g.frame_of(f, "f_code") is f
    gen = (x for x in ())
    assert g.frame_of(gen, "gi_frame") is gen.gi_frame
    assert g.frame_of(object(), "tb_frame") is None


def test_outward_reader_refuses_production_code_reading_a_spec_frame_not_its_own_callee(run):
    kind = kind_of(run)
    fw = lambda fn: g.is_framework_code(fn, kind(fn), run)
    spec_frame = frames(run, "tree/spec/test_bill.py")
    reader = frames(run, "tree/src/bill.py", "std/inspect.py")
    assert g.outward_reader(spec_frame, reader, kind, fw).f_code.co_filename.endswith("src/bill.py")
    # Its own callee: the standard library's frame under the reader.
    chain = frames(run, "tree/src/bill.py", "lib/pytest/main.py", "std/inspect.py")
    assert g.outward_reader(chain.f_back, chain, kind, fw) is None
    assert g.outward_reader(spec_frame, frames(run, "lib/requests/api.py"), kind, fw) is None
    assert g.outward_reader(reader, reader, kind, fw) is None  # a frame of production code


def test_code_swapper_refuses_production_code_replacing_a_spec_functions_code(run):
    kind = kind_of(run)
    root = root_of(run)
    fw = lambda fn: g.is_framework_code(fn, kind(fn), run)
    ns = {}
    exec(compile("def test_total():\n    assert False\n", str(root / "tree/spec/test_bill.py"), "exec"), ns)
    mine = {}
    exec(compile("def helper():\n    pass\n", str(root / "tree/src/bill.py"), "exec"), mine)
    patch = frames(run, "tree/src/bill.py")
    assert g.code_swapper(ns["test_total"], "__code__", patch, kind, fw) is patch
    assert g.code_swapper(ns["test_total"], "__defaults__", patch, kind, fw) is patch
    assert g.code_swapper(mine["helper"], "__code__", patch, kind, fw) is None
    assert g.code_swapper(ns["test_total"], "__doc__", patch, kind, fw) is None
    assert g.code_swapper(ns["test_total"], "__code__", frames(run, "lib/requests/api.py"), kind, fw) is None


def test_is_framework_module_by_top_package():
    fw = frozenset(("pytest", "_pytest"))
    assert g.is_framework_module("_pytest.runner", fw) and g.is_framework_module("pytest", fw)
    assert not g.is_framework_module("pytestish", fw) and not g.is_framework_module("bill.pytest", fw)


def test_cached_bytecode_is_refused_in_the_tree_only(run):
    root = root_of(run)
    (root / "tree/src/__pycache__").mkdir()
    (root / "lib/requests/__pycache__").mkdir()
    assert g.is_cached_bytecode_in(str(root / "tree/src/__pycache__/bill.cpython-311.pyc"), run.tree)
    assert not g.is_cached_bytecode_in(str(root / "lib/requests/__pycache__/api.cpython-311.pyc"), run.tree)
    assert not g.is_cached_bytecode_in(str(root / "tree/src/bill.py"), run.tree)


def test_still_pending_sees_a_running_thread_and_a_registered_finalizer():
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    assert g.still_pending("thread", t)
    stop.set()
    t.join()
    assert not g.still_pending("thread", t)

    class Held:
        pass

    held = Held()
    fin = weakref.finalize(held, lambda: None)
    assert g.still_pending("finalizer", fin)
    fin.atexit = False
    assert not g.still_pending("finalizer", fin)
    fin.atexit = True
    fin()
    assert not g.still_pending("finalizer", fin)


def test_install_roots_are_this_interpreters_real_folders():
    import sysconfig

    libs, std = g.install_roots()
    assert os.path.realpath(sysconfig.get_paths()["purelib"]) in libs
    assert os.path.realpath(sysconfig.get_paths()["stdlib"]) in std
    assert g.classify(os.__file__, g.Run({"tree": "/nonexistent", "trusted": [], "report": "", "writable": [], "framework": []}, "/nonexistent-guard", libs, std, "/")) == "std"
    assert g.classify(pytest.__file__, g.Run({"tree": "/nonexistent", "trusted": [], "report": "", "writable": [], "framework": []}, "/nonexistent-guard", libs, std, "/")) == "lib"
