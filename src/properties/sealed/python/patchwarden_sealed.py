# patchwarden's pytest plugin for sealed property runs
# (PYTEST_PLUGINS=patchwarden_sealed; patchwarden_sealed_runtime.py holds the
# code). The code is compiled under names that are no file's, so a tool that
# traces the lines a failing example runs (Hypothesis's explanation) counts
# the production frames the report shows and none of the runtime's own.
import os

_HERE = os.path.dirname(os.path.realpath(__file__))


def _load(name, scope):
    with open(os.path.join(_HERE, name), encoding="utf-8") as f:
        exec(compile(f.read(), "<%s>" % name, "exec"), scope)
    return scope


_wire = _load("patchwarden_sealed_wire.py", {"__name__": "patchwarden_sealed_wire"})
Channel, Closed, plain_decoders = _wire["Channel"], _wire["Closed"], _wire["plain_decoders"]
_load("patchwarden_sealed_runtime.py", globals())
