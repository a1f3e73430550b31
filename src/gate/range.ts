// The gate's object-only layers over base..head: mixing (with the guard's
// own files), owners, the ledger and the fixture lock at head. Rules come
// from the base side.
import type { Config } from '../config/schema.js';
import { freezePolicy } from '../freeze/policy.js';
import type { RawChange } from '../git/changes.js';
import type { Repo } from '../git/repo.js';
import type { Facts } from '../judge/facts.js';
import { runPlan, type Plan } from '../judge/rule.js';
import { fixturesRule } from '../judge/rules/fixtures.js';
import { freezeRule, missingEvidence } from '../judge/rules/freeze.js';
import { guardFileRule } from '../judge/rules/guard-file.js';
import { mixingRule } from '../judge/rules/mixing.js';
import { overrideRule } from '../judge/rules/override.js';
import { ownersRule } from '../judge/rules/owners.js';
import { symlinkRule } from '../judge/rules/symlink.js';
import { tamperRule } from '../judge/rules/tamper.js';
import { fitRangeAdvice, judgedRangeAdvice, judgedReorderAdvice } from '../mixing/advice.js';
import type { Overrides } from '../owners/override.js';
import { ownersApply, ownersUnset, untouchedLines } from '../owners/rule.js';
import type { Classify } from '../zones/classify.js';
import { guarded, judged, passed, skipped, type LayerResult } from './layer.js';
import { counted } from '../common/text.js';

export interface GateContext {
  repo: Repo;
  config: Config;
  /** The base commit the rules come from (and --base as given), and the commit judged. */
  base: string;
  baseName: string;
  head: string;
  /** Where head left base: the production diff is mergeBase..head. */
  mergeBase: string;
  /** head's commits not in base, oldest first, and their changed paths. */
  commits: string[];
  changes: Map<string, RawChange[]>;
  /** Owner override commits honoured (left out of mixing), and the refusals of the others. */
  overrides: Overrides;
  /** What the revert check starts from: mergeBase and base, each plus the honoured overrides' own changes. */
  revertFrom: { mergeBase: string; onto: string };
  classify: Classify;
  now: Date;
  progress(line: string): void;
  /** --seed: the revert check's property seed, instead of the one the gate derives or draws. */
  seed?: string;
  /** The range's facts (head judged), which the engine's rules read. */
  facts: Facts;
}

/** The rules of the engine among the gate's rows, started together; each row runs its own, so every row is judged. */
export const GATE_RULES: Plan = [
  [ownersRule, overrideRule, mixingRule, guardFileRule, freezeRule, fixturesRule, tamperRule, symlinkRule],
];

/** The owners row and the mixing row, which leaves out the oracle commits the owners verdict finds owner-signed. */
export async function mixingAndOwners(ctx: GateContext): Promise<LayerResult[]> {
  const owners = await guarded('owners', async () => {
    if (!ownersApply(ctx.config.owners)) return skipped('owners', 'owners.signers and owners.agents are not set');
    const [v, found] = await Promise.all([ctx.facts.owners(), runPlan(ctx.facts, [[ownersRule]])]);
    const result = judged(
      'owners',
      found,
      `oracle commits by owners only (${counted(v.exempt.size, 'signed oracle commit')})`,
      `${counted(new Set(found.map((x) => x.commit)).size, 'oracle commit')} not made by an owner`,
    );
    const unset = ownersUnset(ctx.config.owners);
    const notes = [...(unset && result.ok ? [unset] : []), ...untouchedLines(v.untouched)];
    if (notes.length) result.notes = notes;
    return result;
  });
  const mixing = await guarded('mixing', async () => {
    const v = await runPlan(ctx.facts, [[overrideRule, mixingRule, symlinkRule]]);
    await fitRangeAdvice(
      v,
      (oracleTip) =>
        judgedRangeAdvice(ctx.repo, ctx.config, ctx.baseName, {
          oracleTip,
          base: ctx.mergeBase,
          head: ctx.head,
          commits: ctx.commits,
        }),
      (oracle) => judgedReorderAdvice(ctx.repo, ctx.config, ctx.baseName, { oracle, commits: ctx.commits }),
    );
    // A guard file that does not parse would judge every later change once it merges.
    v.push(...(await runPlan(ctx.facts, [[guardFileRule]])));
    return judged(
      'mixing',
      v,
      `${counted(ctx.commits.length, 'commit')}, production code and oracles kept apart`,
      mixingSummary(v),
    );
  });
  return [mixing, owners];
}

function mixingSummary(v: { rule: string; paths: string[] }[]): string {
  const mixed = v.filter((x) => x.rule === 'mix').length;
  if (mixed) return `${counted(mixed, 'commit')} ${mixed === 1 ? 'mixes' : 'mix'} production code with oracles`;
  if (v.some((x) => x.rule === 'mix-range')) return 'the range mixes production code with oracles';
  if (v.some((x) => x.rule === 'guard-file'))
    return `${v.find((x) => x.rule === 'guard-file')!.paths[0]} at head does not parse`;
  return 'a symbolic link points out of its zone';
}

export function fixturesLayer(ctx: GateContext): Promise<LayerResult> {
  return guarded('fixtures', async () => {
    const v = await runPlan(ctx.facts, [[fixturesRule]]);
    const report = (await ctx.facts.fixtureReport())!;
    const none = report.lockMissing && !v.length;
    return judged(
      'fixtures',
      v,
      none
        ? `no fixtures and no ${ctx.config.fixtures.lock} at head`
        : `${ctx.config.fixtures.lock} matches the fixtures at head`,
      `${ctx.config.fixtures.lock} does not match the fixtures at head`,
      { ...report },
    );
  });
}

export function ledgerLayer(ctx: GateContext): Promise<LayerResult> {
  return guarded('ledger', async () => {
    const ledger = await ctx.facts.ledger();
    if (!ledger) return passed('ledger', `no ledger (${ctx.config.freeze.ledger}) at head`);
    const policy = freezePolicy(ctx.config, ledger);
    const v = await runPlan(ctx.facts, [[freezeRule]]);
    const result = judged(
      'ledger',
      v,
      `${ledger.source.replace(/^[0-9a-f]{12,}/, (id) => id.slice(0, 12))}: ${counted(ledger.rows.length, 'well-formed row')} (version ${ledger.version})`,
      `${ctx.config.freeze.ledger} at head breaks ${counted(v.length, 'rule')}`,
    );
    const evidence = policy.requireEvidence ? [] : await missingEvidence(ctx.facts, ledger);
    // What a stricter ledger would refuse is said, never enforced, until the owners opt in.
    if (!policy.requireEvidence && evidence.length) {
      const lines = evidence.map((v) => v.detail?.[0]?.note ?? '').join(', ');
      result.notes = [
        `${counted(evidence.length, 'row')} of ${ctx.config.freeze.ledger} carry no replay evidence (${lines}): ${policy.version === 1 ? 'a version 2 ledger would refuse them' : 'kept only because freeze.require_evidence is false'}; patchwarden freeze migrate --check lists what each lacks`,
      ];
    }
    return result;
  });
}
