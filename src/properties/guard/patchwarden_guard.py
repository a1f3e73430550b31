# patchwarden's runtime guard for one property run, as sitecustomize.py
# loads it: a PEP 578 audit hook (which cannot be removed) and wrappers of the
# few registries audit events miss. Each event that production code causes is
# sent as a record over the run's channel before the action happens; the
# run's last record says the interpreter ended through the guard. Nothing
# here is meant to stop the code: patchwarden refuses the run on any finding,
# or on a missing record.
#
# The decisions are plain functions of what they judge (a path, a frame, an
# event's arguments) and of the run's places (Run), so a test can call them.
# install() wires them to one run: its state (caches, the channel, the busy
# threads) lives in closures, as before, and never in this module's names.
# This file is loaded under a private name and kept out of sys.modules
# (sitecustomize.py), and what it calls is bound here at import, before any
# project code runs: a later `os.path.realpath = ...` changes nothing here.
import os
import sys
import _thread
from os import fsdecode, getcwd, getpid
from os.path import dirname, isabs, join, realpath, split

sep = os.sep
_getframe = sys._getframe
get_ident = _thread.get_ident

WRITE = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
HARMLESS = ("/dev/null",)
FRAME_ATTRS = frozenset(("f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame"))
CODE_ATTRS = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__globals__"))


class Run:
    # The places of one run, real paths: what every decision is judged against.
    __slots__ = ("tree", "main", "trusted", "report", "writable", "runtime", "framework", "guard_dir", "libs", "std", "cwd")

    def __init__(self, cfg, guard_dir, libs, std, cwd):
        self.tree = cfg["tree"]
        self.main = cfg.get("main")
        self.trusted = frozenset(cfg["trusted"])
        self.report = cfg["report"]
        self.writable = tuple(cfg["writable"])
        # A sealed run's runtimes (proxies, worker) are the harness's code.
        self.runtime = cfg.get("runtime")
        self.framework = frozenset(cfg["framework"])
        self.guard_dir = guard_dir
        self.libs, self.std, self.cwd = tuple(libs), tuple(std), cwd


def under(p, roots):
    return any(p == r or p.startswith(r + sep) for r in roots)


def install_roots():
    # Where installed packages and the standard library live, as real paths.
    import site, sysconfig

    paths = sysconfig.get_paths()
    libs = set()
    for p in [paths.get(k) for k in ("purelib", "platlib")] + list(getattr(site, "getsitepackages", lambda: [])()) + [getattr(site, "getusersitepackages", lambda: None)()]:
        if p:
            libs.add(realpath(p))
    std = {realpath(p) for p in (paths.get("stdlib"), paths.get("platstdlib")) if p}
    return tuple(libs), tuple(std)


def moved(p, run):
    # An editable install (pip's, uv's, poetry's: a .pth naming the project's
    # source folder) puts the repository's own working tree on the import
    # path: the run imports the same folder of the tree it judges. Installed
    # packages (a .venv in the repository too) and this guard stay where they are.
    r = realpath(p) if isinstance(p, str) and isabs(p) else None
    if not r or not under(r, (run.main,)) or under(r, (run.tree, run.guard_dir) + run.libs + run.std):
        return p
    return run.tree + r[len(run.main):]


def classify(fn, run):
    # Whose code a code object's file is: 'std' the standard library, 'lib'
    # an installed package, 'base' the spec or harness as on the base side,
    # 'guard' the guard's own files, 'gen' code compiled from a string,
    # 'patch' the rest: production code.
    if fn.startswith("<"):
        # Generated code (exec'd strings) answers for whoever called it.
        return "std" if fn.startswith("<frozen ") else "gen"
    p = realpath(fn if isabs(fn) else join(run.cwd, fn))
    tree = run.tree
    if p.startswith(run.guard_dir + sep):
        return "guard"
    if under(p, run.libs):
        return "lib"
    if under(p, run.std):
        return "std"
    if p.startswith(tree + sep) and p[len(tree) + 1:].replace(sep, "/") in run.trusted:
        return "base"
    if run.runtime and p.startswith(run.runtime + sep):
        return "base"
    return "patch"


def top_package(fn, roots):
    p = realpath(fn)
    for root in roots:
        if p.startswith(root + sep):
            return p[len(root) + 1:].split(sep)[0].split(".")[0]
    return ""


def is_framework_code(fn, k, run):
    # The spec's and harness's code, and the test framework's packages.
    return k == "base" or (k in ("lib", "std") and top_package(fn, run.libs + run.std) in run.framework)


def relative(p, tree):
    # A path as a finding names it: relative to the tree when inside it.
    p = realpath(p)
    return p[len(tree) + 1:] if p.startswith(tree + sep) else p


def place(f, tree):
    fn = f.f_code.co_filename
    p = realpath(fn) if not fn.startswith("<") else fn
    if p.startswith(tree + sep):
        p = p[len(tree) + 1:]
    return p, f.f_lineno


def past(f, kinds, kind):
    while f is not None and kind(f.f_code.co_filename) in kinds:
        f = f.f_back
    return f


def actor(f, kind):
    # The first frame that is not the standard library: whose code asked for it.
    return past(f, ("std", "guard", "gen"), kind)


def patch_frame(f, kind):
    while f is not None:
        if kind(f.f_code.co_filename) == "patch":
            return f
        f = f.f_back
    return None


def has_lib(f, kind):
    while f is not None:
        if kind(f.f_code.co_filename) == "lib":
            return True
        f = f.f_back
    return False


def is_patch(f, kind):
    return f is not None and kind(f.f_code.co_filename) == "patch"


def opens_for_writing(mode, flags):
    return bool(isinstance(flags, int) and flags & WRITE or isinstance(mode, str) and ("w" in mode or "a" in mode or "x" in mode or "+" in mode))


def needs_look(ev, args):
    # The frequent events, most of which concern nothing here, leave at once.
    if ev == "open":
        return opens_for_writing(args[1], args[2])
    if ev == "object.__getattr__":
        return args[1] in FRAME_ATTRS
    if ev == "object.__setattr__":
        return args[1] in CODE_ATTRS
    return True


def full(p):
    # An absolute path with its folder resolved, its last part as given.
    if isinstance(p, bytes):
        p = fsdecode(p)
    if not isinstance(p, str):
        return None
    p = p if isabs(p) else join(getcwd(), p)
    head, tail = split(p)
    return join(realpath(head), tail)


def write_finding(raw, f, run, kind):
    # A write of `raw` asked with frame f on the stack: (detail, frame to
    # name) when it is a finding, else None.
    p = full(raw)
    if p is None or p in HARMLESS:
        return None
    if p == run.report or realpath(p) == run.report:
        pf = patch_frame(f, kind)
        # Nothing but the standard library on the stack is a thread or a
        # finalizer production code left: nobody else answers for it.
        if pf is not None or not has_lib(f, kind):
            return "writes the test report %s" % raw, pf or actor(f, kind) or f
    elif not under(realpath(p), run.writable):
        pf = patch_frame(f, kind)
        if pf is not None:
            return "writes outside the run's temporary root: %s" % raw, pf
    return None


def frame_of(obj, name):
    if name == "f_code":
        return obj
    fr = getattr(obj, name, None)
    return fr if fr is not None and hasattr(fr, "f_code") else None


def outward_reader(fr, f, kind, framework_code):
    # The production frame that reads fr, a frame of the spec, harness or
    # framework; None unless fr is one of the reading code's own callees (the
    # standard library inspecting itself on the way).
    if fr is None or not framework_code(fr.f_code.co_filename):
        return None
    a = actor(f, kind)
    if not is_patch(a, kind):
        return None
    while f is not None and f is not a:
        if f is fr:
            return None
        f = f.f_back
    return a


def code_swapper(obj, name, f, kind, framework_code):
    # The production frame that replaces the code, defaults or globals of a
    # function of the spec, harness or framework; else None.
    if name in CODE_ATTRS and hasattr(obj, "__code__") and framework_code(obj.__code__.co_filename):
        a = actor(f, kind)
        if is_patch(a, kind):
            return a
    return None


def is_framework_module(name, framework):
    return name.partition(".")[0] in framework


def is_cached_bytecode_in(path, tree):
    # Cached bytecode in the tree is never read: a committed __pycache__ file
    # (an unchecked-hash one above all) could stand in for its source.
    return path.endswith(".pyc") and realpath(path).startswith(tree + sep)


def still_pending(what, obj):
    # A thread production code started, or a finalizer it registered, left to
    # run after the session.
    return obj.is_alive() if what == "thread" else obj.alive and obj.atexit


def install(cfg_path):
    import json

    with open(cfg_path, encoding="utf-8") as f:
        cfg = json.load(f)
    fd = os.open(cfg["channel"], os.O_WRONLY)
    write = os.write

    def send(rec):
        rec["pid"] = getpid()
        line = (json.dumps(rec) + "\n").encode()
        try:
            write(fd, line)
        except OSError:
            pass  # the channel is gone: the final record cannot come either, so the run fails closed

    version = sys.version.split()[0]
    send({"t": "start", "rt": "python", "v": version})
    if not hasattr(sys, "addaudithook"):
        send({"t": "finding", "event": "python", "detail": "Python %s has no audit hooks (3.8 or newer is needed)" % version, "file": "", "line": 0})
        return
    libs, std = install_roots()
    run = Run(cfg, dirname(realpath(__file__)), libs, std, getcwd())
    if run.main and run.main != run.tree:
        sys.path[:] = [moved(p, run) for p in sys.path]
    _arm(run, send)


def _judges(run, send):
    # The run's memoized judges of a file, its finding sender (once per
    # place), and quiet: fn run with the hook ignoring what fn itself does.
    kinds, frameworks, sent, busy = {}, {}, set(), set()

    def kind(fn):
        k = kinds.get(fn)
        if k is None:
            k = kinds[fn] = classify(fn, run)
        return k

    def framework_code(fn):
        # Asked for every frame a tracer reads (Hypothesis's explain phase
        # reads f_code on each line): decided once per file, as kind is.
        r = frameworks.get(fn)
        if r is None:
            r = frameworks[fn] = is_framework_code(fn, kind(fn), run)
        return r

    def finding(event, detail, f):
        file, line = place(f, run.tree) if f is not None else ("", 0)
        key = (event, file, line)
        if key not in sent:  # once per place: a loop must not flood the channel
            sent.add(key)
            send({"t": "finding", "event": event, "detail": str(detail)[:300], "file": file, "line": line})

    def quiet(fn):
        def run_quiet(*a, **k):
            me = get_ident()
            if me in busy:
                return fn(*a, **k)
            busy.add(me)
            try:
                return fn(*a, **k)
            finally:
                busy.discard(me)
        return run_quiet

    return kinds, busy, kind, framework_code, finding, quiet


def _handlers(run, kind, framework_code, finding):
    # What each audit event the guard judges is checked for, by event name.
    def touch(event, paths, f):
        for raw in paths:
            hit = write_finding(raw, f, run, kind)
            if hit is not None:
                finding(event, hit[0], hit[1])
                return

    def on_paths(n):
        def h(args, f, ev):
            touch(ev, args[:n], f)
        return h

    def innermost(event, detail=None):
        def h(args, f, ev):
            f = past(f, ("guard", "gen"), kind)
            if is_patch(f, kind):
                finding(ev, detail or ev, f)
        return h

    def by_actor(detail):
        def h(args, f, ev):
            a = actor(f, kind)
            if is_patch(a, kind):
                finding(ev, detail(args) if callable(detail) else detail, a)
        return h

    def reads(fr, f, what):
        a = outward_reader(fr, f, kind, framework_code)
        if a is not None:
            p, l = place(fr, run.tree)
            finding("frame read", "reads a frame of %s:%s (%s)" % (p, l, what), a)

    def own_reader(f):
        # Whose code reads is asked first: most reads come from an installed
        # package (Hypothesis's tracer reads f_code on every line, its engine
        # takes frames with sys._getframe), whose frame is its own actor and
        # never production code.
        return f is not None and kind(f.f_code.co_filename) in ("lib", "base")

    def on_getattr(args, f, ev):
        if not own_reader(f):
            reads(frame_of(args[0], args[1]), f, args[1])

    def on_getframe(args, f, ev):
        if not own_reader(f):
            reads(args[0] if args else None, f, "sys._getframe")

    def on_setattr(args, f, ev):
        obj, name = args[0], args[1]
        a = code_swapper(obj, name, f, kind, framework_code)
        if a is not None:
            finding("object.__setattr__", "replaces %s of %s" % (name, getattr(obj, "__qualname__", "?")), a)

    return {
        "open": lambda args, f, ev: touch(ev, args[:1], f),
        "os.rename": on_paths(2), "os.link": on_paths(2), "os.symlink": on_paths(2),
        "os.truncate": on_paths(1), "os.remove": on_paths(1), "os.rmdir": on_paths(1), "os.chmod": on_paths(1), "os.utime": on_paths(1),
        "shutil.copyfile": on_paths(2), "shutil.move": on_paths(2), "shutil.rmtree": on_paths(1),
        "gc.get_objects": innermost("gc.get_objects"), "gc.get_referrers": innermost("gc.get_referrers"), "gc.get_referents": innermost("gc.get_referents"),
        "compile": innermost("compile", "compiles code from a string"),
        "marshal.loads": innermost("marshal.loads", "loads compiled code from bytes"), "marshal.load": innermost("marshal.load", "loads compiled code from a file"),
        "code.__new__": innermost("code.__new__", "builds a code object"),
        "object.__setattr__": on_setattr,
        "object.__getattr__": on_getattr,
        "sys._getframe": on_getframe,
        "sys._current_frames": by_actor("reads every thread's frames"),
        "sys.settrace": by_actor("installs a trace function"), "sys.setprofile": by_actor("installs a profile function"),
        "sys.monitoring.register_callback": by_actor("registers a sys.monitoring callback"),
        "sys.addaudithook": by_actor("adds an audit hook"),
        "ctypes.dlopen": by_actor(lambda a: "loads a native library %s" % (a[0],)), "ctypes.dlsym": by_actor(lambda a: "looks up a native symbol %s" % (a[1:2],)),
        "ctypes.cdata": by_actor("reads native memory"), "ctypes.call_function": by_actor("calls a native function"),
        "subprocess.Popen": by_actor(lambda a: "starts a process %s" % (a[0],)), "os.system": by_actor(lambda a: "starts a process %s" % (a[0],)),
        "os.exec": by_actor(lambda a: "replaces the process with %s" % (a[0],)), "os.posix_spawn": by_actor(lambda a: "starts a process %s" % (a[0],)),
        "os.spawn": by_actor(lambda a: "starts a process %s" % (a[1],)), "os.fork": by_actor("forks the process"), "os.forkpty": by_actor("forks the process"),
        "pty.spawn": by_actor("starts a process"),
        "os.kill": by_actor(lambda a: "sends signal %s to %s" % (a[1], a[0])), "os.killpg": by_actor(lambda a: "sends signal %s to group %s" % (a[1], a[0])),
        "signal.pthread_kill": by_actor("sends a signal to a thread"),
    }


def _hook(handlers, busy, send):
    def hook(ev, args):
        h = handlers.get(ev)
        if h is None:
            return
        # The guard's own reads (its frame walks) leave at once.
        me = get_ident()
        if me in busy or not needs_look(ev, args):
            return
        busy.add(me)
        try:
            try:
                f = _getframe(1)
            except ValueError:
                # No Python frame at all: the interpreter itself, compiling the
                # command of `python -c` (how xdist starts its workers).
                f = None
            h(args, f, ev)
        except Exception as e:  # the guard must never be the reason a run passes
            send({"t": "finding", "event": "guard", "detail": "the guard failed on %s: %r" % (ev, e), "file": "", "line": 0})
        finally:
            busy.discard(me)
    return hook


def _wrap_registries(run, kind, finding, quiet, late):
    # What audit events do not show: registries whose callee runs after the
    # session. Returns atexit's own register, for the final record.
    import atexit, threading, weakref

    def from_patch():
        f = past(_getframe(1), ("guard", "gen"), kind)
        return f if is_patch(f, kind) else None

    def refused(event, detail, real):
        # real(func, ...), with a finding when production code calls it.
        @quiet
        def wrapper(func, *a, **k):
            f = from_patch()
            if f is not None:
                finding(event, detail(getattr(func, "__qualname__", func)), f)
            return real(func, *a, **k)
        return wrapper

    at_exit = lambda name: "registers %s to run at exit, after the session" % name
    real_register = atexit.register
    atexit.register = refused("atexit.register", at_exit, real_register)
    real_reg_atexit = getattr(threading, "_register_atexit", None)
    if real_reg_atexit is not None:
        threading._register_atexit = refused("threading._register_atexit", at_exit, real_reg_atexit)
    _thread.start_new_thread = refused("_thread.start_new_thread", lambda name: "starts a raw thread running %s" % name, _thread.start_new_thread)
    threading.settrace = refused("threading.settrace", lambda _: "installs a trace function for every thread", threading.settrace)
    threading.setprofile = refused("threading.setprofile", lambda _: "installs a profile function for every thread", threading.setprofile)

    real_start = threading.Thread.start

    @quiet
    def start(self):
        f = from_patch()
        if f is not None:
            late.append(("thread", self, place(f, run.tree)))
        return real_start(self)
    threading.Thread.start = start

    real_finalize = weakref.finalize.__init__

    def finalize(self, obj, func, /, *args, **kwargs):
        real_finalize(self, obj, func, *args, **kwargs)
        f = quiet(from_patch)()
        if f is not None:
            late.append(("finalizer", self, place(f, run.tree)))
    weakref.finalize.__init__ = finalize
    return real_register


def _wrap_imports(run, kinds, busy, kind, finding):
    # Imports of the framework's modules, also of those already loaded (which
    # raise no audit event).
    import builtins, importlib

    framework = run.framework

    def framework_import(name):
        # Most imports of the framework are its own, inside functions it
        # calls on every example (Hypothesis's): an importer whose file is
        # known to be an installed package, the standard library or the
        # base's settles it without the walk (it is the frame the walk ends at).
        me = get_ident()
        nested = me in busy
        busy.add(me)
        try:
            importer = _getframe(2)
            if kinds.get(importer.f_code.co_filename) not in ("lib", "std", "base"):
                f = past(_getframe(1), ("guard", "gen"), kind)
                if is_patch(f, kind):
                    finding("import", "imports the test framework module %s" % name, f)
        finally:
            if not nested:
                busy.discard(me)

    real_import = builtins.__import__

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and is_framework_module(name, framework):
            framework_import(name)
        return real_import(name, globals, locals, fromlist, level)
    builtins.__import__ = guarded_import

    real_import_module = importlib.import_module

    def import_module(name, package=None):
        if is_framework_module(name, framework):
            framework_import(name)
        return real_import_module(name, package)
    importlib.import_module = import_module


def _wrap_loaders(run, kind, send, quiet):
    # Modules loaded from the tree without source: bytecode and native code.
    from importlib import machinery

    def no_source(cls, method, what):
        real = getattr(cls, method)

        def wrapped(self, *a, **k):
            p = getattr(self, "path", None)
            if p and quiet(kind)(p) == "patch":
                send({"t": "finding", "event": "import", "detail": "loads %s %s" % (what, p), "file": quiet(relative)(p, run.tree), "line": 0})
            return real(self, *a, **k)
        setattr(cls, method, wrapped)

    no_source(machinery.SourcelessFileLoader, "get_code", "a compiled module without its source:")
    real_get_data = machinery.SourceFileLoader.get_data

    def get_data(self, path):
        if is_cached_bytecode_in(path, run.tree):
            raise OSError("patchwarden: bytecode cached in the tree is not read")
        return real_get_data(self, path)
    machinery.SourceFileLoader.get_data = get_data
    no_source(machinery.ExtensionFileLoader, "create_module", "a native extension module:")


def _arm(run, send):
    kinds, busy, kind, framework_code, finding, quiet = _judges(run, send)
    late = []  # (kind, object, (file, line)) registered by production code
    real_register = _wrap_registries(run, kind, finding, quiet, late)
    _wrap_imports(run, kinds, busy, kind, finding)
    _wrap_loaders(run, kind, send, quiet)
    over = []

    def session_over():
        # Called at the end of the session: whatever production code left
        # to run after it is a finding.
        if over:
            return
        over.append(True)
        for what, obj, (file, line) in late:
            if still_pending(what, obj):
                send({"t": "finding", "event": what, "detail": "a %s started by production code is still pending after the session" % what, "file": file, "line": line})

    def final():
        session_over()
        send({"t": "final"})

    real_register(final)  # registered first, so it runs last
    sys.addaudithook(_hook(_handlers(run, kind, framework_code, finding), busy, send))
    g = sys.modules["_patchwarden_guard"] = type(sys)("_patchwarden_guard")
    g.send, g.kind, g.session_over, g.quiet, g.framework = send, kind, session_over, quiet, run.framework
    g.where_path = lambda p: relative(p, run.tree)
    plugins = os.environ.get("PYTEST_PLUGINS", "")
    if "_patchwarden_pytest" not in plugins.split(","):
        os.environ["PYTEST_PLUGINS"] = ",".join(p for p in (plugins, "_patchwarden_pytest") if p)
