// The proposal as a person reads it: the two verdicts, then each file, row
// and freeze row, then what the owner runs.
import { counted, shellQuote } from '../common/text.js';
import type { Proposal } from './proposal.js';

const short = (id: string) => id.slice(0, 12);

export function summary(p: Proposal, file: string): string[] {
  const v = p.verdict;
  const lines = [
    `# Scratch proposal: ${p.branch ?? 'HEAD'} at ${short(p.head)}, onto ${short(p.base)}`,
    '',
    `Made ${p.made} by patchwarden scratch, in a job that ran the branch's own code: review it as you review the branch.`,
    `Production diff: ${p.production.paths.join(', ') || 'none'} (digest ${short(p.production.digest)}).`,
    '',
    '## Verdict',
    `- the base's oracles plus the production diff: ${v.trusted.status}: ${v.trusted.reason}`,
    `- with this proposal promoted: ${v.proposed.status}: ${v.proposed.reason}`,
    `- the suite with this proposal: ${v.suite ? `${counted(v.suite.cases, 'case')}, ${v.suite.failures.length} failing, ${v.suite.failures.filter((f) => f.frozen).length} of them frozen by the base's ledger${v.suite.problem ? `; ${v.suite.problem}` : ''}` : 'not run (suite.command is not set)'}`,
    `- so the gate should say: properties ${v.gate.properties}, revert ${v.gate.revert}, suite ${v.gate.suite}. Where it says otherwise, the gate's verdict stands (gate --scratch ${shellQuote(file)} prints the difference).`,
    '',
    `## Files (${p.files.length})`,
    ...p.files.map((f) => `- ${f.status} ${f.path} (${f.zone}${f.oid ? `, blob ${short(f.oid)}` : ''})`),
    '',
    `## Registry rows (${p.registry.length})`,
    ...p.registry.map((r) => `- ${r.id}: ${r.description} (named by ${r.cases.join(', ')})`),
    '',
    `## Freeze rows (${p.freeze.length})`,
    ...p.freeze.map(
      (z) =>
        `- ${z.sig} ${z.name}: ${z.note}; evidence ${z.evidence}. Promoted only once its reason (the cause) and owner are filled in the proposal.`,
    ),
    '',
    '## Next',
    `An owner reviews the files and rows above, edits the proposal's descriptions, reasons and owners where needed, and runs, on the branch it merges into: patchwarden promote ${shellQuote(file)}`,
    `That makes one commit of ${counted(p.files.length, 'file')}, ${counted(p.registry.length, 'registry row')} and the filled freeze rows; the branch then drops its own oracle commits and is rebased onto it.`,
  ];
  return lines;
}
