# The channel of a sealed run, shared by both ends: messages are JSON, each
# preceded by its length (4 bytes, big-endian), over a pair of pipes the
# property process opened before the worker started. JSON because the
# property side must never unpickle or otherwise run what the worker sends:
# json.loads builds lists, dicts, strings and numbers only.
import datetime
import json
import os
import struct

_LEN = struct.Struct(">I")
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_loads = json.JSONDecoder().decode


class Closed(Exception):
    """The other end is gone."""


class Channel:
    def __init__(self, rfd, wfd):
        self._r = os.fdopen(rfd, "rb", buffering=1 << 16)
        self._w = wfd

    def send(self, message):
        data = _dumps(message).encode("utf-8", "surrogatepass")
        data = _LEN.pack(len(data)) + data
        while data:
            data = data[os.write(self._w, data):]

    def receive(self):
        head = self._r.read(4)
        if len(head) < 4:
            raise Closed()
        (size,) = _LEN.unpack(head)
        body = self._r.read(size)
        if len(body) < size:
            raise Closed()
        return _loads(body.decode("utf-8", "surrogatepass"))

    def close(self):
        for close in (self._r.close, lambda: os.close(self._w)):
            try:
                close()
            except OSError:
                pass


def plain_decoders(dec):
    """How each end rebuilds plain data (`dec` rebuilds an element): the same base types on both sides."""
    return {
        "l": lambda v: [dec(x) for x in v[1:]],
        "t": lambda v: tuple(dec(x) for x in v[1:]),
        "s": lambda v: {dec(x) for x in v[1:]},
        "f": lambda v: frozenset(dec(x) for x in v[1:]),
        "d": lambda v: {dec(v[i]): dec(v[i + 1]) for i in range(1, len(v), 2)},
        "b": lambda v: v[1].encode("latin-1"),
        "dt": lambda v: datetime.datetime.fromisoformat(v[1]),
        "date": lambda v: datetime.date.fromisoformat(v[1]),
        "time": lambda v: datetime.time.fromisoformat(v[1]),
        "td": lambda v: datetime.timedelta(v[1], v[2], v[3]),
    }
