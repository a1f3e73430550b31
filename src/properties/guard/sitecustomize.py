# patchwarden's runtime guard for one property run, loaded through PYTHONPATH
# before any project code: this file loads the guard (patchwarden_guard.py,
# beside it) and installs it, then runs the project's own sitecustomize.
import sys


def _guard():
    import os
    cfg_path = os.environ.get("PATCHWARDEN_GUARD")
    if not cfg_path:
        return
    # Loaded under a private name and never put in sys.modules: production
    # code that imports patchwarden_guard gets a copy of its own, not the
    # module whose functions the installed guard calls.
    import importlib.util
    here = os.path.dirname(os.path.realpath(__file__))
    spec = importlib.util.spec_from_file_location("_patchwarden_guard_impl", os.path.join(here, "patchwarden_guard.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.install(cfg_path)


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
