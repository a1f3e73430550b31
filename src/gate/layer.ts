// One row of the gate's decision table.
import { CannotJudge } from '../common/errors.js';
import type { Judged, Violation } from '../common/verdict.js';

export interface LayerResult extends Judged {
  /** Layer-specific data for --format json. */
  details?: Record<string, unknown>;
  /** Said below the table without changing the verdict (what a stricter setting would refuse). */
  notes?: string[];
}

export function passed(layer: string, summary: string, details?: Record<string, unknown>): LayerResult {
  return { layer, ok: true, status: 'pass', summary, violations: [], details };
}

export function skipped(layer: string, reason: string): LayerResult {
  return { layer, ok: true, status: 'skipped', summary: reason, violations: [] };
}

/** A layer left unrun because cheaper ones already refused: whatever it said, the change stays refused. */
export function notRun(layer: string, refused: string[]): LayerResult {
  return { ...skipped(layer, `not run: ${refused.join(', ')} refused`), details: { not_run: refused } };
}

/** Passed when there are no violations, else refused with the summary given. */
export function judged(
  layer: string,
  violations: Violation[],
  pass: string,
  refused: string,
  details?: Record<string, unknown>,
): LayerResult {
  return violations.length
    ? { layer, ok: false, status: 'refused', summary: refused, violations, details }
    : passed(layer, pass, details);
}

/** Runs a layer; input it cannot read becomes that layer's error, not the gate's end. */
export async function guarded(layer: string, body: () => Promise<LayerResult>): Promise<LayerResult> {
  try {
    return await body();
  } catch (err) {
    if (!(err instanceof CannotJudge)) throw err;
    return { layer, ok: false, status: 'error', summary: err.describe(), violations: [] };
  }
}

/** The gate's exit code: 1 when a rule refused, else 2 when a layer could not judge, else 0. */
export function exitCode(layers: LayerResult[]): number {
  if (layers.some((l) => l.status === 'refused')) return 1;
  if (layers.some((l) => !l.ok)) return 2;
  return 0;
}
