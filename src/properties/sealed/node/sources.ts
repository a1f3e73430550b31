// The Node runtime of a sealed run, bundled as text (scripts/build.mjs) and
// written out as `<dir>/node/<name>` for each sealed run: NODE_OPTIONS
// `--import <dir>/node/register.mjs` loads it in every property process.
import hooks from './hooks.mjs';
import peer from './peer.cjs';
import register from './register.mjs';
import runtime from './runtime.cjs';
import worker from './worker.cjs';

export const NODE_SEALED: Record<string, string> = {
  'register.mjs': register,
  'hooks.mjs': hooks,
  'runtime.cjs': runtime,
  'peer.cjs': peer,
  'worker.cjs': worker,
};
