// mocha: its exports (what `import { it } from 'mocha'` reads) are frozen
// once it has loaded, which it has when it first sets the globals of a test
// file (globals.ts, bound). Its globals are guarded like every framework's.
import { matches } from '../taken.js';

const MOCHA_MAIN = /[\\/]mocha[\\/]lib[\\/]mocha\.js$/;
/** Whether a loaded module's file is mocha's main module. */
export const isMochaMain = (file: string): boolean => matches(MOCHA_MAIN, file);

let mochaFrozen = false;
export function freezeMocha(): void {
  if (mochaFrozen) return;
  for (const [file, m] of Object.entries(require.cache))
    if (m?.loaded && isMochaMain(file)) {
      Object.freeze(m.exports);
      mochaFrozen = true;
    }
}
