// The signature gate: each failure of a run against the ledger. Pure: signed
// failures, rows and the set of voided fixtures in, one decision per failure out.
import type { Config } from '../config/schema.js';
import type { Signed } from '../signature/types.js';
import { formatUtc } from './clock.js';
import { isExpired, type Ledger, type LedgerRow } from './ledger.js';

export type Action = 'frozen' | 'new' | 'expired' | 'ineligible';

export interface Decision {
  sig: string;
  /** The test case's name: shown, never matched. */
  name: string;
  action: Action;
  /** A row matched whose last_name differs from the case's name. */
  rename: boolean;
  /** False when this failure stops the gate: anything but `frozen`, or a rename under on_rename: refuse. */
  passes: boolean;
  /** The row whose sig matched, if one did. */
  row?: LedgerRow;
  /** The matched row names a fixture that no longer matches the lock, so it freezes nothing (action `new`). */
  void: boolean;
  /** One plain sentence: why this action. */
  note: string;
  signed: Signed;
}

export function applyFreezes(signed: Signed[], ledger: Ledger, config: Config, now: Date, voidIds: Set<string>): Decision[] {
  const bySig = new Map(ledger.rows.map((r) => [r.sig, r]));
  return signed.map((s) => {
    const row = bySig.get(s.sig);
    const rename = Boolean(row?.last_name && row.last_name !== s.name);
    const isVoid = Boolean(row?.fixture && voidIds.has(row.fixture));
    const at = row ? `${ledger.source}:${row.line}` : '';
    let action: Action;
    let note: string;
    if (!s.eligible) {
      action = 'ineligible';
      note = 'no project frame and no assertion to bind to, so it is never frozen';
    } else if (!row) {
      action = 'new';
      note = 'no ledger row has this signature';
    } else if (isVoid) {
      action = 'new';
      note = `the row at ${at} is void: fixture ${row.fixture} no longer matches the fixture lock`;
    } else if (isExpired(row, now)) {
      action = 'expired';
      note = `the row at ${at} expired at ${formatUtc(row.expires)}`;
    } else {
      action = 'frozen';
      note = `the row at ${at} (owner ${row.owner}) until ${formatUtc(row.expires)}`;
    }
    const refusedRename = rename && config.freeze.on_rename === 'refuse';
    if (rename) note += `; renamed: the row was written for ${row!.last_name}${refusedRename ? ', and freeze.on_rename is refuse' : ''}`;
    const decision: Decision = { sig: s.sig, name: s.name, action, rename, passes: action === 'frozen' && !refusedRename, void: isVoid, note, signed: s };
    if (row) decision.row = row;
    return decision;
  });
}
