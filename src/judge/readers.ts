// What the facts and rules load only when a range reaches them: the readers
// of the guard's files, the ledger and the fixture lock, and the verdicts on
// them; the adoption baseline, the owners' overrides and the symbolic links
// of a range. One module, so a bundle makes it one lazy chunk
// (the pre-commit hook re-exports it from its own).
export { guardFileProblems } from './guard-files.js';
export { evidenceViolations, voidedFixtures } from '../freeze/evidence.js';
export { readLedgerAt } from '../freeze/ledger.js';
export { clockNow } from '../freeze/clock.js';
export { fixtureViolations, verifyFixtures } from '../fixtures/verify.js';
export { baselined } from '../mixing/baseline.js';
export { judgeOverrides, overrideClaims } from '../owners/override.js';
export { symlinkViolations } from '../mixing/symlinks.js';
