// What a ledger's version turns on. Version 2 is the opt-in for the stricter
// defaults and version 3 binds rows to their replay evidence, so an upgrade
// never locks a repository: a version 1 ledger keeps the old defaults, and
// only keys written in the config override them.
import type { Config } from '../config/schema.js';
import type { LedgerVersion } from './ledger.js';

export interface FreezePolicy {
  version: LedgerVersion;
  /** A renamed test under a row: refused until an owner rewrites the row's last_name. */
  onRename: 'warn' | 'refuse';
  /** A row must carry replay evidence (evidence.ts) to freeze anything. */
  requireEvidence: boolean;
}

export function freezePolicy(config: Config, ledger: { version: LedgerVersion } | null): FreezePolicy {
  const version = ledger?.version ?? 1;
  // Version 3 keeps version 2's defaults and binds each row to its evidence file (bound.ts).
  const v2 = version >= 2;
  return {
    version,
    onRename: config.freeze.on_rename ?? (v2 ? 'refuse' : 'warn'),
    requireEvidence: config.freeze.require_evidence ?? v2,
  };
}
