// Loaded first in every Node process of a sealed run (NODE_OPTIONS
// --import): imports and requires of src-zone files resolve to proxies, and
// production code runs only in the sealed worker (runtime.cjs).
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

if (process.env.PATCHWARDEN_SEALED) {
  const require = createRequire(import.meta.url);
  const rt = require('./runtime.cjs').runtime();
  rt.hookRequire();
  // A test file node --test runs in a process of its own: its worker starts
  // now, while the runner and the spec load, rather than at the first src import.
  if (process.env.NODE_TEST_CONTEXT) rt.worker();
  const { port1, port2 } = new MessageChannel();
  rt.answer(port1);
  register('./hooks.mjs', import.meta.url, {
    data: {
      src: [...rt.src],
      port: port2,
      runtime: pathToFileURL(require.resolve('./runtime.cjs')).href,
      seed: rt.seed,
    },
    transferList: [port2],
  });
}
