// Scratch's replays: the suite command (what freeze rows let failures of
// through; the property command when no suite is set) run N times under one
// seed on the scratch tree (the base plus the branch's oracle files plus its
// production diff), classified by replay's promotion table. Each freeze candidate
// becomes a proposed row bound to the results file, which promote adds with
// `freeze add --from-replay` once an owner fills its reason and owner.
import { hostname } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { isExpired, readLedgerAt } from '../freeze/ledger.js';
import { formatUtc } from '../freeze/clock.js';
import type { Repo } from '../git/repo.js';
import { readReport } from '../junit/read.js';
import { propertyCommand } from '../properties/run.js';
import { trustedTree, type TrustedRange } from '../properties/trusted-tree.js';
import { ciRun, ciVars } from '../replay/ci.js';
import { classify } from '../replay/classify.js';
import { envClass } from '../replay/command.js';
import { promote } from '../replay/promotion.js';
import { replay } from '../replay/replay.js';
import { writeResults } from '../replay/results.js';
import { runEnv } from '../runner/env.js';
import { signCase, signOptions } from '../signature/sign.js';
import { checkoutSource } from '../signature/source.js';
import type { ProposedFreeze } from './proposal.js';

export interface ReplaySetting {
  runs: number;
  seed: string;
  /** The results file, beside the proposal. */
  out: string;
  ttl: { ms: number; text: string };
  now: Date;
  progress(line: string): void;
}

/** Replays the properties on the scratch tree; the freeze rows it proposes. */
export async function scratchReplays(
  repo: Repo,
  config: Config,
  range: TrustedRange,
  set: ReplaySetting,
): Promise<ProposedFreeze[]> {
  const command = config.suite.command ?? propertyCommand(config);
  const tree = await trustedTree(repo, config, range);
  try {
    const started = new Date().toISOString();
    const opts = signOptions(config, false, await checkoutSource(tree.dir));
    const env = runEnv(config, set.seed);
    const runs = await replay({
      command,
      cwd: tree.dir,
      runs: set.runs,
      env,
      timeoutMs: config.properties.timeout,
      readReport,
      signCase: (tc) => signCase(tc, opts),
      progress: set.progress,
    });
    const ci = ciRun();
    const env_class = envClass(undefined);
    writeResults(set.out, {
      format: 'patchwarden-replay',
      version: 1,
      seed: set.seed,
      env_class,
      command,
      runner: hostname(),
      started,
      ci,
      env,
      ci_vars: ciVars(),
      runs,
    });
    // What the base's ledger freezes already gets no second row.
    const ledger = await readLedgerAt(repo, config, range.onto, set.now);
    const rows = new Map((ledger?.rows ?? []).filter((r) => !isExpired(r, set.now)).map((r) => [r.sig, r]));
    const out = path.basename(set.out);
    return classify(runs)
      .map((s) =>
        promote(s, {
          seed: set.seed,
          envClass: env_class,
          ci,
          ttlMs: set.ttl.ms,
          now: set.now,
          ledgerVersion: ledger?.version ?? 2,
          out,
          frozenBy: (sig) => {
            const row = rows.get(sig);
            return row ? { line: row.line, expires: formatUtc(row.expires), source: ledger!.source } : null;
          },
        }),
      )
      .filter((v) => v.freeze_candidate)
      .map((v) => ({
        sig: v.freeze_candidate!.sig,
        name: v.name,
        evidence: out,
        ttl: set.ttl.text,
        reason: null,
        owner: null,
        note: v.note,
      }));
  } finally {
    await tree.remove();
  }
}
