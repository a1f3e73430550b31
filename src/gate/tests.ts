// The gate's layers that run tests: the properties and the revert check (one
// revert check, whose head run decides the properties layer; its tree is the
// target branch plus the patch's production diff), and the suite, every
// failure of which must match an unexpired row of the base ledger. The suite
// runs in the working tree, which in CI is HEAD's checkout; a suite report
// that disagrees with the suite's exit code is refused.
import { existsSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';
import { formatDuration } from '../common/duration.js';
import type { Violation } from '../common/verdict.js';
import { voidFixtures } from '../fixtures/verify.js';
import { applyFreezes, renameEdits } from '../freeze/apply.js';
import { emptyLedger, readLedgerAt, soundLedger } from '../freeze/ledger.js';
import { readFileAt } from '../git/objects.js';
import { configBool, worktreeRoot } from '../git/repo.js';
import { readReport } from '../junit/read.js';
import { headProblems } from '../properties/mapping.js';
import { loadRegistryAt } from '../properties/registry.js';
import { revertCheck, type RevertResult } from '../properties/revert.js';
import { ACK_FILE, ackAdvice, acknowledgment } from '../refactors/ack.js';
import { runProperties } from '../properties/run.js';
import { TREE_ENV } from '../properties/runenv.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand } from '../runner/command.js';
import { runEnv } from '../runner/env.js';
import { signCase, signOptions } from '../signature/sign.js';
import { checkoutSource } from '../signature/source.js';
import type { Signed } from '../signature/types.js';
import { guarded, judged, passed, skipped, type LayerResult } from './layer.js';
import type { GateContext } from './range.js';
import { counted } from '../common/text.js';

const refusal = (rule: string, message: string): Violation => ({ rule, paths: [], message });

/**
 * The properties and revert layers. With production changes the revert
 * check judges them, by the base registry. Without any, there is nothing to
 * revert: the properties run once on the working tree, by head's registry
 * (an oracle-only change is what the owners and mixing rules are for).
 */
export async function propertyLayers(ctx: GateContext): Promise<LayerResult[]> {
  const { repo, config } = ctx;
  if (!config.properties.command) {
    const why = 'properties.command is not set';
    if (!(await readFileAt(repo, ctx.base, config.properties.invariants))) return [skipped('properties', why), skipped('revert', why)];
    const e = `${config.properties.invariants} registers invariants at base, but ${why}: nothing would check them`;
    return ['properties', 'revert'].map((layer) => ({ layer, ok: false, status: 'error' as const, summary: e, violations: [] }));
  }
  let result: RevertResult | null = null;
  const properties = await guarded('properties', async () => {
    const registry = await loadRegistryAt(repo, config, ctx.base);
    result = await revertCheck(repo, config, ctx.mergeBase, ctx.head, { progress: ctx.progress, registry, onto: ctx.base });
    if (result.status === 'not_applicable') return headOnly(ctx);
    const ids = result.head_run?.invariants.length ?? 0;
    return result.status === 'fails_on_head'
      ? { layer: 'properties', ok: false, status: 'refused', summary: 'the properties do not pass on the base plus the production diff', violations: [{ rule: 'properties', paths: result.outside_src, message: result.reason }], details: { head_run: result.head_run, outside_src: result.outside_src, env: runEnv(config) } }
      : passed('properties', `${counted(ids, 'registered invariant')} ${ids === 1 ? 'passes' : 'pass'} on the base plus the production diff`, { head_run: result.head_run, outside_src: result.outside_src, env: runEnv(config) });
  });
  const r = result as RevertResult | null;
  let revert: LayerResult;
  if (!r) revert = { ...properties, layer: 'revert' };
  else if (r.status === 'not_applicable') revert = skipped('revert', r.reason);
  else {
    const details = { status: r.status, failing_on_revert: r.failing_on_revert, reverted: r.reverted };
    // An owner's acknowledgment at the base lets one refactor through; the refusal names the digest to acknowledge.
    const ack = r.status === 'does_not_describe' ? await acknowledgment(repo, config, ctx.base, ctx.mergeBase, ctx.head) : null;
    if (ack) r.reason += `\n${ackAdvice(ack.digest)}`;
    revert = ack?.row
      ? passed('revert', `acknowledged refactor ${ack.digest.slice(0, 12)} by ${ack.row.owner} (${ACK_FILE}): ${ack.row.reason}`, { ...details, acknowledged: ack.row })
      : r.status === 'describes_patch'
      ? passed('revert', `describes_patch: with the production diff reverted, ${r.failing_on_revert.join(', ')} fail`, details)
      : { layer: 'revert', ok: false, status: 'refused', summary: r.status, violations: [refusal('revert', r.status === 'fails_on_head' ? 'not judged: the properties do not pass on the base plus the production diff' : `${r.status}: ${r.reason}`)], details };
  }
  return [properties, revert];
}

async function headOnly(ctx: GateContext): Promise<LayerResult> {
  const registry = await loadRegistryAt(ctx.repo, ctx.config, ctx.head);
  ctx.progress('no production change: running the properties on the working tree');
  const run = await runProperties(worktreeRoot(ctx.repo), ctx.config, registry, { classify: ctx.classify });
  const problems = run.problem ? [run.problem] : headProblems(run.mapping!, registry);
  return judged('properties', problems.map((p) => refusal('properties', p)), `${counted(registry.invariants.length, 'registered invariant')} ${registry.invariants.length === 1 ? 'passes' : 'pass'} on head (no production change)`, 'the properties do not pass on head');
}

export function suiteLayer(ctx: GateContext, timeoutMs: number): Promise<LayerResult> {
  return guarded('suite', async () => {
    const { repo, config } = ctx;
    const command = config.suite.command;
    if (!command) return skipped('suite', 'suite.command is not set');
    const root = worktreeRoot(repo);
    const ledger = soundLedger((await readLedgerAt(repo, config, ctx.base, ctx.now)) ?? emptyLedger(`${ctx.base.slice(0, 12)}:${config.freeze.ledger}`));
    ctx.progress('running the suite');
    const run = await runTestCommand(command, { cwd: root, timeoutMs, env: { ...TREE_ENV, ...runEnv(config) } });
    try {
      if (run.timedOut) return { layer: 'suite', ok: false, status: 'refused', summary: `the suite ran past ${formatDuration(timeoutMs)} and was killed`, violations: [refusal('suite', `the suite ran past ${formatDuration(timeoutMs)} (--suite-timeout) and was killed`)] };
      if (!existsSync(run.junit)) {
        const how = run.signal ? `was killed by ${run.signal}` : `exited ${run.code}`;
        throw new CannotJudge(`the suite ${how} without writing its JUnit report to {junit} (is --junitxml={junit} or --test-reporter-destination={junit} in suite.command?)`);
      }
      const report = await readReport(run.junit);
      const opts = signOptions(config, await configBool(repo, 'core.ignorecase'), await checkoutSource(root));
      const signed = report.cases.map((c) => signCase(c, opts)).filter((s): s is Signed => s !== null);
      const bySig = new Map(ledger.rows.map((r) => [r.sig, r]));
      const ids = [...new Set(signed.flatMap((s) => bySig.get(s.sig)?.fixture ?? []))];
      const voided = ids.length ? await voidFixtures(repo, config, ids, { kind: 'rev', rev: ctx.head }) : new Set<string>();
      const decisions = applyFreezes(signed, ledger, config, ctx.now, voided);
      const stopped = decisions.filter((d) => !d.passes);
      const violations: Violation[] = stopped.map((d) => ({
        ...refusal('freeze', `${d.name}: ${d.action}${d.rename ? ', renamed' : ''} (sig ${d.sig}): ${d.note}`),
        ...(d.rename && d.edit ? { paths: [config.freeze.ledger], fix: renameEdits([d], config.freeze.ledger).map((l) => l.trim()).join('\n') } : {}),
      }));
      const why = disagreement(run.code, run.signal, report.cases);
      if (why) violations.push(refusal('suite', `suite.command: ${why}`));
      const details = { cases: report.cases.length, failures: decisions.map((d) => ({ sig: d.sig, name: d.name, action: d.action, rename: d.rename, unevidenced: d.unevidenced, ...(d.row ? { row: { line: d.row.line, last_name: d.row.last_name ?? null } } : {}), ...(d.edit ? { edit: d.edit } : {}), ...(d.signed.flaky ? { flaky: true } : {}) })), env: runEnv(config) };
      const frozen = decisions.length - stopped.length;
      const unevidenced = decisions.filter((d) => d.passes && d.unevidenced.length);
      const result = judged('suite', violations,
        `${counted(report.cases.length, 'case')}, ${decisions.length ? `${decisions.length} failing, every one frozen by ${ledger.source}` : 'none failing'}`,
        stopped.length ? `${stopped.length} of ${counted(decisions.length, 'failure')} not frozen by ${ledger.source}${frozen ? ` (${frozen} frozen)` : ''}` : 'the suite report cannot be believed',
        details);
      if (unevidenced.length) result.notes = unevidenced.map((d) => `${d.name} is frozen by the row at line ${d.row!.line}, which carries no replay evidence (${d.unevidenced.join('; ')})`);
      return result;
    } finally {
      run.dispose();
    }
  });
}
