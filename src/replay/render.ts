// How a replay's verdicts are shown: a table for people, one JSON object for
// scripts, annotations for GitHub.
import type { Outcome } from '../common/output.js';
import { annotation } from '../common/render.js';
import { counted, showPath } from '../common/text.js';
import type { CiRun } from './ci.js';
import type { CaseVerdict, EnvClass, RunRecord } from './types.js';

export interface Classified {
  seed: string;
  envClass: EnvClass;
  /** Every run judged, with the results file it came from (merge). */
  runs: { source?: string; record: RunRecord }[];
  cases: CaseVerdict[];
  ci?: CiRun | null;
  /** The pinned variables the runs got (absent under merge: each file records its own). */
  vars?: Record<string, string>;
}

function runLabel(r: { source?: string; record: RunRecord }): string {
  return r.source ? `${showPath(r.source)} run ${r.record.run}` : `run ${r.record.run}`;
}

export function outcome(c: Classified): Outcome {
  const failing = c.cases.filter((v) => v.status === 'stable_fail' || v.action === 'unpinned_entropy');
  const text: string[] = [
    `replay: ${c.runs.length} runs under seed ${c.seed} on ${c.envClass} runners${c.ci ? ` (${c.ci.provider} ${c.ci.run})` : ''}`,
  ];
  if (c.vars)
    text.push(
      `  environment: ${Object.entries(c.vars)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
  const broken = c.runs.filter((r) => !r.record.report);
  for (const r of broken) {
    text.push(
      `  ${runLabel(r)}: exit ${r.record.exit_code ?? r.record.signal}, ${r.record.error}: counted as a failed run`,
    );
  }
  for (const v of c.cases) {
    text.push(`${v.status.padEnd(12)} ${showPath(v.name)}  [${v.key}]`);
    text.push(`    ${v.note}`);
    if (v.freeze_candidate) {
      text.push('    review it, set OWNER, then add it yourself:');
      text.push(`      ${v.freeze_candidate.command}`);
    }
  }
  const counts = (['stable_pass', 'stable_fail', 'flicker'] as const).map(
    (s) => `${c.cases.filter((v) => v.status === s).length} ${s}`,
  );
  text.push(
    `replay: ${counts.join(', ')}; ${counted(c.cases.filter((v) => v.freeze_candidate).length, 'freeze candidate')}; the ledger was not touched`,
  );
  const github = [
    ...failing.map((v) =>
      annotation(
        'error',
        `patchwarden replay: ${v.action === 'unpinned_entropy' ? 'unpinned entropy' : 'stable_fail'}`,
        `${v.name} [${v.key}]: ${v.note}`,
      ),
    ),
    ...c.cases
      .filter((v) => v.freeze_candidate)
      .map((v) =>
        annotation(
          'notice',
          'patchwarden replay: freeze candidate',
          `${v.name} [${v.key}]: ${v.freeze_candidate!.command}`,
        ),
      ),
  ];
  return {
    ok: failing.length === 0,
    json: {
      seed: c.seed,
      env_class: c.envClass,
      ci: c.ci ?? null,
      ...(c.vars && { env: c.vars }),
      runs: c.runs.map((r) => ({
        ...(r.source !== undefined && { source: r.source }),
        run: r.record.run,
        exit_code: r.record.exit_code,
        signal: r.record.signal,
        timed_out: r.record.timed_out,
        report: r.record.report,
        ...(r.record.error && { error: r.record.error }),
        elapsed_ms: r.record.elapsed_ms,
      })),
      cases: c.cases,
    },
    text,
    github,
  };
}
