// What the pre-commit hook loads only when a commit needs it, gathered in one
// module so that the bundle makes it one lazy chunk: parsing a config not yet
// cached (or --config) and compiling its globs, the ledger check and the
// fixture check.
export { loadConfig, parseConfig } from '../config/load.js';
export { zoneRules } from '../zones/zones.js';
export { checkLedgerAt } from '../freeze/ledger.js';
export { clockNow } from '../freeze/clock.js';
export { fixtureViolations, verifyFixtures } from '../fixtures/verify.js';
