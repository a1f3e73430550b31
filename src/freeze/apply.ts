// The signature gate: each failure of a run against the ledger. Pure: signed
// failures, rows and the set of voided fixtures in, one decision per failure out.
import type { Config } from '../config/schema.js';
import type { Signed } from '../signature/types.js';
import { globMatcher } from '../zones/glob.js';
import { formatUtc } from './clock.js';
import { missingEvidence, NO_FIXTURE } from './evidence.js';
import { isExpired, type Ledger, type LedgerRow } from './ledger.js';
import { freezePolicy } from './policy.js';

export type Action = 'frozen' | 'new' | 'expired' | 'ineligible' | 'forbidden';

export interface Decision {
  sig: string;
  /** The test case's name: shown, never matched. */
  name: string;
  action: Action;
  /** A row matched whose last_name differs from the case's name. */
  rename: boolean;
  /** False when this failure stops the gate: anything but `frozen`, a refused rename, or a row without evidence where it is required. */
  passes: boolean;
  /** The row whose sig matched, if one did. */
  row?: LedgerRow;
  /** The matched row names a fixture that no longer matches the lock, so it freezes nothing (action `new`). */
  void: boolean;
  /** What the matched row lacks as replay evidence (evidence.ts); empty when nothing. */
  unevidenced: string[];
  /** For a rename: the ledger line an owner rewrites to acknowledge it. */
  edit?: { line: number; from: string; to: string };
  /** One plain sentence: why this action. */
  note: string;
  signed: Signed;
}

/** A `last_name` line as the ledger would hold it. */
export function lastNameLine(name: string, json: boolean): string {
  if (json) return `"last_name": ${JSON.stringify(name)},`;
  return `last_name: ${/^[A-Za-z_][\w./:[\]-]*$/.test(name) && !name.includes(': ') ? name : JSON.stringify(name)}`;
}

/** Whether a failure's project frames lie in a path freeze.forbid names (any tail of the trace's path that starts at a folder). */
function forbiddenFile(files: string[], forbid: (path: string) => boolean): string | null {
  for (const file of files) {
    const segments = file
      .replace(/^[A-Za-z]:\//, '/')
      .split('/')
      .filter((s) => s && s !== '.');
    for (let i = 0; i < segments.length; i++)
      if (forbid(segments.slice(i).join('/'))) return segments.slice(i).join('/');
  }
  return null;
}

export function applyFreezes(
  signed: Signed[],
  ledger: Ledger,
  config: Config,
  now: Date,
  voidIds: Set<string>,
): Decision[] {
  const bySig = new Map(ledger.rows.map((r) => [r.sig, r]));
  const policy = freezePolicy(config, ledger);
  const forbid = config.freeze.forbid.length ? globMatcher(config.freeze.forbid) : null;
  const json = config.freeze.ledger.endsWith('.json');
  return signed.map((s) => {
    const row = bySig.get(s.sig);
    // A row written under signatures v1 is recognized, and never matched: v1 let different bugs share a row.
    const old = !row && s.v1 ? bySig.get(s.v1) : undefined;
    const rekey = old
      ? `; the row at ${ledger.source}:${old.line} holds this failure's v1 signature, which freezes nothing since signatures v2 (${s.eligible ? `re-key it: sig ${s.sig}` : 'and under v2 the failure names nothing distinctive, so no row can freeze it'}; docs/signatures.md, "v1 to v2")`
      : '';
    const rename = Boolean(row?.last_name && row.last_name !== s.name);
    const isVoid = Boolean(row?.fixture && row.fixture !== NO_FIXTURE && voidIds.has(row.fixture));
    const at = row ? `${ledger.source}:${row.line}` : '';
    const forbidden = forbid ? forbiddenFile(s.files, forbid) : null;
    let action: Action;
    let note: string;
    if (!s.eligible) {
      action = 'ineligible';
      note = `it names nothing that tells its defect from another (no project frame, a predicate of numbers and assertion words only, no asserting expression in the test's source), so it is never frozen${rekey}`;
    } else if (forbidden) {
      action = 'forbidden';
      note = `its project frames lie in ${forbidden}, which freeze.forbid protects: a failure there is fixed, never frozen${row ? ` (the row at ${at} freezes nothing)` : ''}`;
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
    const unevidenced = row && action === 'frozen' ? missingEvidence(row, voidIds) : [];
    const refusedEvidence = unevidenced.length > 0 && policy.requireEvidence;
    if (unevidenced.length)
      note += `; the row carries no replay evidence (${unevidenced.join('; ')})${refusedEvidence ? `, which ${policy.version >= 2 && config.freeze.require_evidence === null ? `a version ${policy.version} ledger` : 'freeze.require_evidence'} requires` : ''}`;
    const refusedRename = rename && policy.onRename === 'refuse';
    if (rename)
      note += `; renamed: the row was written for ${row!.last_name}${refusedRename ? `, and a rename needs its owner's acknowledgment (freeze.on_rename is refuse${config.freeze.on_rename === null ? ' under a version 2 ledger' : ''})` : ''}`;
    const decision: Decision = {
      sig: s.sig,
      name: s.name,
      action,
      rename,
      passes: action === 'frozen' && !refusedRename && !refusedEvidence,
      void: isVoid,
      unevidenced,
      note,
      signed: s,
    };
    if (row) decision.row = row;
    if (rename)
      decision.edit = { line: row!.line, from: lastNameLine(row!.last_name!, json), to: lastNameLine(s.name, json) };
    return decision;
  });
}

/** The ledger edit an owner commits to acknowledge each refused rename. */
export function renameEdits(decisions: Decision[], ledgerFile: string): string[] {
  const refused = decisions.filter((d) => d.rename && !d.passes && d.action === 'frozen' && d.edit);
  if (!refused.length) return [];
  return [
    `  a rename needs a human: an owner of ${ledgerFile} who judges the renamed test the same flake commits this edit on its own:`,
    ...refused.flatMap((d) => [
      `    ${ledgerFile}, the row at line ${d.edit!.line} (sig ${d.sig}):`,
      `    -  ${d.edit!.from}`,
      `    +  ${d.edit!.to}`,
    ]),
  ];
}
