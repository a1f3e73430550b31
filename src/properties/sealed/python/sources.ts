// The Python runtime of sealed property runs, bundled into patchwarden as
// text (scripts/build.mjs) and written out for each sealed run: the pytest
// plugin (PYTEST_PLUGINS=patchwarden_sealed) and the property side's code it
// loads (the import hook, proxies, the codec), the worker production code
// runs in, and the channel both ends share.
import plugin from './patchwarden_sealed.py';
import runtime from './patchwarden_sealed_runtime.py';
import wire from './patchwarden_sealed_wire.py';
import worker from './patchwarden_sealed_worker.py';

/** File name -> text, written into the folder put first on PYTHONPATH. */
export const PYTHON_SEALED: Record<string, string> = {
  'patchwarden_sealed.py': plugin,
  'patchwarden_sealed_runtime.py': runtime,
  'patchwarden_sealed_wire.py': wire,
  'patchwarden_sealed_worker.py': worker,
};
