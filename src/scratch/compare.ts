// Where the gate and a scratch proposal disagree. The gate's verdict stands:
// the proposal was made by a job that ran the branch's code, on another
// seed, before an owner promoted it; the difference is printed so that a
// reviewer sees which one the proposal got wrong.
import type { Judged } from '../common/verdict.js';
import type { Proposal } from './proposal.js';

export interface Comparison {
  agrees: boolean;
  differences: string[];
}

/** The proposal's predicted layers against the gate's, and the production diff each judged. */
export function compareVerdicts(p: Proposal, layers: Judged[], digest: string | null): Comparison {
  const differences: string[] = [];
  if (digest && digest !== p.production.digest)
    differences.push(
      `production diff: scratch judged ${p.production.digest.slice(0, 12)} (${p.production.paths.join(', ') || 'none'}), the gate judges ${digest.slice(0, 12)}`,
    );
  for (const [layer, predicted] of Object.entries(p.verdict.gate)) {
    const row = layers.find((l) => l.layer === layer);
    if (!row || row.status === predicted) continue;
    differences.push(`${layer}: scratch predicted ${predicted}, the gate says ${row.status}: ${row.summary}`);
  }
  return { agrees: differences.length === 0, differences };
}
