// The tamper row of the gate's decision table: what head adds over the
// merge-base, judged by the config and allow rows at the base.
import { guarded, judged, skipped, type LayerResult } from './layer.js';
import type { GateContext } from './range.js';
import { runPlan } from '../judge/rule.js';
import { tamperRule } from '../judge/rules/tamper.js';
import { counted } from '../common/text.js';

export async function tamperLayer(ctx: GateContext): Promise<LayerResult> {
  return guarded('tamper', async () => {
    if (ctx.config.tamper.mode === 'off') return skipped('tamper', `tamper.mode is off in ${ctx.config.source}`);
    const violations = await runPlan(ctx.facts, [[tamperRule]]);
    for (const w of ctx.facts.takeNotes()) ctx.progress(w);
    const v = (await ctx.facts.tamper())!;
    const allowed = v.hits.filter((h) => h.allowed_by).length;
    const files = `${counted(v.files, 'production file')} with added lines`;
    const warned = v.warnings.length;
    const pass = warned
      ? `${files}; ${counted(warned, 'hit')} ${warned === 1 ? 'stands' : 'stand'}, but tamper.mode is warn`
      : `${files}, ${counted(v.hits.length, 'hit')}${allowed ? (allowed === 1 ? ', allowed' : ', all allowed') : ''}`;
    const standing = v.hits.length - allowed;
    return judged(
      'tamper',
      violations,
      pass,
      `production code the range adds games the test run (${counted(standing, 'hit')} not allowed)`,
      { mode: v.mode, hits: v.hits },
    );
  });
}
