// `patchwarden revert-check`: the properties must pass on head and fail with
// the production diff reverted. Judged by the config, the registry and the
// owners' refactor rows on the base side (unless --config names another
// file). It lives above the revert check to consult those rows before any
// run, as pre-push and the gate do.
import { parse } from '../common/args.js';
import { emit } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { showPath } from '../common/text.js';
import { judgingConfig, workingConfigNote } from '../config/judging.js';
import { commitOrNull, mergeBase, openRepo, resolveCommit, type Repo } from '../git/repo.js';
import { clockNow } from '../freeze/clock.js';
import { stateLines } from '../properties/report.js';
import { revertCheck, revertPasses, type RevertResult, type Side } from '../properties/revert.js';
import { outputBlock, revertViolation } from '../properties/verdict.js';
import { mergeParts, readParts, type MergedParts } from '../properties/merge.js';
import { parseShard, partOf, toSide, writePart } from '../properties/shard.js';
import { propertyCommand } from '../properties/run.js';
import { runEnv } from '../runner/env.js';
import { takeSeedKey } from '../runner/seed.js';
import type { Config } from '../config/schema.js';
import { isOracle } from '../zones/classify.js';
import { classifierFor } from '../config/classifier.js';
import { containedLines, containedSoFar } from '../runner/contain.js';
import { partsSealedLine, sealedCalls, sealedLines } from '../properties/sealed/env.js';
import { fenceLines, fenceSoFar } from '../properties/fence.js';
import { refactorExemption } from './ack.js';

export const help = `usage: patchwarden revert-check [--base REV] [--head REV] [--side head|base [--shard K/N] --out FILE | --merge FILE...] [--format text|json] [--config PATH] [-C DIR]

The properties (properties.command) run on the base plus the production
diff (the src-zone part of base..head) and with that diff put back to base.
Each case of a registered invariant (properties.invariants) is judged
against its own outcome in the other run: holds (passes in both), fixed
(fails reverted, passes on head: the patch is described), regressed (passes
reverted, fails or skips on head: refused always), pending (fails in both:
allowed only under an owner's pending mark on the registry row). A diff that
owes evidence (revert.require) needs a fixed case, or an owner's row in
.patchwarden/refactors.yaml (looked up before any run). Every path outside
the src zone is as on the base side in both runs, except what admitted
owner-signed commits of the range change. Runs in a temporary worktree
(revert.mode: worktree) or, opt-in, in the working tree with uncommitted
changes set aside under a snapshot (revert.mode: in-place; see patchwarden
recover).

  --head REV   the patched commit (default HEAD)
  --base REV   the commit before the patch (default: the merge-base of head
               with its upstream branch)
  --side head|base --shard K/N --out FILE
               run one side only (base: the production diff reverted), or
               shard K of N of it, and write what it said to FILE as a part
               for --merge; {shard} in properties.command becomes K/N
  --merge FILE...
               the verdict from the parts of a CI matrix: refused unless
               every shard of both sides is there once, each invariant's
               cases come from one shard per side, and the parts agree on
               base, head, command, seed, environment and judge

The config and the registry are read from the base side.
A production diff whose every file parses to the same syntax tree on both
sides, comments and formatting aside, owes no property and none runs
(no_behaviour_change; docs/revert-check.md says what counts as behaviour).
status: describes_patch, acknowledged, vouched, no_behaviour_change and
not_applicable pass (exit 0); does_not_describe, regressed, pending_unmarked,
fails_on_head and revert_broken refuse (exit 1); 2 could not judge.`;

export async function run(args: string[]): Promise<number> {
  const { common, values, positionals } = parse(args, {
    base: { type: 'string' },
    head: { type: 'string' },
    side: { type: 'string' },
    shard: { type: 'string' },
    out: { type: 'string' },
    merge: { type: 'boolean' },
  });
  const matrix = matrixMode(values, positionals);
  const repo = await openRepo(common.dir);
  const merged = matrix.merge ? mergeParts(readParts(positionals), takeSeedKey()) : null;
  const headRev = values.head ?? merged?.head ?? 'HEAD';
  const head = await resolveCommit(repo, headRev);
  const base =
    values.base !== undefined
      ? await resolveCommit(repo, values.base)
      : (merged?.base ?? (await upstreamBase(repo, headRev, head)));
  const { config } = await judgingConfig(repo, common.config, base);
  const note = common.config ? null : await workingConfigNote(repo, base);
  if (note) process.stderr.write(`patchwarden: revert-check: ${note}\n`);
  if (merged) await checkMerged(repo, config, merged, base, head);
  const result = await revertCheck(repo, config, base, head, {
    progress: (line) => process.stderr.write(`patchwarden: ${line}\n`),
    now: clockNow(),
    exemption: (patch, kept) => refactorExemption(repo, config, { from: base, base, head }, patch, kept),
    part: matrix.part ?? undefined,
    merged: merged?.runs,
  });
  if (matrix.part) {
    writePart(values.out!, partOf(config, result, matrix.part.side, matrix.part.shard), takeSeedKey());
    const ran = result.part ? 'its run' : `no run (${result.status})`;
    return emit(common.format, {
      ok: true,
      json: {
        part: values.out,
        side: values.side,
        shard: matrix.part.shard,
        ran: Boolean(result.part),
        status: result.status,
      },
      text: [`patchwarden: wrote side ${values.side} shard ${matrix.part.shard} (${ran}) to ${showPath(values.out!)}`],
    });
  }
  if (!revertPasses(result.status)) {
    const output = outputBlock(result);
    if (output) process.stderr.write(`patchwarden: ${output}\n`);
  }
  return emit(common.format, {
    ok: revertPasses(result.status),
    json: {
      status: result.status,
      failing_on_revert: result.failing_on_revert,
      reason: result.reason,
      fix: result.fix,
      evidence: result.evidence,
      digest: result.digest,
      acknowledged: result.acknowledged,
      unchanged: result.unchanged,
      states: result.states,
      pending: result.pending,
      green: result.green,
      neutral: result.neutral,
      owner_commits: result.owner_commits,
      base: result.base,
      head: result.head,
      mode: result.mode,
      reverted: result.reverted,
      outside_src: result.outside_src,
      head_run: result.head_run,
      revert_run: result.revert_run,
      contained: containedSoFar(),
      sealed: result.sealed,
      sealed_calls: sealedCalls(),
      fence: fenceSoFar(),
    },
    text: [
      ...textLines(result),
      ...containedLines().map((l) => `patchwarden: ${l}`),
      // A merge runs no property itself: its mode is the parts'.
      ...(merged && result.sealed ? [partsSealedLine(result.sealed)] : sealedLines()).map((l) => `patchwarden: ${l}`),
      ...fenceLines().map((l) => `patchwarden: ${l}`),
    ],
  });
}

/** Which matrix role the options ask for: one part (--side, --shard, --out), the merge (--merge FILE...), or neither. */
function matrixMode(
  values: { side?: string; shard?: string; out?: string; merge?: boolean; base?: string; head?: string },
  positionals: string[],
): { part: { side: Side; shard: string } | null; merge: boolean } {
  if (values.merge) {
    if (values.side || values.shard || values.out)
      throw new UsageError('--merge takes the part files only, not --side, --shard or --out');
    return { part: null, merge: true };
  }
  if (positionals.length)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (part files go after --merge)`);
  if (!values.side) {
    if (values.shard || values.out) throw new UsageError('--shard and --out need --side head|base');
    return { part: null, merge: false };
  }
  if (!values.out) throw new UsageError('--side needs --out FILE, where the part is written for --merge');
  const shard = values.shard ?? '1/1';
  parseShard(shard);
  return { part: { side: toSide(values.side), shard }, merge: false };
}

/**
 * The parts must have run what this merge judges by: the base's command and
 * pinned environment, on the same base and head. The merge job trusts the
 * parts as it trusts the workflow that ran them, so it says so when no zone
 * guards the workflow files.
 */
async function checkMerged(repo: Repo, config: Config, merged: MergedParts, base: string, head: string): Promise<void> {
  const want = { base, head, command: propertyCommand(config), env: runEnv(config) };
  for (const [field, value] of Object.entries(want))
    if (JSON.stringify(value) !== JSON.stringify(merged[field as keyof typeof want]))
      throw new CannotJudge(
        `revert-check --merge: the parts ran with another ${field} (${JSON.stringify(merged[field as keyof typeof want])}) than this check judges by (${JSON.stringify(value)}); run the matrix again on this base and head`,
      );
  const classify = await classifierFor(repo, config);
  if (!WORKFLOW_FILES.some((f) => isOracle(classify(f))))
    process.stderr.write(
      `patchwarden: warning: the merge is as trustworthy as the workflow that ran its parts, and no zone guards ${WORKFLOW_FILES.map((f) => f.replace(/\/x\.yml$/, '')).join(' or ')}: put them in zones.guard, or give them an owner in CODEOWNERS\n`,
    );
  if (!merged.verified)
    process.stderr.write(
      'patchwarden: the parts were read without PATCHWARDEN_SEED_KEY, so no HMAC was checked: set the key in every job of the matrix and in the merge job\n',
    );
}

/** Paths inside the workflow folders of GitHub Actions and GitLab CI, to ask the zones about. */
const WORKFLOW_FILES = ['.github/workflows/x.yml', '.gitlab-ci.yml'];

/** The merge-base of head with its upstream, or an error that says how to name a base. */
async function upstreamBase(repo: Repo, headRev: string, head: string): Promise<string> {
  const upstream = await commitOrNull(repo, `${headRev}@{upstream}`);
  if (!upstream)
    throw new CannotJudge(
      `no base to revert to: ${headRev} has no upstream branch; name one with --base REV (for example --base origin/main)`,
    );
  const base = await mergeBase(repo, head, upstream);
  if (!base) throw new CannotJudge(`${headRev} and its upstream share no history; name a base with --base REV`);
  return base;
}

function textLines(r: RevertResult): string[] {
  const short = (id: string) => id.slice(0, 12);
  const range = `${short(r.base)}..${short(r.head)}`;
  if (r.status === 'not_applicable') return [`patchwarden: revert check not applicable for ${range}: ${r.reason}`];
  const paths = r.reverted.map((p) => `    ${showPath(p.path)}  (${p.action})`);
  const states = stateLines(r);
  const owed = r.evidence
    ? [`  evidence: ${r.evidence.owed ? 'owes a fixed case' : 'vouched for'} (${r.evidence.why})`]
    : [];
  const unchanged = r.unchanged.map((p) => `    ${showPath(p)}  (same syntax tree)`);
  if (revertPasses(r.status))
    return [
      `patchwarden: revert check passed for ${range} (${r.status}): ${r.reason}`,
      ...owed,
      ...states,
      ...paths,
      ...unchanged,
    ];
  const advice = revertViolation(r)?.fix;
  return [
    `patchwarden: refused [revert] ${r.status} for ${range}: ${r.reason}`,
    ...owed,
    ...states,
    ...(r.reverted.length ? ['  production paths reverted:', ...paths] : []),
    ...(advice ? advice.split('\n').map((l) => `  ${l}`) : []),
  ];
}
