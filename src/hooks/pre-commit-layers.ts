// What the pre-commit hook loads only when a commit needs it, gathered in one
// module so that the bundle makes it one lazy chunk: the config parser and
// glob compiler (a config not yet cached, or --config), the readers of the
// engine's facts (the guard's own files, the ledger, the fixture lock:
// judge/readers.ts), the check of staged symbolic links, where a mixed
// commit goes (for its advice), and commit-msg's second look at the fixture
// lock and the ledger.
export * from '../config/compile.js';
export * from '../judge/readers.js';
export { stagedLinkViolations } from '../mixing/symlinks.js';
export { stagedLanding } from '../mixing/advice.js';
export { recheckIndex } from './recheck.js';
