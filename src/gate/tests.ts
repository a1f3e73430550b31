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
import { hitsOf } from '../freeze/hits.js';
import { emptyLedger, readLedgerAt, soundLedger } from '../freeze/ledger.js';
import { readFileAt } from '../git/objects.js';
import { configBool, worktreeRoot } from '../git/repo.js';
import { treeOf } from '../git/trees.js';
import { readReport } from '../junit/read.js';
import { headProblems } from '../properties/mapping.js';
import { loadRegistryAt } from '../properties/registry.js';
import { stateLines } from '../properties/report.js';
import { headRefused, revertCheck, type BaseFinding, type RevertResult } from '../properties/revert.js';
import { judgeStates, markAdvice } from '../properties/states.js';
import { revertViolation, seedLine } from '../properties/verdict.js';
import { ACK_FILE, diffDigest, refactorExemption } from '../refactors/ack.js';
import { ciRun } from '../replay/ci.js';
import { runHeadOnly } from '../properties/harness-tree.js';
import { TREE_ENV } from '../properties/runenv.js';
import { disagreement } from '../runner/agreement.js';
import { runTestCommand } from '../runner/command.js';
import { runEnv, SEED_VARIABLE } from '../runner/env.js';
import { gateSeed, seedEnv, type PropSeed } from '../runner/seed.js';
import type { RawChange } from '../git/changes.js';
import { signCase, signOptions } from '../signature/sign.js';
import { checkoutSource } from '../signature/source.js';
import type { Signed } from '../signature/types.js';
import { guarded, judged, notRun, passed, skipped, type LayerResult } from './layer.js';
import type { GateContext } from './range.js';
import { counted } from '../common/text.js';

const refusal = (rule: string, message: string): Violation => ({ rule, paths: [], message });

/**
 * The properties and revert layers, from one revert check. The properties
 * layer is the head side: every case judged against the reverted run (a
 * regression, a red invariant without an owner's pending mark, a case that
 * only skips on head are refused); the revert layer is the evidence the diff
 * owes (a fixed case, an owner's refactor row, or none when vouched for).
 * Without production changes there is nothing to revert: the properties run
 * once on head (with the base's harness from config version 2), by head's registry (an oracle-only change is what
 * the owners and mixing rules are for), and a red invariant lands only under
 * its pending mark. Once a cheaper layer refused (`refused` names them), no
 * property runs: the change stays refused whatever they would say.
 */
export async function propertyLayers(ctx: GateContext, refused: string[] = []): Promise<LayerResult[]> {
  const { repo, config } = ctx;
  if (!config.properties.command) {
    const why = 'properties.command is not set';
    if (!(await readFileAt(repo, ctx.base, config.properties.invariants)))
      return [skipped('properties', why), skipped('revert', why)];
    const e = `${config.properties.invariants} registers invariants at base, but ${why}: nothing would check them`;
    return ['properties', 'revert'].map((layer) => ({
      layer,
      ok: false,
      status: 'error' as const,
      summary: e,
      violations: [],
    }));
  }
  if (refused.length) return [notRun('properties', refused), notRun('revert', refused)];
  let result: RevertResult | null = null;
  const properties = await guarded('properties', async () => {
    result = await revertCheck(repo, config, ctx.revertFrom.mergeBase, ctx.head, {
      progress: ctx.progress,
      onto: ctx.revertFrom.onto,
      now: ctx.now,
      exemption: (patch, kept) =>
        refactorExemption(
          repo,
          config,
          { from: ctx.revertFrom.mergeBase, base: ctx.base, head: ctx.head },
          patch,
          kept,
        ),
      seed: (patch) => chooseSeed(ctx, patch),
      headCache: false,
    });
    if (result.status === 'not_applicable') return headOnly(ctx);
    const seed = result.seed && { ...result.seed, replay: replayLine(ctx, result.seed.value) };
    const details = {
      status: result.status,
      states: result.states,
      pending: result.pending,
      neutral: result.neutral,
      head_run: result.head_run,
      sealed: result.sealed,
      outside_src: result.outside_src,
      owner_commits: result.owner_commits,
      env: { ...runEnv(config), ...seedEnv(result.seed) },
      seed,
      found: result.found,
    };
    // Configured, and settled by an owner before any run: a pass (gate.require counts it), not a skip.
    if (result.status === 'acknowledged' || result.status === 'no_behaviour_change')
      return passed('properties', `not run: ${result.reason}`, details);
    const notes = [
      ...(seed && result.head_run ? [`${seedLine(seed)}; to replay both runs exactly: ${seed.replay}`] : []),
      ...(result.found ? [foundNote(result.found)] : []),
    ];
    if (headRefused(result.status)) {
      return {
        layer: 'properties',
        ok: false,
        status: 'refused',
        summary: `${result.status}: the properties do not pass on the base plus the production diff`,
        violations: [
          {
            rule: 'properties',
            paths: result.outside_src,
            message: `${result.reason}${seed ? ` (${seedLine(seed)})` : ''}${lines(result)}`,
            fix: result.fix ?? undefined,
          },
        ],
        details,
        notes,
      };
    }
    return { ...passed('properties', statesSummary(result), details), notes };
  });
  const r = result as RevertResult | null;
  if (!r) return [properties, { ...properties, layer: 'revert' }];
  return [properties, r.status === 'not_applicable' ? skipped('revert', r.reason) : revertLayer(r)];
}

/** The revert layer of a check that ran: its evidence as a pass, or the one refusal it makes. */
function revertLayer(r: RevertResult): LayerResult {
  // Invariants whose property does not build without the diff, for want of what it adds (properties/by-build.ts).
  const byBuild = r.states.filter((i) => i.by_build);
  const details = {
    status: r.status,
    sealed: r.sealed,
    evidence: r.evidence,
    digest: r.digest,
    failing_on_revert: r.failing_on_revert,
    reverted: r.reverted,
    ...(r.acknowledged ? { acknowledged: r.acknowledged } : {}),
    ...(byBuild.length ? { by_build: Object.fromEntries(byBuild.map((i) => [i.id, i.by_build])) } : {}),
  };
  return r.status === 'acknowledged'
    ? passed(
        'revert',
        `acknowledged refactor ${r.digest!.slice(0, 12)} by ${r.acknowledged!.owner} (${ACK_FILE}): ${r.acknowledged!.reason}`,
        details,
      )
    : r.status === 'describes_patch'
      ? passed(
          'revert',
          `describes_patch: fixed with the production diff, failing without it: ${r.failing_on_revert.map((id) => (byBuild.some((i) => i.id === id) ? `${id} (by build)` : id)).join(', ')}`,
          details,
        )
      : r.status === 'no_behaviour_change'
        ? passed('revert', r.reason, { ...details, unchanged: r.unchanged })
        : r.status === 'vouched'
          ? passed('revert', `vouched: ${r.evidence?.why ?? ''}; ${r.reason}`, details)
          : headRefused(r.status)
            ? {
                layer: 'revert',
                ok: false,
                status: 'refused',
                summary: r.status,
                violations: [
                  refusal('revert', 'not judged: the properties do not pass on the base plus the production diff'),
                ],
                details,
              }
            : {
                layer: 'revert',
                ok: false,
                status: 'refused',
                summary: r.status,
                violations: [revertViolation(r)!],
                details,
              };
}

/**
 * The revert check's seed: --seed, else an HMAC of the CI secret, the tree
 * the judged tree is built on and the digest of the patch's src-zone changes,
 * else a random one. The suite and a run without production changes keep
 * the pinned seed: there the change brings no production code that could
 * know its inputs.
 */
async function chooseSeed(ctx: GateContext, patch: RawChange[]): Promise<PropSeed> {
  const seed = await gateSeed(runEnv(ctx.config)[SEED_VARIABLE] ?? null, ctx.seed, async () => ({
    baseTree: await treeOf(ctx.repo, ctx.revertFrom.onto),
    digest: diffDigest(patch),
  }));
  ctx.progress(seedLine(seed));
  return seed;
}

/** The command that runs the same revert check again under the same seed. */
function replayLine(ctx: GateContext, seed: string): string {
  return `git checkout --detach ${ctx.head} && patchwarden gate --base ${ctx.base} --seed ${seed}`;
}

function foundNote(f: BaseFinding): string {
  return [
    `a finding about the base, not a refusal of this change: under PROP_SEED=${f.seed} ${f.invariants.join(', ')} fail${f.invariants.length === 1 ? 's' : ''} with and without the production diff (${f.cases.map((c) => JSON.stringify(c)).join(', ')}) and pass${f.invariants.length === 1 ? 'es' : ''} on head under the pinned seed (${f.pinned === null ? 'unpinned' : `PROP_SEED=${f.pinned}`});`,
    f.fix,
  ].join('\n');
}

/** The states as the table's one line: each state's invariants, pending ones always named. */
function statesSummary(r: RevertResult): string {
  const found = new Set(r.found?.invariants);
  const by = new Map<string, string[]>();
  for (const i of r.states) {
    const state = found.has(i.id) ? `failing on the base under PROP_SEED=${r.found!.seed} (a finding)` : i.state;
    by.set(state, [...(by.get(state) ?? []), i.id]);
  }
  const parts = [...by].map(([state, ids]) =>
    state === 'pending'
      ? `pending under a mark: ${ids.join(', ')}`
      : found.has(ids[0])
        ? `${state}: ${ids.join(', ')}`
        : `${ids.length} ${state}`,
  );
  const green = r.green.length ? `; drop the pending mark of ${r.green.join(', ')} (it passes now)` : '';
  return `${counted(r.states.length, 'registered invariant')} on the base plus the production diff: ${parts.join(', ')}${r.neutral.length ? `; ${r.neutral.length} skipped in both runs` : ''}${green}`;
}

const lines = (r: RevertResult) => (r.states.length ? `\n${stateLines(r, '').join('\n')}` : '');

/**
 * No production change: one run, each case judged against itself (head is
 * the base), on the working tree or, from config version 2, on head with the
 * base's harness (properties/harness-tree.ts).
 */
async function headOnly(ctx: GateContext): Promise<LayerResult> {
  const registry = await loadRegistryAt(ctx.repo, ctx.config, ctx.head);
  const range = { base: ctx.revertFrom.mergeBase, head: ctx.head, onto: ctx.revertFrom.onto, now: ctx.now };
  const run = await runHeadOnly(ctx.repo, ctx.config, registry, range, {
    classify: ctx.classify,
    progress: ctx.progress,
  });
  const harness = run.fromBase.length ? { harness_from_base: run.fromBase } : {};
  const problems = run.problem ? [run.problem] : headProblems(run.mapping!, registry);
  if (problems.length)
    return judged(
      'properties',
      problems.map((p) => refusal('properties', p)),
      '',
      'the properties do not pass on head',
      { invariants: run.mapping?.invariants ?? [], env: runEnv(ctx.config), ...harness },
    );
  const ev = judgeStates(run.mapping!.invariants, null, registry, ctx.now, ctx.config.properties.pending_ttl);
  const unmarked = ev.refusals.filter((r) => r.why === 'unmarked').map((r) => r.id);
  const violations = ev.refusals.map(
    (r): Violation => ({
      rule: 'properties',
      paths: [],
      message: r.message,
      fix: r.why === 'unmarked' ? markAdvice(registry, unmarked, ctx.now) : undefined,
    }),
  );
  const pending = ev.pending.length ? `; pending under a mark: ${ev.pending.join(', ')}` : '';
  return judged(
    'properties',
    violations,
    `${counted(registry.invariants.length, 'registered invariant')} on head (no production change): ${ev.invariants.filter((i) => i.state === 'holds').length} hold${pending}`,
    'the properties do not pass on head',
    { states: ev.invariants, pending: ev.pending, neutral: ev.neutral, env: runEnv(ctx.config), ...harness },
  );
}

export function suiteLayer(ctx: GateContext, timeoutMs: number): Promise<LayerResult> {
  return guarded('suite', async () => {
    const { repo, config } = ctx;
    const command = config.suite.command;
    if (!command) return skipped('suite', 'suite.command is not set');
    const root = worktreeRoot(repo);
    const ledger = soundLedger(
      (await readLedgerAt(repo, config, ctx.base, ctx.now, true)) ??
        emptyLedger(`${ctx.base.slice(0, 12)}:${config.freeze.ledger}`),
    );
    ctx.progress('running the suite');
    const run = await runTestCommand(command, { cwd: root, timeoutMs, env: { ...TREE_ENV, ...runEnv(config) } });
    try {
      if (run.timedOut)
        return {
          layer: 'suite',
          ok: false,
          status: 'refused',
          summary: `the suite ran past ${formatDuration(timeoutMs)} and was killed`,
          violations: [
            refusal('suite', `the suite ran past ${formatDuration(timeoutMs)} (--suite-timeout) and was killed`),
          ],
        };
      if (!existsSync(run.junit)) {
        const how = run.signal ? `was killed by ${run.signal}` : `exited ${run.code}`;
        throw new CannotJudge(
          `the suite ${how} without writing its JUnit report to {junit} (is --junitxml={junit} or --test-reporter-destination={junit} in suite.command?)`,
        );
      }
      const report = await readReport(run.junit);
      const opts = signOptions(config, await configBool(repo, 'core.ignorecase'), await checkoutSource(root));
      const signed = report.cases.map((c) => signCase(c, opts)).filter((s): s is Signed => s !== null);
      const bySig = new Map(ledger.rows.map((r) => [r.sig, r]));
      const ids = [...new Set(signed.flatMap((s) => bySig.get(s.sig)?.fixture ?? []))];
      const voided = ids.length
        ? await voidFixtures(repo, config, ids, { kind: 'rev', rev: ctx.head })
        : new Set<string>();
      const decisions = applyFreezes(signed, ledger, config, ctx.now, voided);
      const stopped = decisions.filter((d) => !d.passes);
      const violations: Violation[] = stopped.map((d) => ({
        ...refusal('freeze', `${d.name}: ${d.action}${d.rename ? ', renamed' : ''} (sig ${d.sig}): ${d.note}`),
        ...(d.rename && d.edit
          ? {
              paths: [config.freeze.ledger],
              fix: renameEdits([d], config.freeze.ledger)
                .map((l) => l.trim())
                .join('\n'),
            }
          : {}),
      }));
      const why = disagreement(run.code, run.signal, report.cases);
      if (why) violations.push(refusal('suite', `suite.command: ${why}`));
      const details = {
        cases: report.cases.length,
        failures: decisions.map((d) => ({
          sig: d.sig,
          name: d.name,
          action: d.action,
          rename: d.rename,
          unevidenced: d.unevidenced,
          ...(d.row ? { row: { line: d.row.line, last_name: d.row.last_name ?? null } } : {}),
          ...(d.edit ? { edit: d.edit } : {}),
          ...(d.signed.flaky ? { flaky: true } : {}),
        })),
        hits: hitsOf(decisions, ciRun()?.run ?? null),
        env: runEnv(config),
      };
      const frozen = decisions.length - stopped.length;
      const unevidenced = decisions.filter((d) => d.passes && d.unevidenced.length);
      const result = judged(
        'suite',
        violations,
        `${counted(report.cases.length, 'case')}, ${decisions.length ? `${decisions.length} failing, every one frozen by ${ledger.source}` : 'none failing'}`,
        stopped.length
          ? `${stopped.length} of ${counted(decisions.length, 'failure')} not frozen by ${ledger.source}${frozen ? ` (${frozen} frozen)` : ''}`
          : 'the suite report cannot be believed',
        details,
      );
      if (unevidenced.length)
        result.notes = unevidenced.map(
          (d) =>
            `${d.name} is frozen by the row at line ${d.row!.line}, which carries no replay evidence (${d.unevidenced.join('; ')})`,
        );
      return result;
    } finally {
      run.dispose();
    }
  });
}
