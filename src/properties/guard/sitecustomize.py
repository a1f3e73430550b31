# patchwarden's runtime guard for one property run. Loaded through
# PYTHONPATH before any project code, it installs a PEP 578 audit hook (which
# cannot be removed) and wraps the few registries audit events miss. Each
# event that production code causes is sent as a record over the run's
# channel before the action happens; the run's last record says the
# interpreter ended through the guard. Nothing here is meant to stop the
# code: patchwarden refuses the run on any finding, or on a missing record.
import sys


def _guard():
    import os
    cfg_path = os.environ.get("PATCHWARDEN_GUARD")
    if not cfg_path:
        return
    import json
    with open(cfg_path, encoding="utf-8") as f:
        cfg = json.load(f)
    fd = os.open(cfg["channel"], os.O_WRONLY)

    def send(rec):
        rec["pid"] = os.getpid()
        line = (json.dumps(rec) + "\n").encode()
        try:
            os.write(fd, line)
        except OSError:
            pass  # the channel is gone: the final record cannot come either, so the run fails closed

    send({"t": "start", "rt": "python", "v": sys.version.split()[0]})
    if not hasattr(sys, "addaudithook"):
        send({"t": "finding", "event": "python", "detail": "Python %s has no audit hooks (3.8 or newer is needed)" % sys.version.split()[0], "file": "", "line": 0})
        return

    import atexit, builtins, importlib, site, sysconfig, threading, weakref, _thread

    realpath, isabs, join, sep = os.path.realpath, os.path.isabs, os.path.join, os.sep
    tree = cfg["tree"]
    trusted = frozenset(cfg["trusted"])
    report = cfg["report"]
    writable = tuple(cfg["writable"])
    guard_dir = os.path.dirname(realpath(__file__))
    # A sealed run's runtimes (proxies, worker) are the harness's code.
    runtime = cfg.get("runtime")
    framework = frozenset(cfg["framework"])
    cwd = os.getcwd()

    def under(p, roots):
        return any(p == r or p.startswith(r + sep) for r in roots)

    libs = set()
    for p in [sysconfig.get_paths().get(k) for k in ("purelib", "platlib")] + list(getattr(site, "getsitepackages", lambda: [])()) + [getattr(site, "getusersitepackages", lambda: None)()]:
        if p:
            libs.add(realpath(p))
    std = {realpath(p) for p in (sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("platstdlib")) if p}
    libs, std = tuple(libs), tuple(std)
    main = cfg.get("main")
    if main and main != tree:
        # An editable install (pip's, uv's, poetry's: a .pth naming the
        # project's source folder) puts the repository's own working tree on
        # the import path: the run imports the same folder of the tree it
        # judges. Installed packages (a .venv in the repository too) and this
        # guard stay where they are.
        def moved(p):
            r = realpath(p) if isinstance(p, str) and isabs(p) else None
            if not r or not under(r, (main,)) or under(r, (tree, guard_dir) + libs + std):
                return p
            return tree + r[len(main):]

        sys.path[:] = [moved(p) for p in sys.path]

    kinds = {}

    def kind(fn):
        # 'std' the standard library, 'lib' an installed package, 'base' the
        # spec or harness as on the base side, 'guard' this file, 'gen' code
        # compiled from a string, 'patch' the rest.
        k = kinds.get(fn)
        if k is not None:
            return k
        if fn.startswith("<"):
            # Generated code (exec'd strings) answers for whoever called it.
            k = "std" if fn.startswith("<frozen ") else "gen"
        else:
            p = realpath(fn if isabs(fn) else join(cwd, fn))
            if p.startswith(guard_dir + sep):
                k = "guard"
            elif under(p, libs):
                k = "lib"
            elif under(p, std):
                k = "std"
            elif p.startswith(tree + sep) and p[len(tree) + 1:].replace(sep, "/") in trusted:
                k = "base"
            elif runtime and p.startswith(runtime + sep):
                k = "base"
            else:
                k = "patch"
        kinds[fn] = k
        return k

    def top_package(fn):
        p = realpath(fn)
        for root in libs + std:
            if p.startswith(root + sep):
                return p[len(root) + 1:].split(sep)[0].split(".")[0]
        return ""

    frameworks = {}

    def framework_code(fn):
        # Asked for every frame a tracer reads (Hypothesis's explain phase
        # reads f_code on each line): decided once per file, as kind is.
        r = frameworks.get(fn)
        if r is None:
            k = kind(fn)
            r = frameworks[fn] = k == "base" or (k in ("lib", "std") and top_package(fn) in framework)
        return r

    def where(f):
        fn = f.f_code.co_filename
        p = realpath(fn) if not fn.startswith("<") else fn
        if p.startswith(tree + sep):
            p = p[len(tree) + 1:]
        return p, f.f_lineno

    def caller():
        # The frame that called into the guard, past the guard's own frames.
        return past(sys._getframe(1), ("guard", "gen"))

    def past(f, kinds):
        while f is not None and kind(f.f_code.co_filename) in kinds:
            f = f.f_back
        return f

    def actor(f):
        # The first frame that is not the standard library: whose code asked for it.
        return past(f, ("std", "guard", "gen"))

    def patch_frame(f):
        while f is not None:
            if kind(f.f_code.co_filename) == "patch":
                return f
            f = f.f_back
        return None

    def has_lib(f):
        while f is not None:
            if kind(f.f_code.co_filename) == "lib":
                return True
            f = f.f_back
        return False

    sent = set()

    def finding(event, detail, f):
        file, line = where(f) if f is not None else ("", 0)
        key = (event, file, line)
        if key not in sent:  # once per place: a loop must not flood the channel
            sent.add(key)
            send({"t": "finding", "event": event, "detail": str(detail)[:300], "file": file, "line": line})

    busy = set()

    def quiet(fn):
        # Runs fn with the hook ignoring what fn itself does.
        def run(*a, **k):
            me = _thread.get_ident()
            if me in busy:
                return fn(*a, **k)
            busy.add(me)
            try:
                return fn(*a, **k)
            finally:
                busy.discard(me)
        return run

    WRITE = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
    HARMLESS = ("/dev/null",)

    def full(p):
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        if not isinstance(p, str):
            return None
        p = p if isabs(p) else join(os.getcwd(), p)
        head, tail = os.path.split(p)
        return join(realpath(head), tail)

    def touch(event, paths, f):
        for raw in paths:
            p = full(raw)
            if p is None or p in HARMLESS:
                continue
            if p == report or realpath(p) == report:
                pf = patch_frame(f)
                if pf is not None or not has_lib(f):
                    finding(event, "writes the test report %s" % raw, pf or actor(f) or f)
                    return
            elif not under(realpath(p), writable):
                pf = patch_frame(f)
                if pf is not None:
                    finding(event, "writes outside the run's temporary root: %s" % raw, pf)
                    return


    def on_paths(n):
        def h(args, f, ev):
            touch(ev, args[:n], f)
        return h

    def innermost(event, detail=None):
        def h(args, f, ev):
            f = past(f, ("guard", "gen"))
            if f is not None and kind(f.f_code.co_filename) == "patch":
                finding(ev, detail or ev, f)
        return h

    def by_actor(detail):
        def h(args, f, ev):
            a = actor(f)
            if a is not None and kind(a.f_code.co_filename) == "patch":
                finding(ev, detail(args) if callable(detail) else detail, a)
        return h

    FRAME_ATTRS = frozenset(("f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame"))
    CODE_ATTRS = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__globals__"))

    def frame_of(obj, name):
        if name == "f_code":
            return obj
        fr = getattr(obj, name, None)
        return fr if fr is not None and hasattr(fr, "f_code") else None

    def reads_outward(fr, f, what):
        # A frame of the spec, harness or framework read by production code,
        # unless it is one of the reading code's own callees (the standard
        # library inspecting itself on the way).
        if fr is None or not framework_code(fr.f_code.co_filename):
            return
        a = actor(f)
        if a is None or kind(a.f_code.co_filename) != "patch":
            return
        while f is not None and f is not a:
            if f is fr:
                return
            f = f.f_back
        p, l = where(fr)
        finding("frame read", "reads a frame of %s:%s (%s)" % (p, l, what), a)

    def on_getattr(args, f, ev):
        # Whose code reads is asked first: most reads come from a tracer in an
        # installed package (Hypothesis's reads f_code on every line), whose
        # frame is its own actor and never production code.
        if f is not None and kind(f.f_code.co_filename) in ("lib", "base"):
            return
        obj, name = args[0], args[1]
        reads_outward(frame_of(obj, name), f, name)

    def on_getframe(args, f, ev):
        reads_outward(args[0] if args else None, f, "sys._getframe")

    def on_setattr(args, f, ev):
        obj, name = args[0], args[1]
        if name in CODE_ATTRS and hasattr(obj, "__code__") and framework_code(obj.__code__.co_filename):
            a = actor(f)
            if a is not None and kind(a.f_code.co_filename) == "patch":
                finding("object.__setattr__", "replaces %s of %s" % (name, getattr(obj, "__qualname__", "?")), a)

    HANDLERS = {
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

    def hook(ev, args):
        h = HANDLERS.get(ev)
        if h is None:
            return
        # The guard's own reads (its frame walks) and the frequent events, most
        # of which concern nothing here, leave at once.
        me = _thread.get_ident()
        if me in busy:
            return
        if ev == "open":
            mode, flags = args[1], args[2]
            if not (isinstance(flags, int) and flags & WRITE or isinstance(mode, str) and ("w" in mode or "a" in mode or "x" in mode or "+" in mode)):
                return
        elif ev == "object.__getattr__":
            if args[1] not in FRAME_ATTRS:
                return
        elif ev == "object.__setattr__":
            if args[1] not in CODE_ATTRS:
                return
        busy.add(me)
        try:
            try:
                f = sys._getframe(1)
            except ValueError:
                # No Python frame at all: the interpreter itself, compiling the
                # command of `python -c` (how xdist starts its workers).
                f = None
            h(args, f, ev)
        except Exception as e:  # the guard must never be the reason a run passes
            send({"t": "finding", "event": "guard", "detail": "the guard failed on %s: %r" % (ev, e), "file": "", "line": 0})
        finally:
            busy.discard(me)

    # What audit events do not show: registries whose callee runs after the
    # session, imports of modules already loaded, sourceless modules.
    late = []  # (kind, object, file, line) registered by production code

    def from_patch():
        f = caller()
        return f if f is not None and kind(f.f_code.co_filename) == "patch" else None

    real_register = atexit.register

    @quiet
    def register(func, *a, **k):
        f = from_patch()
        if f is not None:
            finding("atexit.register", "registers %s to run at exit, after the session" % getattr(func, "__qualname__", func), f)
        return real_register(func, *a, **k)
    atexit.register = register

    real_reg_atexit = getattr(threading, "_register_atexit", None)
    if real_reg_atexit is not None:
        @quiet
        def _register_atexit(func, *a, **k):
            f = from_patch()
            if f is not None:
                finding("threading._register_atexit", "registers %s to run at exit, after the session" % getattr(func, "__qualname__", func), f)
            return real_reg_atexit(func, *a, **k)
        threading._register_atexit = _register_atexit

    real_start = threading.Thread.start

    @quiet
    def start(self):
        f = from_patch()
        if f is not None:
            late.append(("thread", self, where(f)))
        return real_start(self)
    threading.Thread.start = start

    real_new_thread = _thread.start_new_thread

    @quiet
    def start_new_thread(func, *a, **k):
        f = from_patch()
        if f is not None:
            finding("_thread.start_new_thread", "starts a raw thread running %s" % getattr(func, "__qualname__", func), f)
        return real_new_thread(func, *a, **k)
    _thread.start_new_thread = start_new_thread

    real_finalize = weakref.finalize.__init__

    def finalize(self, obj, func, /, *args, **kwargs):
        real_finalize(self, obj, func, *args, **kwargs)
        f = quiet(from_patch)()
        if f is not None:
            late.append(("finalizer", self, where(f)))
    weakref.finalize.__init__ = finalize

    real_settrace = threading.settrace

    @quiet
    def settrace(func):
        f = from_patch()
        if f is not None:
            finding("threading.settrace", "installs a trace function for every thread", f)
        return real_settrace(func)
    threading.settrace = settrace
    real_setprofile = threading.setprofile

    @quiet
    def setprofile(func):
        f = from_patch()
        if f is not None:
            finding("threading.setprofile", "installs a profile function for every thread", f)
        return real_setprofile(func)
    threading.setprofile = setprofile

    real_import = builtins.__import__

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name.partition(".")[0] in framework:
            framework_import(name)
        return real_import(name, globals, locals, fromlist, level)
    builtins.__import__ = guarded_import

    real_import_module = importlib.import_module

    def import_module(name, package=None):
        if name.partition(".")[0] in framework:
            framework_import(name)
        return real_import_module(name, package)
    importlib.import_module = import_module

    def framework_import(name):
        # Most imports of the framework are its own, inside functions it
        # calls on every example (Hypothesis's): an importer whose file is
        # known to be an installed package, the standard library or the
        # base's settles it without the walk (it is the frame the walk ends at).
        me = _thread.get_ident()
        nested = me in busy
        busy.add(me)
        try:
            importer = sys._getframe(2)
            if kinds.get(importer.f_code.co_filename) not in ("lib", "std", "base"):
                check_import(name)
        finally:
            if not nested:
                busy.discard(me)

    def check_import(name):
        f = caller()
        if f is not None and kind(f.f_code.co_filename) == "patch":
            finding("import", "imports the test framework module %s" % name, f)

    from importlib import machinery

    def no_source(cls, method, what):
        real = getattr(cls, method)

        def wrapped(self, *a, **k):
            p = getattr(self, "path", None)
            if p and quiet(kind)(p) == "patch":
                send({"t": "finding", "event": "import", "detail": "loads %s %s" % (what, p), "file": quiet(lambda: where_path(p))(), "line": 0})
            return real(self, *a, **k)
        setattr(cls, method, wrapped)

    def where_path(p):
        p = realpath(p)
        return p[len(tree) + 1:] if p.startswith(tree + sep) else p

    no_source(machinery.SourcelessFileLoader, "get_code", "a compiled module without its source:")

    # Cached bytecode in the tree is never read: a committed __pycache__ file
    # (an unchecked-hash one above all) could stand in for its source.
    real_get_data = machinery.SourceFileLoader.get_data

    def get_data(self, path):
        if path.endswith(".pyc") and realpath(path).startswith(tree + sep):
            raise OSError("patchwarden: bytecode cached in the tree is not read")
        return real_get_data(self, path)
    machinery.SourceFileLoader.get_data = get_data
    no_source(machinery.ExtensionFileLoader, "create_module", "a native extension module:")

    state = {"over": False}

    def session_over():
        # Called at the end of the session: whatever production code left
        # to run after it is a finding.
        if state["over"]:
            return
        state["over"] = True
        for what, obj, (file, line) in late:
            alive = obj.is_alive() if what == "thread" else obj.alive and obj.atexit
            if alive:
                send({"t": "finding", "event": what, "detail": "a %s started by production code is still pending after the session" % what, "file": file, "line": line})

    def final():
        session_over()
        send({"t": "final"})

    real_register(final)  # registered first, so it runs last
    sys.addaudithook(hook)
    sys.modules["_patchwarden_guard"] = type(sys)("_patchwarden_guard")
    g = sys.modules["_patchwarden_guard"]
    g.send, g.kind, g.where_path, g.session_over, g.quiet, g.framework = send, kind, where_path, session_over, quiet, framework

    plugins = os.environ.get("PYTEST_PLUGINS", "")
    if "_patchwarden_pytest" not in plugins.split(","):
        os.environ["PYTEST_PLUGINS"] = ",".join(p for p in (plugins, "_patchwarden_pytest") if p)


_guard()
del _guard


def _chain():
    # The project's own sitecustomize, if it has one, runs after the guard.
    import importlib.machinery, importlib.util, os
    here = os.path.dirname(os.path.realpath(__file__))
    rest = [p for p in sys.path if os.path.realpath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_chain()
del _chain
