// Writing the ledger for a human: one row added, expired rows dropped. Text in,
// text out. YAML goes through the yaml Document API so comments, key order and
// blank lines between rows survive; a `.json` ledger is re-printed as JSON.
import { isMap, isScalar, isSeq, parseDocument, YAMLSeq, type Document, type Pair, type Scalar } from 'yaml';
import { CannotJudge } from '../common/errors.js';

/** A row as written: field name to text, in the order it is printed. */
export type RowFields = Record<string, string>;

/** A ledger with no rows. Version 2 is what init and `freeze init` write. */
export function newLedger(version: 1 | 2 | 3, json = false): string {
  if (json) return JSON.stringify({ version, records: [] }, null, 2) + '\n';
  const evidence = [
    '',
    ',\n# and the replay evidence it was classified on (fixture, seed, remote CI run)',
    ',\n# and the replay results file it was added from (freeze add --from-replay), kept in evidence/',
  ][version - 1];
  return `# Freeze ledger: known flaky failures, each keyed by its failure signature.
# Human-owned: every row names an owner, a reason and an expiry${evidence}.
version: ${version}
records:
`;
}

/** The ledger text with `row` appended to its records. */
export function addRow(text: string, json: boolean, row: RowFields): string {
  if (json) {
    const data = JSON.parse(text) as { records?: unknown[] | null };
    data.records = [...(data.records ?? []), jsonRow(row)];
    return JSON.stringify(data, null, 2) + '\n';
  }
  const doc = yamlDoc(text);
  const seq = records(doc);
  const node = doc.createNode(row);
  // Rows separated by blank lines stay so.
  if (seq.items.length > 1 && (seq.items[seq.items.length - 1] as { spaceBefore?: boolean }).spaceBefore)
    node.spaceBefore = true;
  seq.flow = false;
  seq.items.push(node);
  return doc.toString();
}

/** The ledger text without the rows whose index `drop` holds. */
export function dropRows(text: string, json: boolean, drop: Set<number>): string {
  if (json) {
    const data = JSON.parse(text) as { records?: unknown[] | null };
    data.records = (data.records ?? []).filter((_, i) => !drop.has(i));
    return JSON.stringify(data, null, 2) + '\n';
  }
  const doc = yamlDoc(text);
  const seq = records(doc);
  for (let i = seq.items.length - 1; i >= 0; i--) {
    if (!drop.has(i)) continue;
    // yaml keeps the comment above the first row on the list itself: its last
    // paragraph leaves with the row; what a blank line sets apart stays as the list's header.
    if (i === 0) {
      const header = listHeader(seq.commentBefore ?? undefined);
      const next = seq.items[1] as { commentBefore?: string; spaceBefore?: boolean } | undefined;
      seq.commentBefore = [header, next?.commentBefore].filter(Boolean).join('\n') || undefined;
      if (next) {
        next.commentBefore = undefined;
        next.spaceBefore = false;
      }
    }
    seq.items.splice(i, 1);
  }
  if (!seq.items.length && seq.commentBefore) {
    // An empty list prints as `[]`; its header goes above `records:` instead.
    const key = recordsPair(doc)!.key as Scalar;
    key.commentBefore = [key.commentBefore, seq.commentBefore.replace(/\n$/, '')].filter(Boolean).join('\n');
    seq.commentBefore = undefined;
  }
  return doc.toString();
}

/** The part of a comment above the first row that a blank line sets apart from it (ends in a newline: the blank line). */
function listHeader(comment: string | undefined): string | undefined {
  if (!comment || comment.endsWith('\n')) return comment;
  const cut = comment.lastIndexOf('\n\n');
  return cut >= 0 ? comment.slice(0, cut + 1) : undefined;
}

function yamlDoc(text: string): Document {
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true });
  if (doc.errors.length) throw new CannotJudge(`not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  if (!isMap(doc.contents)) throw new CannotJudge('the ledger must be a mapping with `version: 1` and `records:`');
  return doc;
}

function recordsPair(doc: Document): Pair | undefined {
  return (doc.contents as import('yaml').YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === 'records');
}

/** The records list, made when absent or empty. */
function records(doc: Document): YAMLSeq {
  const pair = recordsPair(doc);
  if (pair && isSeq(pair.value)) return pair.value;
  const seq = new YAMLSeq();
  if (pair) pair.value = seq;
  else (doc.contents as import('yaml').YAMLMap).add(doc.createPair('records', seq));
  return seq;
}

/** JSON keeps a numeric seed and the run counts numbers, as a human would write them. */
function jsonRow(row: RowFields): Record<string, string | number> {
  const out: Record<string, string | number> = { ...row };
  for (const key of ['seed', 'runs', 'fails'])
    if (row[key] !== undefined && /^\d{1,15}$/.test(row[key])) out[key] = Number(row[key]);
  return out;
}

/** The ledger text with the row at `index` given new values for `fields` (kept in place; added at its end when absent). */
export function setFields(text: string, json: boolean, index: number, fields: RowFields): string {
  if (json) {
    const data = JSON.parse(text) as { records: Record<string, unknown>[] };
    Object.assign(data.records[index], fields);
    return JSON.stringify(data, null, 2) + '\n';
  }
  const doc = yamlDoc(text);
  const row = records(doc).items[index];
  if (!isMap(row)) throw new CannotJudge('the row to edit is not a mapping');
  for (const [k, v] of Object.entries(fields)) row.set(k, v);
  return doc.toString();
}

/** The ledger text with `version` set (and, for version 3, the time it was migrated). */
export function setVersion(text: string, json: boolean, version: 2 | 3, migrated?: string): string {
  if (json) {
    const data = JSON.parse(text) as Record<string, unknown>;
    data.version = version;
    if (migrated) data.migrated = migrated;
    return JSON.stringify(data, null, 2) + '\n';
  }
  const doc = yamlDoc(text);
  const root = doc.contents as import('yaml').YAMLMap;
  root.set('version', String(version));
  if (migrated) root.set('migrated', migrated);
  return doc.toString();
}
