// The promotion table: what to do with each classified case. A freeze is the
// last resort, proposed only for a flicker seen on a remote runner, and only
// ever printed for a human to review: replay never writes the ledger.
import { formatDuration } from '../common/duration.js';
import { shellQuote } from '../common/text.js';
import type { CiRun } from './ci.js';
import type { KeyStats } from './classify.js';
import type { CaseVerdict, EnvClass, FreezeCandidate } from './types.js';

export interface PromotionContext {
  seed: string;
  envClass: EnvClass;
  /** The CI run the replay ran in: the row's evidence. */
  ci: CiRun | null;
  /** The unexpired ledger row that already freezes a signature, if one does. */
  frozenBy(sig: string): { line: number; expires: string; source: string } | null;
  /** How long a proposed row lives. */
  ttlMs: number;
  now: Date;
  /** The working tree ledger's version (1 when there is none): version 3 takes rows only from a results file. */
  ledgerVersion: number;
  /** The results file this replay wrote (--out): the evidence a bound row is added from. */
  out: string | null;
}

/** The ledger's timestamp shape: ISO 8601 to the second, UTC. */
function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The seed as the ledger holds it: a number when it is a plain integer. */
function ledgerSeed(seed: string): number | string {
  return /^\d+$/.test(seed) && Number.isSafeInteger(Number(seed)) ? Number(seed) : seed;
}

/** `7d` rather than `604800.0s`: the ttl as `freeze add --ttl` takes it. */
function ttlText(ms: number): string {
  const day = 86_400_000;
  const hour = 3_600_000;
  if (ms % day === 0) return `${ms / day}d`;
  if (ms % hour === 0) return `${ms / hour}h`;
  return formatDuration(ms);
}

function freezeAddLine(row: Omit<FreezeCandidate, 'command'>, ttl: string): string {
  const q = shellQuote;
  // `--opt=value`: a value that starts with a dash (a test name can) stays a value.
  return [
    'patchwarden freeze add',
    `--sig=${q(row.sig)}`,
    `--reason=${q(row.reason)}`,
    // Left for the human: pasted without OWNER set, the shell stops with this message.
    '--owner="${OWNER:?set OWNER to who answers for this flake}"',
    `--ttl=${q(ttl)}`,
    `--last-name=${q(row.last_name)}`,
    ...(row.fixture ? [`--fixture=${q(row.fixture)}`] : []),
    `--seed=${q(String(row.seed))}`,
    `--env-class=${q(row.env_class)}`,
    ...(row.ci && row.run ? [`--ci=${q(row.ci)}`, `--run=${q(row.run)}`] : []),
  ].join(' ');
}

/**
 * The line for a row bound to its results file: everything but the owner and
 * the cause comes from the file, and the human sets both in the shell.
 */
function boundLine(sig: string, out: string, ttl: string): string {
  const q = shellQuote;
  return [
    'patchwarden freeze add',
    `--from-replay=${q(out)}`,
    `--sig=${q(sig)}`,
    '--reason="${REASON:?set REASON to what makes it fail}"',
    '--owner="${OWNER:?set OWNER to who answers for this flake}"',
    `--ttl=${q(ttl)}`,
  ].join(' ');
}

function candidate(s: KeyStats, ctx: PromotionContext): FreezeCandidate {
  const sig = s.sigs[0].sig;
  // A flake without input, or any flake under a version 3 ledger, is frozen only from the file that shows it.
  const bound = !s.fixture || ctx.ledgerVersion >= 3;
  if (bound && ctx.out) {
    const row: Omit<FreezeCandidate, 'command'> = {
      sig,
      reason: `flicker: ${s.fails} of ${s.runs} runs failed under seed ${ctx.seed} on ${ctx.envClass} runners${s.fixture ? '' : ', with no input'}`,
      owner: null,
      expires: stamp(new Date(ctx.now.getTime() + ctx.ttlMs)),
      issued: stamp(ctx.now),
      last_name: s.name,
      fixture: s.fixture ?? 'none',
      seed: ledgerSeed(ctx.seed),
      env_class: ctx.envClass,
      ...(ctx.ci && { ci: ctx.ci.provider, run: ctx.ci.run }),
      evidence: ctx.out,
    };
    return { ...row, command: boundLine(sig, ctx.out, ttlText(ctx.ttlMs)) };
  }
  const row: Omit<FreezeCandidate, 'command'> = {
    sig,
    reason: `flicker: ${s.fails} of ${s.runs} runs failed under seed ${ctx.seed} on ${ctx.envClass} runners (TODO: the cause)`,
    owner: null,
    expires: stamp(new Date(ctx.now.getTime() + ctx.ttlMs)),
    issued: stamp(ctx.now),
    last_name: s.name,
    ...(s.fixture && { fixture: s.fixture }),
    seed: ledgerSeed(ctx.seed),
    env_class: ctx.envClass,
    ...(ctx.ci && { ci: ctx.ci.provider, run: ctx.ci.run }),
  };
  return { ...row, command: freezeAddLine(row, ttlText(ctx.ttlMs)) };
}

/** Why a remote flicker cannot be frozen, or null when it can. */
function unfreezable(s: KeyStats): string | null {
  if (s.sigs.length === 0) return 'no failing run left a failure signature (the runs crashed or did not run it)';
  if (s.sigs.length > 1)
    return `it failed with ${s.sigs.length} different signatures: more than one failure, not one flake`;
  if (!s.sigs[0].eligible)
    return 'its failure has nothing stable to bind to (ineligible signature), so no freeze could match it';
  return null;
}

function counted(s: KeyStats): string {
  const parts = [];
  if (s.crashed) parts.push(`${s.crashed} without a report`);
  if (s.missing) parts.push(`${s.missing} where it did not run`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

export function promote(s: KeyStats, ctx: PromotionContext): CaseVerdict {
  const base = {
    key: s.key,
    kind: s.kind,
    name: s.name,
    names: s.names,
    status: s.status,
    runs: s.runs,
    passes: s.passes,
    fails: s.fails,
    crashed: s.crashed,
    missing: s.missing,
    sigs: s.sigs.map((x) => x.sig),
  };
  if (s.status === 'stable_fail') {
    const pin = s.fixture
      ? `its input is pinned as fixture ${s.fixture}`
      : 'pin its failing input as a fixture (patchwarden fixtures add)';
    return {
      ...base,
      action: 'fix',
      note: `failed in all ${s.runs} runs${counted(s)}: a regression to fix; ${pin}; no freeze`,
      freeze_candidate: null,
    };
  }
  if (s.status === 'stable_pass') {
    return {
      ...base,
      action: 'drop',
      note: `passed in all ${s.runs} runs: not reproducible under seed ${ctx.seed}; drop it, no freeze`,
      freeze_candidate: null,
    };
  }
  const flicker = `failed in ${s.fails} of ${s.runs} runs${counted(s)}`;
  if (s.entropy) {
    const shown =
      s.frameSets.length > 1
        ? `: ${s.frameSets.map((f) => f.join(' < ') || '(no project frame)').join(' | ')}`
        : ' (another key failed under the same name with other frames)';
    return {
      ...base,
      action: 'unpinned_entropy',
      note: `unpinned entropy: fail. ${flicker}, and its failing frames differ between runs${shown}: something the run does not pin (input, seed, time, order) moves the failure; pin it, never freeze it`,
      freeze_candidate: null,
    };
  }
  if (ctx.envClass === 'local') {
    return {
      ...base,
      action: 'replay_remote',
      note: `${flicker} on a local runner: replay it on remote runners before any freeze`,
      freeze_candidate: null,
    };
  }
  const why = unfreezable(s);
  if (why) return { ...base, action: 'investigate', note: `${flicker}, but ${why}`, freeze_candidate: null };
  const frozen = ctx.frozenBy(s.sigs[0].sig);
  if (frozen)
    return {
      ...base,
      action: 'already_frozen',
      note: `${flicker} on remote runners: already frozen by line ${frozen.line} of ${frozen.source} until ${frozen.expires}; to renew it, its owner runs patchwarden freeze extend --sig ${s.sigs[0].sig} --ttl ${ttlText(ctx.ttlMs)}`,
      freeze_candidate: null,
    };
  const row = candidate(s, ctx);
  const unbound =
    !row.evidence && (ctx.ledgerVersion >= 3 || (!s.fixture && ctx.ledgerVersion === 2))
      ? `; replay it again with --out FILE: ${s.fixture ? 'a version 3 ledger takes' : 'a flake without input is frozen only from'} the freeze add --from-replay line replay then prints`
      : '';
  return {
    ...base,
    action: 'freeze_candidate',
    note: `${flicker} on remote runners: a freeze candidate for a human to review${unbound}`,
    freeze_candidate: row,
  };
}
