// The revert check's refusal as a violation: the one shape pre-push, the
// gate and `revert-check` give it, with the advice for a refusal the check
// words none of its own.
import type { Violation } from '../common/verdict.js';
import { SEED_KEY_VARIABLE, type PropSeed } from '../runner/seed.js';
import { revertPasses, type RevertResult, type RevertStatus } from './revert.js';

const FIX: Partial<Record<RevertStatus, string>> = {
  fails_on_head:
    'make every registered invariant run on the base plus the production diff; a case naming an unregistered id needs its id registered first, and a changed test harness must land first, each in a change of their own',
  regressed:
    'fix the production code so every case that passes without the patch passes with it (a freeze row does not cover a regression)',
  revert_broken:
    'the reverted tree could not run the properties, so the check proves nothing; keep the properties importable without the patch (e.g. test through a stable entry point)',
};

const SOURCES: Record<PropSeed['source'], string> = {
  keyed: `derived from ${SEED_KEY_VARIABLE}, the base tree and the production diff`,
  random: `drawn for this run: ${SEED_KEY_VARIABLE} is not set`,
  given: 'given with --seed',
};

/** Which PROP_SEED the two runs had, and where it came from. */
export function seedLine(seed: PropSeed): string {
  return `the revert check's runs had PROP_SEED=${seed.value} (${SOURCES[seed.source]})`;
}

/** The refusal a revert check makes, null when it passes: the production paths it reverted, why, and what to do. */
export function revertViolation(r: RevertResult): Violation | null {
  if (revertPasses(r.status)) return null;
  const why = r.evidence ? ` (${r.evidence.why})` : '';
  return {
    rule: 'revert',
    paths: r.reverted.map((p) => p.path),
    message: `revert check ${r.status}: ${r.reason}${why}${r.seed ? `; ${seedLine(r.seed)}` : ''}`,
    fix: r.fix ?? FIX[r.status],
    detail: r.reverted.map((p) => ({ path: p.path, zone: 'src', note: p.action })),
  };
}

/** The most lines of the property command's output shown with a refusal: its end, where runners summarize. */
const OUTPUT_LINES = 200;

/** The property command's own output from the run that decided a refusal, headed by which run it was; null without one. */
export function outputBlock(r: RevertResult): string | null {
  if (!r.output) return null;
  const lines = r.output.trimEnd().split('\n');
  const shown = lines.slice(-OUTPUT_LINES);
  const run = r.output_of === 'reverted' ? 'with the production diff reverted' : 'on head';
  const last = lines.length > shown.length ? `, its last ${shown.length} lines` : '';
  return `the property command said, ${run}${last}:\n${shown.map((l) => `  | ${l}`).join('\n')}`;
}
