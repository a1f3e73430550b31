# The worker of a sealed run: the one process where production code runs.
# Started by the property process at its first import of a src module, with
# the channel's two pipe ends as its arguments; it imports the modules the
# property side names and answers each request (attribute reads, calls,
# iteration) with data (patchwarden_sealed_wire.py): plain values, records by
# their fields, anything else as a handle, an exception with its traceback's
# frames. It ends when the property process closes the channel.
import atexit
import dataclasses
import datetime
import enum
import importlib
import os
import sys
import threading
import time

# No bytecode written beside the runtime's sources, whoever may write there.
_writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
from patchwarden_sealed_wire import Channel, Closed, plain_decoders  # noqa: E402

sys.dont_write_bytecode = _writes

_OWN = {os.path.realpath(__file__), os.path.realpath(sys.modules["patchwarden_sealed_wire"].__file__)}
_DEPTH = 200
_lock = threading.RLock()
_objects = {}  # handle id -> object
_ids = {}  # id(object) -> handle id
_next = [1]
_chan = None


def _handle(o):
    wid = _ids.get(id(o))
    if wid is None:
        wid = _next[0]
        _next[0] += 1
        _objects[wid] = o
        _ids[id(o)] = wid
    return wid


def _drop(wids):
    for wid in wids:
        o = _objects.pop(wid, None)
        if o is not None and not isinstance(o, type):
            _ids.pop(id(o), None)
        elif o is not None:
            _objects[wid] = o  # classes stay: their stand-ins keep the id


def _record_kind(t):
    if issubclass(t, enum.Enum):
        return "enum"
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return "namedtuple"
    if dataclasses.is_dataclass(t):
        return "dataclass"
    if hasattr(t, "__attrs_attrs__"):
        return "attrs"
    return None


def _names(t, kind):
    if kind == "enum":
        return ["name", "value"]
    if kind == "namedtuple":
        return list(t._fields)
    if kind == "dataclass":
        return [f.name for f in dataclasses.fields(t)]
    return [a.name for a in t.__attrs_attrs__]


def _class(t):
    return [t.__module__, getattr(t, "__qualname__", t.__name__), _handle(t)]


def _exc_class(t):
    bases = [_exc_class(b) for b in t.__bases__ if issubclass(b, BaseException)]
    return ["x", *_class(t), bases]


def _frames(tb):
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if os.path.realpath(code.co_filename) not in _OWN:
            out.append([code.co_filename, code.co_firstlineno, tb.tb_lineno, code.co_name, _arguments(code, tb.tb_frame), *_columns(code, tb)])
        tb = tb.tb_next
    return out


def _arguments(code, frame):
    # The function's arguments as text, as pytest prints them under a frame.
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
    out = []
    for name in code.co_varnames[:count]:
        if name in frame.f_locals:
            try:
                text = repr(frame.f_locals[name])
            except Exception as e:
                text = "<[%s raised in repr()] %s object>" % (type(e).__name__, type(frame.f_locals[name]).__name__)
            out.append([name, text if type(text) is str else "<repr>"])
    return out


def _columns(code, tb):
    # Where on its line the failing expression is (Python 3.11+): pytest and
    # traceback underline it.
    try:
        _, end, col, end_col = list(code.co_positions())[tb.tb_lasti // 2]
        return [col, end_col] if end == tb.tb_lineno and col is not None and end_col is not None else []
    except Exception:
        return []


def _exception(e, d=0):
    try:
        args = [enc(a, d + 1) for a in e.args]
    except Exception:
        args = [_text(e)]
    attrs = []
    for k, v in list(vars(e).items()) if hasattr(e, "__dict__") else []:
        try:
            attrs += [k, enc(v, d + 1)]
        except Exception:
            pass
    frames = [] if isinstance(e, (StopIteration, StopAsyncIteration)) else _frames(e.__traceback__)
    return ["e", _exc_class(type(e)), args, _text(e), attrs, frames]


def _text(e):
    try:
        return str(e)
    except Exception:
        return "<%s: str() failed>" % type(e).__name__


def enc(o, d=0):
    t = type(o)
    if o is None or t is bool or t is int or t is str or t is float:
        return o
    if d > _DEPTH:
        raise ValueError("sealed mode: a value nested deeper than %d levels (or cyclic) cannot cross" % _DEPTH)
    d += 1
    if isinstance(o, _Callback):
        return ["c", o.cid]
    if isinstance(o, type):
        if issubclass(o, BaseException):
            return _exc_class(o)
        kind = _record_kind(o)
        if kind:
            return ["k", *_class(o), kind, _names(o, kind)]
        return ["h", _handle(o), "class " + o.__qualname__]
    kind = _record_kind(t)
    if kind == "enum":
        return ["r", *_class(t), kind, ["name", "value"], o.name, enc(o.value, d)]
    if kind:
        names = _names(t, kind)
        return ["r", *_class(t), kind, names, *[enc(getattr(o, n), d) for n in names]]
    if isinstance(o, BaseException):
        return _exception(o, d)
    if isinstance(o, bool):
        return bool(o)
    if isinstance(o, int):
        return int.__index__(o)
    if isinstance(o, float):
        return float.__float__(o)
    if isinstance(o, str):
        return str.__str__(o)
    if isinstance(o, (bytes, bytearray)):
        return ["b", bytes(o).decode("latin-1")]
    if isinstance(o, tuple):
        return ["t", *[enc(x, d) for x in tuple.__iter__(o)]]
    if isinstance(o, list):
        return ["l", *[enc(x, d) for x in list.__iter__(o)]]
    if isinstance(o, dict):
        out = ["d"]
        for k, v in dict.items(o):
            out += [enc(k, d), enc(v, d)]
        return out
    if isinstance(o, (set, frozenset)):
        return ["f" if isinstance(o, frozenset) else "s", *[enc(x, d) for x in o]]
    if isinstance(o, datetime.datetime):
        return ["dt", datetime.datetime.isoformat(o)]
    if isinstance(o, datetime.date):
        return ["date", datetime.date.isoformat(o)]
    if isinstance(o, datetime.time):
        return ["time", datetime.time.isoformat(o)]
    if isinstance(o, datetime.timedelta):
        return ["td", o.days, o.seconds, o.microseconds]
    return ["h", _handle(o), t.__qualname__]


def _record(v):
    cls, kind, names, values = _objects[v[3]], v[4], v[5], [dec(x) for x in v[6:]]
    if kind == "enum":
        return cls[values[0]]
    if kind == "namedtuple":
        return cls(*values)
    fields = dict(zip(names, values))
    try:
        return cls(**fields)
    except TypeError:
        o = object.__new__(cls)
        for k, x in fields.items():
            object.__setattr__(o, k, x)
        return o


def dec(v):
    return _DECODE[v[0]](v) if type(v) is list else v


_DECODE = {
    **plain_decoders(dec),
    "h": lambda v: _objects[v[1]],
    "r": _record,
    "c": lambda v: _Callback(v[1]),
}


class _Callback:
    """A callable of the property side: calling it asks the property process to run it."""

    def __init__(self, cid):
        self.cid = cid

    def __call__(self, *args, **kwargs):
        return _exchange(["cb", self.cid, enc(list(args)), enc(kwargs)])


def _exchange(request):
    # A request of ours (a callback): the property side may call back into
    # production code while it runs, so requests are served until the reply.
    with _lock:
        _chan.send(request)
        while True:
            msg = _receive()
            if msg[0] == "ok":
                return dec(msg[1])
            if msg[0] == "raise":
                raise _callback_error(msg[1], msg[2])
            _chan.send(_serve(msg))


def _callback_error(name, message):
    import builtins

    t = getattr(builtins, name, None)
    return t(message) if isinstance(t, type) and issubclass(t, Exception) else RuntimeError("%s: %s" % (name, message))


def _import(name, path):
    sys.path[:] = path
    module = importlib.import_module(name)
    return ["h", _handle(module), "module"]


def _method(o, name, args):
    method = getattr(type(o), name, None)
    if method is None:
        # What the interpreter raises for a missing protocol (len() of a generator).
        raise TypeError("'%s' object has no %s" % (type(o).__name__, name))
    return method(o, *args)


_OPS = {
    "import": lambda m: _import(m[1], m[2]),
    "get": lambda m: enc(getattr(_objects[m[1]], m[2])),
    "set": lambda m: enc(setattr(_objects[m[1]], m[2], dec(m[3]))),
    "call": lambda m: enc(_objects[m[1]](*dec(m[2]), **dec(m[3]))),
    "method": lambda m: enc(_method(_objects[m[1]], m[2], dec(m[3]))),
    "dir": lambda m: enc(sorted(dir(_objects[m[1]]))),
    "all": lambda m: enc(list(getattr(_objects[m[1]], "__all__", [n for n in vars(_objects[m[1]]) if not n.startswith("_")]))),
}


def _serve(msg):
    # Every failure of production code (SystemExit and KeyboardInterrupt
    # among them) is an answer: the worker keeps serving.
    try:
        if msg[0] == "drop":
            _drop(msg[1])
            return None
        return ["ok", _OPS[msg[0]](msg)]
    except BaseException as e:  # noqa: BLE001
        try:
            return ["raise", _exception(e)]
        except BaseException as inner:  # noqa: BLE001
            return ["raise", ["e", ["x", "builtins", "RuntimeError", 0, []], [], "sealed mode: the worker could not describe %s: %s" % (type(e).__name__, _text(inner)), [], []]]


def _leave():
    # The run is over: the exit functions run (in process mode the guard's
    # last one sends its final record, without which the run is refused),
    # then the worker ends without waiting on threads production code left.
    try:
        atexit._run_exitfuncs()
    finally:
        os._exit(0)


def _receive():
    try:
        return _chan.receive()
    except Closed:
        _leave()


def _watch_parent():
    # The channel's end is seen only between calls: a worker busy in
    # production code ends when the property process is gone.
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        _leave()

    threading.Thread(target=watch, name="patchwarden-sealed-parent", daemon=True).start()


def main():
    global _chan
    rfd, wfd = int(sys.argv[1]), int(sys.argv[2])
    for fd in (rfd, wfd):
        os.set_inheritable(fd, False)
    _watch_parent()
    sys.argv[:] = sys.argv[:1]
    _chan = Channel(rfd, wfd)
    while True:
        with _lock:
            msg = _receive()
        reply = _serve(msg)
        if reply is not None:
            with _lock:
                _chan.send(reply)


if __name__ == "__main__":
    main()
