// Registry rows added to a registry's text: through the YAML document, so an
// owner's comments and order stay, and checked by the registry's own parser.
import { parseDocument, YAMLSeq } from 'yaml';
import { parseRegistry } from '../properties/registry.js';
import type { ProposedInvariant } from './proposal.js';

/** `text` (null: no registry yet) with a row for each invariant it lacks. */
export function withRows(text: string | null, rows: ProposedInvariant[], source: string): string {
  const doc = parseDocument(text ?? 'version: 1\ninvariants: []\n');
  let list = doc.get('invariants');
  if (!(list instanceof YAMLSeq)) {
    list = new YAMLSeq();
    doc.set('invariants', list);
  }
  const seq = list as YAMLSeq;
  // A list written inline (`[]`) takes block rows once it has some.
  seq.flow = false;
  const have = new Set(seq.items.map((i) => String((i as { get?(k: string): unknown }).get?.('id'))));
  for (const r of rows) if (!have.has(r.id)) seq.add(doc.createNode({ id: r.id, description: r.description }));
  const out = doc.toString();
  parseRegistry(out, source);
  return out;
}
