# The property side of a sealed run, run by the pytest plugin
# patchwarden_sealed.py before any conftest.py or spec file is imported. An
# import hook turns each module whose file is in the run's src list into a
# proxy; the real module loads in a worker process
# (patchwarden_sealed_worker.py) started at the first such import, and every
# attribute read, call and iteration crosses the channel as data. Nothing
# here unpickles or runs what the worker sends: plain values are rebuilt as
# base types, records as stand-ins compared field by field, the rest as
# handles that refuse bool(), ==, < and hash(); a production exception is
# raised again as the same built-in type or a stand-in named after its
# class, through frames compiled with the production file's name and lines
# so the report shows them as an unsealed run does. The plugin gives this
# code `_HERE`, and from the wire `Channel`, `Closed` and `plain_decoders`.
import atexit
import collections
import datetime
import functools
import importlib.machinery
import json
import keyword
import os
import subprocess
import sys
import threading
import time
import types
import weakref

import pytest

# pytest leaves this module's frames out of its reports: a failure reads as
# the test and the production frames, as unsealed.
__tracebackhide__ = True

_WORKER = os.path.join(_HERE, "patchwarden_sealed_worker.py")
_MODE = "sealed mode"


def _config():
    path = os.environ.get("PATCHWARDEN_SEALED")
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["src"] = frozenset(cfg["src"])
    return cfg


_CFG = _config()


class WorkerGone(RuntimeError):
    """The worker ended (production code left the process): every later crossing fails."""


# --- values from the worker -------------------------------------------------


def _refused(what, typename):
    raise TypeError("%s: %s on a production %s object is refused; compare its fields or a value computed from it" % (_MODE, what, typename))


# The dunder attributes a handle reads from the worker: names, as text.
_NAMES = frozenset(("__name__", "__qualname__", "__module__", "__doc__"))


class _Handle:
    """A production object that is not data: each use is a request to the worker."""

    __slots__ = ("_pw_wid", "_pw_type", "__weakref__")

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name not in _NAMES:
            raise AttributeError(name)
        return _client.request(["get", self._pw_wid, name])

    def __setattr__(self, name, value):
        if name in _Handle.__slots__:
            object.__setattr__(self, name, value)
        else:
            _client.request(["set", self._pw_wid, name, _enc(value)])

    def __call__(self, *args, **kwargs):
        return _client.request(["call", self._pw_wid, _enc(list(args)), _enc(kwargs)])

    def _pw_method(self, name, *args):
        return _client.request(["method", self._pw_wid, name, _enc(list(args))])

    def __iter__(self):
        return self._pw_method("__iter__")

    def __next__(self):
        return self._pw_method("__next__")

    def __len__(self):
        return self._pw_method("__len__")

    def __getitem__(self, key):
        return self._pw_method("__getitem__", key)

    def __setitem__(self, key, value):
        return self._pw_method("__setitem__", key, value)

    def __contains__(self, item):
        return self._pw_method("__contains__", item)

    def __enter__(self):
        return self._pw_method("__enter__")

    def __exit__(self, *exc):
        return self._pw_method("__exit__", None, None, None)

    def __repr__(self):
        try:
            text = self._pw_method("__repr__")
        except Exception:
            text = None
        return text if type(text) is str else "<production %s>" % self._pw_type

    def __str__(self):
        text = self._pw_method("__str__")
        return text if type(text) is str else repr(self)

    def __bool__(self):
        _refused("bool()", self._pw_type)

    def __eq__(self, other):
        _refused("==", self._pw_type)

    def __ne__(self, other):
        _refused("!=", self._pw_type)

    def __lt__(self, other):
        _refused("<", self._pw_type)

    def __le__(self, other):
        _refused("<=", self._pw_type)

    def __gt__(self, other):
        _refused(">", self._pw_type)

    def __ge__(self, other):
        _refused(">=", self._pw_type)

    def __hash__(self):
        _refused("hash()", self._pw_type)

    def __del__(self):
        _client.dropped(self._pw_wid)


class _Record:
    """A production record by value: compared, hashed and printed by its fields, never by production code."""

    _pw_names = ()

    def _pw_values(self):
        return tuple(getattr(self, n) for n in self._pw_names)

    def __eq__(self, other):
        return type(other) is type(self) and self._pw_values() == other._pw_values() if isinstance(other, _Record) else NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def _pw_order(self, other, op):
        if type(other) is not type(self):
            return NotImplemented
        return op(self._pw_values(), other._pw_values())

    def __lt__(self, other):
        return self._pw_order(other, tuple.__lt__)

    def __le__(self, other):
        return self._pw_order(other, tuple.__le__)

    def __gt__(self, other):
        return self._pw_order(other, tuple.__gt__)

    def __ge__(self, other):
        return self._pw_order(other, tuple.__ge__)

    def __hash__(self):
        return hash((type(self).__qualname__, self._pw_values()))

    def __repr__(self):
        return "%s(%s)" % (type(self).__qualname__, ", ".join("%s=%r" % (n, getattr(self, n)) for n in self._pw_names))


class _EnumRecord(_Record):
    def __eq__(self, other):
        if isinstance(other, _Record):
            return other is self
        # An IntEnum or str-mixed enum equals its value, as unsealed.
        return self.value == other if type(self.value) in (int, str) and type(other) is type(self.value) else NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "<%s.%s: %r>" % (type(self).__qualname__, self.name, self.value)

    def __str__(self):
        return "%s.%s" % (type(self).__qualname__, self.name)


class _RecordClass(type):
    """A production record class: calling it builds the record in the worker and returns its stand-in."""

    def __call__(cls, *args, **kwargs):
        return _client.request(["call", cls._pw_wid, _enc(list(args)), _enc(kwargs)])

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _client.request(["get", cls._pw_wid, name])

    def __iter__(cls):
        return _client.request(["method", cls._pw_wid, "__iter__", []])

    def __len__(cls):
        return _client.request(["method", cls._pw_wid, "__len__", []])


_classes = {}  # (module, qualname) -> stand-in class
_enum_members = {}  # (module, qualname, name) -> stand-in member


def _record_class(module, qualname, wid, kind, names):
    key = (module, qualname)
    cls = _classes.get(key)
    if cls is None:
        name = qualname.rpartition(".")[2]
        bases = (_EnumRecord,) if kind == "enum" else (_Record,)
        ns = {"__module__": module, "__qualname__": qualname, "_pw_wid": wid, "_pw_kind": kind, "_pw_names": tuple(names)}
        if kind == "namedtuple":
            # A NamedTuple is a tuple: compared, ordered and hashed as one.
            bases = (_Record, collections.namedtuple(name, names, rename=True))
            ns.update({k: getattr(tuple, k) for k in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__")}, __slots__=())
        cls = _classes[key] = _RecordClass(name, bases, ns)
    return cls


def _record(v):
    module, qualname, wid, kind, names = v[1:6]
    cls = _record_class(module, qualname, wid, kind, names)
    values = [_dec(x) for x in v[6:]]
    if len(values) != len(names) or any(type(n) is not str or n.startswith(("__", "_pw_")) for n in names):
        raise ValueError("%s: the worker sent a record of no valid fields" % _MODE)
    if kind == "enum":
        key = (module, qualname, values[0])
        member = _enum_members.get(key)
        if member is None:
            member = _enum_members[key] = object.__new__(cls)
            member.name, member.value = values
        return member
    if kind == "namedtuple":
        return tuple.__new__(cls, values)
    o = object.__new__(cls)
    for n, x in zip(names, values):
        object.__setattr__(o, n, x)
    return o


def _builtin_exception(name):
    import builtins

    t = getattr(builtins, name, None)
    return t if isinstance(t, type) and issubclass(t, Exception) else None


def _exc_class(v):
    module, qualname, wid, bases = v[1:5]
    if module == "builtins":
        # A BaseException that is no Exception (SystemExit, KeyboardInterrupt,
        # pytest's own outcomes) could end or skip the run: a stand-in instead.
        t = _builtin_exception(qualname)
        if t is not None:
            return t
    key = (module, qualname)
    cls = _classes.get(key)
    if cls is None:
        parents = tuple(b for b in (_exc_class(x) for x in bases) if issubclass(b, Exception)) or (Exception,)
        ns = {"__module__": module, "__qualname__": qualname, "_pw_wid": wid, "__str__": _exc_str}
        try:
            cls = type(qualname.rpartition(".")[2], parents, ns)
        except TypeError:  # bases whose layouts conflict
            cls = type(qualname.rpartition(".")[2], parents[:1], ns)
        _classes[key] = cls
    return cls


def _exc_str(self):
    text = self.__dict__.get("_pw_text")
    return text if text is not None else Exception.__str__(self)


def _exception(v):
    cls, args, text, attrs = _exc_class(v[1]), [_dec(a) for a in v[2]], v[3], v[4]
    try:
        e = cls(*args)
    except Exception:
        # A built-in whose constructor wants other arguments (UnicodeDecodeError).
        e = cls.__new__(cls)
        e.args = (text,)
    if "_pw_wid" in vars(cls):
        e._pw_text = text
    for i in range(0, len(attrs), 2):
        if type(attrs[i]) is not str or attrs[i].startswith(("__", "_pw_")):
            continue
        try:
            setattr(e, attrs[i], _dec(attrs[i + 1]))
        except Exception:
            pass
    return e


def _handle(v):
    wid = v[1]
    h = _handles.get(wid)
    if h is None:
        _client.revived(wid)
        h = object.__new__(_Handle)
        object.__setattr__(h, "_pw_wid", wid)
        object.__setattr__(h, "_pw_type", v[2])
        _handles[wid] = h
    return h


_handles = weakref.WeakValueDictionary()


def _dec(v):
    if type(v) is list:
        return _DECODE[v[0]](v)
    if v is None or type(v) in (bool, int, float, str):
        return v
    raise ValueError("%s: the worker sent a value of no known kind" % _MODE)


_DECODE = {
    **plain_decoders(_dec),
    "h": _handle,
    "r": _record,
    "k": lambda v: _record_class(v[1], v[2], v[3], v[4], v[5]),
    "x": _exc_class,
    "e": _exception,
    "c": lambda v: _client.callback(v[1]),
}


# --- values to the worker ---------------------------------------------------


def _enc(o, depth=0):
    t = type(o)
    if o is None or t is bool or t is int or t is str or t is float:
        return o
    if depth > 200:
        raise ValueError("%s: a value nested deeper than 200 levels (or cyclic) cannot cross" % _MODE)
    d = depth + 1
    if t is _Handle:
        return ["h", o._pw_wid]
    if isinstance(o, _Record):
        return ["r", t.__module__, t.__qualname__, t._pw_wid, t._pw_kind, list(t._pw_names), *[_enc(x, d) for x in o._pw_values()]]
    if isinstance(o, type) and type(vars(o).get("_pw_wid")) is int:  # a stand-in class, not _Handle's slot
        return ["h", o._pw_wid]
    if isinstance(o, (bool, int, float, str)):
        return (bool if isinstance(o, bool) else int if isinstance(o, int) else float if isinstance(o, float) else str)(o)
    if isinstance(o, (bytes, bytearray)):
        return ["b", bytes(o).decode("latin-1")]
    if isinstance(o, (list, tuple, set, frozenset)):
        tag = "l" if isinstance(o, list) else "t" if isinstance(o, tuple) else "f" if isinstance(o, frozenset) else "s"
        return [tag, *[_enc(x, d) for x in o]]
    if isinstance(o, dict):
        out = ["d"]
        for k, v in o.items():
            out += [_enc(k, d), _enc(v, d)]
        return out
    if isinstance(o, datetime.datetime):
        return ["dt", o.isoformat()]
    if isinstance(o, datetime.date):
        return ["date", o.isoformat()]
    if isinstance(o, datetime.time):
        return ["time", o.isoformat()]
    if isinstance(o, datetime.timedelta):
        return ["td", o.days, o.seconds, o.microseconds]
    if callable(o):
        if not _crosses(o):
            raise _refusal("%s: %s cannot be passed to production code: only functions, methods and callable objects the property's own files define, and built-ins that compute on data (len, sorted, str, str.lower, list.append...), cross as callbacks; pass a function defined in the spec that calls what production may use" % (_MODE, _callable_name(o)))
        return ["c", _client.register(o)]
    raise TypeError("%s: a %s cannot be passed to production code (data, records, handles and callables cross)" % (_MODE, t.__qualname__))


# The callables the property side runs for the worker: what the property's
# own files define, and built-ins that only compute on data. Never a class, a
# module's function or a built-in that reflects or runs code (getattr, type,
# eval, open, str.format): called with the worker's arguments, each reaches
# the property process.
_DATA = (bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
_PURE = frozenset(("abs", "all", "any", "ascii", "bin", "callable", "chr", "divmod", "hash", "hex", "isinstance", "len", "max", "min", "oct", "ord", "pow", "repr", "round", "sorted", "sum"))
_FORMATS = frozenset(("format", "format_map"))


def _own(code):
    root = os.path.join(os.path.realpath(_CFG["root"]), "") if _CFG else None
    return root is not None and os.path.realpath(code.co_filename).startswith(root)


def _crosses(fn):
    t = type(fn)
    if t is types.FunctionType:
        return _own(fn.__code__)
    if t is types.MethodType or t is functools.partial:
        return _crosses(fn.__func__ if t is types.MethodType else fn.func)
    if t is types.BuiltinFunctionType:
        owner = fn.__self__
        if type(owner) is types.ModuleType:
            return owner.__name__ == "builtins" and fn.__name__ in _PURE
        return type(owner) in _DATA and fn.__name__ not in _FORMATS
    if t is types.MethodDescriptorType:
        return fn.__objclass__ in _DATA and fn.__name__ not in _FORMATS
    if isinstance(fn, type):
        return fn in _DATA
    return type(getattr(t, "__call__", None)) is types.FunctionType and _crosses(t.__call__)


def _callable_name(fn):
    name = getattr(fn, "__qualname__", None)
    return "%s (%s)" % (type(fn).__qualname__, name) if type(name) is str else "a %s" % type(fn).__qualname__


def _refusal(text):
    # Marked so that a refusal while serving the worker fails the property
    # even when production code catches the error it raises there.
    err = TypeError(text)
    err._pw_refused = True
    return err


# --- production frames --------------------------------------------------------

_codes = {}
# Lines past this are no source file's: such a frame is left out.
_LINES = 1_000_000


def _statement(last, width):
    # The statement that calls the next frame (or raises), `width` columns
    # wide where it can be, so the underline falls where production's did.
    if last:
        return "raise e" if width <= 7 else "raise(e)" if width == 8 else "raise (e" + " " * (width - 9) + ")"
    return "n(" + " " * max(width - 3, 0) + ")"


class _Text:
    """A production value as the worker printed it."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _params(args):
    names = [str(a[0]) for a in args]
    ok = all(n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("__") for n in names)
    return (names, [_Text(str(a[1])) for a in args]) if ok and len(set(names)) == len(names) else ([], [])


def _frame_code(frame, last, names):
    # A function of one statement at the production frame's line, named as
    # the production function, with its arguments, starting at its first
    # line: pytest reads the source around it from the production file.
    key = (frame[0], frame[1], frame[2], frame[3], tuple(frame[5:]), last, tuple(names))
    code = _codes.get(key)
    if code is None:
        file, first, line, name = str(frame[0]), int(frame[1]), int(frame[2]), str(frame[3])
        col, end = (int(frame[5]), int(frame[6])) if len(frame) > 6 else (1, 0)
        first = max(min(first, line), 1)
        body = _statement(last, end - col)
        head = "def _(%s):" % ", ".join(names)
        if name == "<module>":
            indent = col > 0 and line > 1
            text = "\n" * (line - 2) + "if 1:\n" + " " * col + body if indent else "\n" * (line - 1) + body
        elif line == first:
            text = "\n" * (first - 1) + head + " " + body
        else:
            text = "\n" * (first - 1) + head + "\n" + "\n" * (line - first - 1) + " " * max(col, 1) + body
        code = compile(text + "\n", file, "exec")
        if name != "<module>":
            code = next(c for c in code.co_consts if hasattr(c, "co_code"))
            code = code.replace(co_name=name, **({"co_qualname": name} if hasattr(code, "co_qualname") else {}))
        _codes[key] = code
    return code


def _frames(frames):
    # Checked before use: file, lines and name, the arguments as text, columns.
    out = []
    for f in frames:
        args = [[str(a[0]), str(a[1])] for a in f[4]]
        frame = [str(f[0]), int(f[1]), int(f[2]), str(f[3]), args, *[int(c) for c in f[5:7]]]
        if 0 < frame[2] <= _LINES and 0 <= frame[1] <= _LINES:
            out.append(frame)
    return out


def _raise(e, frames):
    if not frames:
        raise e
    import types

    call = None
    for i, frame in reversed(list(enumerate(frames))):
        names, values = _params(frame[4]) if frame[3] != "<module>" else ([], [])
        scope = {"e": e, "n": call, "__name__": str(frame[3])}
        call = types.FunctionType(_frame_code(frame, i == len(frames) - 1, names), scope, None, tuple(values) or None)
    call()


# --- the channel --------------------------------------------------------------


class _Client:
    def __init__(self):
        self._lock = threading.RLock()
        self._chan = None
        self._proc = None
        self._gone = None
        self._drops = set()
        self._refused = None
        self._callbacks = {}  # id -> (id of callable, callable)
        self._ids = {}
        # Calls to the worker and the time in the outermost ones, for the run's cost line.
        self._calls = 0
        self._depth = 0
        self._in_calls = 0.0

    def _start(self):
        if _CFG is None:
            raise RuntimeError("%s: PATCHWARDEN_SEALED is not set" % _MODE)
        down_r, down_w = os.pipe()  # property -> worker
        up_r, up_w = os.pipe()  # worker -> property
        argv = [*_CFG["confine"], sys.executable, _WORKER, str(down_r), str(up_w)]
        try:
            self._proc = subprocess.Popen(argv, env=_CFG["env"], cwd=_CFG["root"], pass_fds=(down_r, up_w), stdin=subprocess.DEVNULL)
        finally:
            os.close(down_r)
            os.close(up_w)
        self._chan = Channel(up_r, down_w)
        atexit.register(self._tally)

    def _tally(self):
        # Told, never judged: a process that cannot write it costs the line only.
        try:
            with open(os.path.join(_CFG["calls"], "%d.json" % os.getpid()), "w", encoding="utf-8") as f:
                json.dump({"calls": self._calls, "ms": int(self._in_calls * 1000)}, f)
        except (OSError, KeyError, TypeError):
            pass

    def request(self, msg):
        with self._lock:
            # Counted under the lock (a callback's call nests in the same thread), for the run's cost line.
            self._calls += 1
            self._depth += 1
            start = time.perf_counter()
            try:
                reply = self._exchange(msg)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._in_calls += time.perf_counter() - start
            refused, self._refused = self._refused, None
        if refused:
            raise _refusal(refused)
        # The reply was read whole: a value that cannot be rebuilt here (a
        # handle as a dict key) fails this call only.
        if reply[0] == "ok":
            return _dec(reply[1])
        _raise(_dec(reply[1]), _frames(reply[1][5]))

    def _exchange(self, msg):
        """Sends `msg` and returns the worker's answer, serving its callbacks meanwhile (under the lock)."""
        if self._gone:
            raise WorkerGone(self._gone)
        if self._chan is None:
            self._start()
        try:
            if self._drops:
                self._chan.send(["drop", sorted(self._drops)])
                self._drops.clear()
            self._chan.send(msg)
            while True:
                reply = self._chan.receive()
                if type(reply) is not list or not reply or reply[0] not in ("ok", "raise", "cb"):
                    raise ValueError("%s: the worker sent a message of no known kind" % _MODE)
                if reply[0] != "cb":
                    return reply
                self._chan.send(self._serve(reply))
        except (Closed, OSError, ValueError, RecursionError) as err:
            self._gone = self._ended(err)
            raise WorkerGone(self._gone) from None

    def _ended(self, err):
        proc = self._proc
        self.close()
        if isinstance(err, Closed):
            return "%s: the production worker ended during a call (exit status %s); production code must return or raise, not leave the process" % (_MODE, proc.returncode)
        return "%s: the production worker broke the channel (%s); the run cannot be judged" % (_MODE, err)

    def _serve(self, msg):
        # A production callback: the property's callable runs here, on data.
        try:
            fn = self._callbacks[msg[1]][1]
            return ["ok", _enc(fn(*_dec(msg[2]), **_dec(msg[3])))]
        except Exception as e:
            if getattr(e, "_pw_refused", False):
                self._refused = str(e)
            return ["raise", type(e).__name__, str(e)]

    def register(self, fn):
        cid = self._ids.get(id(fn))
        if cid is None:
            cid = self._ids[id(fn)] = len(self._callbacks) + 1
            self._callbacks[cid] = (id(fn), fn)
        return cid

    def callback(self, cid):
        return self._callbacks[cid][1]

    def dropped(self, wid):
        self._drops.add(wid)

    def revived(self, wid):
        self._drops.discard(wid)

    def close(self):
        chan, proc, self._chan = self._chan, self._proc, None
        self._gone = self._gone or "%s: the worker was closed" % _MODE
        if chan is not None:
            chan.close()
        if proc is not None and proc.poll() is None:
            try:
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


_client = _Client()


# --- the import hook ------------------------------------------------------------


class _ProxyModule(type(sys)):
    """A src module on the property side: its attributes are read from the worker's module."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name != "__all__":
            raise AttributeError(name)
        wid = self.__dict__["_pw_handle"]._pw_wid
        if name in _submodules(self):
            # A src submodule the worker's package has imported (else this
            # raises AttributeError, as unsealed) is a proxy of its own here.
            _client.request(["get", wid, name])
            return importlib.import_module("%s.%s" % (self.__name__, name))
        return _client.request(["all", wid] if name == "__all__" else ["get", wid, name])

    def __dir__(self):
        return sorted(set(_client.request(["dir", self.__dict__["_pw_handle"]._pw_wid])) | set(self.__dict__))


def _submodules(module):
    # The names of a proxy package's src-zone submodules, from the src list.
    subs = module.__dict__.get("_pw_submodules")
    if subs is None:
        places = {os.path.realpath(p) for p in module.__dict__.get("__path__", ())}
        subs = set()
        for f in _CFG["src"]:
            parent, base = os.path.split(f)
            if parent in places and base.endswith(".py") and base != "__init__.py":
                subs.add(base[:-3])
            elif base == "__init__.py" and os.path.dirname(parent) in places:
                subs.add(os.path.basename(parent))
        module.__dict__["_pw_submodules"] = subs
    return subs


class _Loader:
    @staticmethod
    def create_module(spec):
        return _ProxyModule(spec.name)

    @staticmethod
    def exec_module(module):
        path = [p for p in sys.path if os.path.realpath(p or ".") != _HERE]
        # The handle keeps the worker's module alive as long as the proxy.
        module.__dict__["_pw_handle"] = _client.request(["import", module.__name__, path])


class _Finder:
    """First on sys.meta_path: a module the other finders would load from a src file is proxied."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        for finder in sys.meta_path:
            if finder is _Finder or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if not spec.origin or not spec.has_location or os.path.realpath(spec.origin) not in _CFG["src"]:
            return None
        proxy = importlib.machinery.ModuleSpec(name, _Loader, origin=spec.origin, is_package=spec.submodule_search_locations is not None)
        proxy.has_location = True
        if spec.submodule_search_locations is not None:
            proxy.submodule_search_locations = list(spec.submodule_search_locations)
        return proxy


def _install():
    early = sorted(n for n, m in list(sys.modules.items()) if os.path.realpath(getattr(m, "__file__", None) or "/") in _CFG["src"])
    if early:
        raise RuntimeError("%s: production modules were imported before the sealed plugin loaded: %s" % (_MODE, ", ".join(early)))
    sys.meta_path.insert(0, _Finder)


if _CFG is not None:
    _install()


def _first():
    if sys.meta_path[0] is not _Finder:
        sys.meta_path[:] = [_Finder] + [f for f in sys.meta_path if f is not _Finder]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if _CFG is None:
        return
    _first()
    # The property seed reaches Hypothesis as --hypothesis-seed would: the
    # worker's environment has no PROP_SEED to read.
    seed = os.environ.get("PROP_SEED")
    if seed and getattr(config.option, "hypothesis_seed", "") is None:
        config.option.hypothesis_seed = seed


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    if _CFG is not None:
        _first()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    # The worker ends before any report is written: nothing production code
    # left running there can rewrite it.
    _client.close()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    _client.close()
