// doctor's look at what the method asks beyond the files being valid: the
// ledger's rows carry replay evidence (and what version 2 would refuse while
// the ledger is version 1), every oracle path has an owner a host enforces
// (CODEOWNERS), and no invariant stands on one literal case.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { counted } from '../common/text.js';
import { evidenceViolations, voidedFixtures } from '../freeze/evidence.js';
import { clockNow } from '../freeze/clock.js';
import { parseLedger, readWorktreeLedger } from '../freeze/ledger.js';
import { freezePolicy } from '../freeze/policy.js';
import { parseRegistry } from '../properties/registry.js';
import { headProblems } from '../properties/mapping.js';
import { runProperties } from '../properties/run.js';
import { classifierFor } from '../config/classifier.js';
import type { Repo } from '../git/repo.js';
import { ownerLines, uncovered } from './codeowners.js';
import type { Finding } from './doctor.js';

/** Rows without replay evidence: a problem where the ledger requires it, else what version 2 would refuse. */
export async function evidenceFinding(repo: Repo, config: Config): Promise<Finding[]> {
  const { text } = await readWorktreeLedger(repo, config);
  if (text === null) return [];
  const ledger = parseLedger(text, config.freeze.ledger, config, clockNow());
  if (ledger.problems.length) return [];
  const missing = evidenceViolations(
    ledger,
    config,
    await voidedFixtures(repo, config, ledger.rows, { kind: 'worktree' }),
  );
  const policy = freezePolicy(config, ledger);
  if (!missing.length)
    return [
      {
        check: 'ledger-evidence',
        ok: true,
        detail: `every row of ${config.freeze.ledger} carries its replay evidence${ledger.version === 1 ? ' (version 1: patchwarden freeze migrate sets version 2)' : ''}`,
      },
    ];
  const lines = missing.map((v) => v.detail?.[0]?.note).join(', ');
  if (policy.requireEvidence)
    return [
      {
        check: 'ledger-evidence',
        ok: false,
        detail: `${counted(missing.length, 'row')} of ${config.freeze.ledger} carry no replay evidence (${lines}), which the gate refuses; run \`patchwarden freeze migrate --check\` for what each lacks`,
      },
    ];
  return [
    {
      check: 'ledger-evidence',
      ok: true,
      warn: true,
      detail: `${counted(missing.length, 'row')} of ${config.freeze.ledger} carry no replay evidence (${lines}): ${ledger.version === 1 ? 'version 2 would refuse them' : 'kept only because freeze.require_evidence is false'}; run \`patchwarden freeze migrate --check\``,
    },
  ];
}

/** The oracle paths no CODEOWNERS rule gives an owner, with the lines that would. */
export async function codeownersFinding(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  const { file, missing } = await uncovered(repo, root, config);
  if (!missing.length) return [{ check: 'codeowners', ok: true, detail: `${file} gives every oracle path an owner` }];
  const where = file ?? 'no CODEOWNERS file';
  return [
    {
      check: 'codeowners',
      ok: true,
      warn: true,
      detail: `${where}${file ? ' gives no owner to' : ': no host requires a review of'} ${missing.map((m) => m.pattern).join(', ')}; add them with your team's handle in place of @ORG/TEAM (init refuses a placeholder): \`patchwarden init --yes --codeowners @ORG/TEAM\`, which appends:\n${ownerLines(
        missing,
        '@ORG/TEAM',
        false,
      )
        .map((l) => `    ${l}`)
        .join('\n')}`,
    },
  ];
}

/** Runs the properties once and names each invariant that ran a single case. */
export async function casesFinding(repo: Repo, root: string, config: Config): Promise<Finding[]> {
  if (!config.properties.command) return [];
  const file = path.join(root, config.properties.invariants);
  // A missing or broken registry is the registry check's finding already.
  let registry;
  try {
    registry = parseRegistry(readFileSync(file, 'utf8'), config.properties.invariants);
  } catch {
    return [];
  }
  process.stderr.write('patchwarden doctor: running the properties once to count their cases\n');
  const run = await runProperties(root, config, registry, { classify: await classifierFor(repo, config) });
  if (!run.mapping)
    return [
      { check: 'invariant-cases', ok: true, warn: true, detail: `the properties could not be counted: ${run.problem}` },
    ];
  const single = run.mapping.invariants.filter((i) => i.case_count === 1).map((i) => i.id);
  const counts = run.mapping.invariants.map((i) => `${i.id} ${i.case_count}`).join(', ');
  // A property that errors before it records its id (an import error, a health check) counts no case.
  const none = run.mapping.invariants.filter((i) => i.case_count === 0).map((i) => i.id);
  if (none.length)
    return [
      {
        check: 'invariant-cases',
        ok: true,
        warn: true,
        detail: `no case of ${none.join(', ')} ran to name its invariant, so the revert check cannot judge ${none.length === 1 ? 'it' : 'them'}: ${headProblems(run.mapping, registry).join('; ') || `cases: ${counts}`}`,
      },
    ];
  if (!single.length)
    return [{ check: 'invariant-cases', ok: true, detail: `distinct cases per invariant: ${counts}` }];
  return [
    {
      check: 'invariant-cases',
      ok: true,
      warn: true,
      detail: `one case only: ${single.join(', ')}. A property of one literal input is a fixture in disguise; a Hypothesis or fast-check property is one case drawing many inputs, which is fine. properties.min_cases: N refuses invariants with fewer (cases: ${counts})`,
    },
  ];
}
