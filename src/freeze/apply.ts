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
    // A row written under signatures v1 is recognized, and never matched: v1 let different bugs share a row.
    const old = !row && s.v1 ? bySig.get(s.v1) : undefined;
    const rekey = old ? `; the row at ${ledger.source}:${old.line} holds this failure's v1 signature, which freezes nothing since signatures v2 (${s.eligible ? `re-key it: sig ${s.sig}` : 'and under v2 the failure names nothing distinctive, so no row can freeze it'}; docs/signatures.md, "v1 to v2")` : '';
    const rename = Boolean(row?.last_name && row.last_name !== s.name);
    const isVoid = Boolean(row?.fixture && voidIds.has(row.fixture));
    const at = row ? `${ledger.source}:${row.line}` : '';
    let action: Action;
    let note: string;
    if (!s.eligible) {
      action = 'ineligible';
      note = `it names nothing that tells its defect from another (no project frame, a predicate of numbers and assertion words only, no asserting expression in the test's source), so it is never frozen${rekey}`;
    } else if (!row) {
      action = 'new';
      note = `no ledger row has this signature${rekey}`;
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
    if (s.flaky) note = `flaky (failed, then passed when rerun), judged like a failure: ${note}`;
    const refusedRename = rename && config.freeze.on_rename === 'refuse';
    if (rename) note += `; renamed: the row was written for ${row!.last_name}${refusedRename ? ', and freeze.on_rename is refuse' : ''}`;
    const decision: Decision = { sig: s.sig, name: s.name, action, rename, passes: action === 'frozen' && !refusedRename, void: isVoid, note, signed: s };
    if (row) decision.row = row;
    return decision;
  });
}
