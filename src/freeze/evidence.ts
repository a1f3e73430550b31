// Replay evidence on a freeze row: the method's order is property, shrunk
// input pinned as a fixture, replay under a fixed seed on a remote runner,
// and only what still flickers is frozen. A row that cannot show that path
// (its fixture in the lock, its seed, a remote env class, the CI run) is a
// freeze standing in for a missing fixture.
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { voidFixtures, type FixtureSource } from '../fixtures/verify.js';
import type { Repo } from '../git/repo.js';
import type { Ledger, LedgerRow } from './ledger.js';

/** `fixture: none`: a flake its replay showed flickering under one seed with no input (timing, randomness). */
export const NO_FIXTURE = 'none';

/** The CI providers whose own variables replay reads (replay/ci.ts). */
export const CI_PROVIDERS = ['github', 'gitlab', 'buildkite', 'circleci', 'jenkins'] as const;

/** The reason replay proposes, before a human says the cause. */
const TEMPLATE = /flicker: \d+ of \d+ runs failed under seed \S+ on \w+ runners/g;

/** What `row` lacks to stand as replay evidence; empty when nothing. `voided`: fixture ids the lock does not hold. */
export function missingEvidence(row: LedgerRow, voided: Set<string>): string[] {
  const out: string[] = [];
  // fixture none is bound to its evidence file, which shows the flicker without input (bound.ts).
  if (row.fixture === NO_FIXTURE) {
    if (!row.evidence) out.push('fixture none without the replay evidence that shows a flicker without input');
  } else if (!row.fixture)
    out.push('no fixture (pin the failing input: patchwarden replay --pin, or patchwarden fixtures add)');
  else if (voided.has(row.fixture)) out.push(`fixture ${row.fixture} is not in the fixture lock with those bytes`);
  if (!row.seed) out.push('no seed');
  if (row.env_class !== 'remote')
    out.push(`env_class is ${row.env_class ?? 'missing'}, not remote (replay it on remote runners)`);
  if (!row.ci || !(CI_PROVIDERS as readonly string[]).includes(row.ci))
    out.push(
      row.ci
        ? `ci ${JSON.stringify(row.ci)} is not one of ${CI_PROVIDERS.join(', ')}`
        : 'no ci (the provider replay ran on)',
    );
  if (!row.run) out.push('no run (the CI run id or URL replay recorded)');
  if (/\bTODO\b/i.test(row.reason)) out.push('its reason still says TODO');
  else if (!row.reason.replace(TEMPLATE, '').replace(/[\s().,;:-]/g, ''))
    out.push("its reason is replay's template alone: say the cause");
  return out;
}

/** The fixture ids among `rows` that the lock at `source` does not hold. */
export async function voidedFixtures(
  repo: Repo,
  config: Config,
  rows: LedgerRow[],
  source: FixtureSource,
): Promise<Set<string>> {
  const ids = [...new Set(rows.flatMap((r) => (r.fixture && r.fixture !== NO_FIXTURE ? [r.fixture] : [])))];
  return ids.length ? voidFixtures(repo, config, ids, source) : new Set();
}

/** One rule break per row without its evidence, naming the row by line. */
export function evidenceViolations(ledger: Ledger, config: Config, voided: Set<string>): Violation[] {
  const file = config.freeze.ledger;
  return ledger.rows.flatMap((row) => {
    const missing = missingEvidence(row, voided);
    if (!missing.length) return [];
    return [
      {
        rule: 'ledger-evidence',
        paths: [file],
        message: `${ledger.source}:${row.line}: the row for sig ${row.sig} carries no replay evidence: ${missing.join('; ')}`,
        fix: 'replay the failure on a remote runner with its input pinned (patchwarden replay --pin --seed S -- COMMAND in CI), then have its owner write the row from the freeze add line replay prints',
        detail: [{ path: file, note: `line ${row.line}` }],
      },
    ];
  });
}
