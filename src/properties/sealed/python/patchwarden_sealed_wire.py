# The channel of a sealed run, shared by both ends: messages are JSON, each
# preceded by its length (4 bytes, big-endian), over a pair of pipes the
# property process opened before the worker started. JSON because the
# property side must never unpickle or otherwise run what the worker sends:
# json.loads builds lists, dicts, strings and numbers only.
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
