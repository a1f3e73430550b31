// What the pre-commit hook loads only when a commit needs it, gathered in one
// module so that the bundle makes it one lazy chunk: the config parser and
// glob compiler (a config not yet cached, or --config), the ledger check, the
// fixture check, the check of staged symbolic links, where a mixed commit
// goes (for its advice), and the guard's own
// files when they are staged or the committed config does not parse, and
// commit-msg's second look at the fixture lock and the ledger.
export * from '../config/compile.js';
export { checkLedgerAt } from '../freeze/ledger.js';
export { clockNow } from '../freeze/clock.js';
export { fixtureViolations, verifyFixtures } from '../fixtures/verify.js';
export { stagedLinkViolations } from '../mixing/symlinks.js';
export { stagedLanding } from '../mixing/advice.js';
export { fallbackNote, lastValidConfig } from '../config/judging.js';
export { guardFileProblems, touchedGuardFiles } from '../gate/guard-files.js';
export { recheckIndex } from './recheck.js';
