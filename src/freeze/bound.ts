// Freeze rows bound to their replay evidence: the results file `replay --out`
// wrote, committed beside the ledger under its sha256 (freeze/evidence/<sha256>.json).
// Every reader re-reads the file from the side it judges and refuses a row the
// file does not bear out. The digest proves the file is the one the row was
// written from, not where it came from: that takes a platform attestation.
import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { readFileAt } from '../git/objects.js';
import { worktreeRoot, type Repo } from '../git/repo.js';
import { NO_FIXTURE } from './evidence.js';
import { attestationProblem } from './attest.js';
import type { Ledger, LedgerRow } from './ledger.js';

/** Where the evidence is read: the working tree, or a commit (`:` for the index). */
export type EvidenceSource = { kind: 'worktree' } | { kind: 'rev'; rev: string };

/** What a results file shows of one signature. */
export interface Shown {
  seed: string;
  envClass: string;
  ci: { provider: string; run: string } | null;
  /** The pinned environment the runs got. */
  env: Record<string, string> | null;
  runs: number;
  /** Runs in which a case failed with the signature. */
  fails: number;
  /** Runs with a report in which it did not fail (and its pinned case, if any, passed). */
  passes: number;
  /** The fixture ids its failing cases ran on; null for a case with none. */
  fixtures: (string | null)[];
  /** The name it last failed under. */
  name: string | null;
}

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The folder beside the ledger that holds the evidence files. */
export function evidenceFolder(config: Config): string {
  return path.posix.join(path.posix.dirname(config.freeze.ledger), 'evidence');
}

export function evidencePath(config: Config, digest: string): string {
  return path.posix.join(evidenceFolder(config), `${digest}.json`);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the results file shows of `sig`, or why it is no results file. */
export function showEvidence(bytes: Buffer, sig: string): Shown | string {
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  if (!isObject(data) || data.format !== 'patchwarden-replay' || data.version !== 1)
    return 'not a replay results file (replay --out writes one)';
  if (typeof data.seed !== 'string' || typeof data.env_class !== 'string' || !Array.isArray(data.runs))
    return 'a replay results file without its seed, env_class or runs';
  const ci =
    isObject(data.ci) && typeof data.ci.provider === 'string' && typeof data.ci.run === 'string' ? data.ci : null;
  const env = isObject(data.env) && Object.keys(data.env).length ? (data.env as Record<string, string>) : null;
  const shown: Shown = {
    seed: data.seed,
    envClass: data.env_class,
    ci: ci && { provider: ci.provider as string, run: ci.run as string },
    env,
    runs: data.runs.length,
    fails: 0,
    passes: 0,
    fixtures: [],
    name: null,
  };
  const reported: Json[][] = [];
  for (const run of data.runs) {
    if (!isObject(run) || !Array.isArray(run.cases)) return 'a run without its cases';
    const cases = run.cases.filter(isObject);
    const failing = cases.filter((c) => c.outcome === 'fail' && c.sig === sig);
    if (failing.length) shown.fails++;
    for (const c of failing) {
      const id = typeof c.fixture === 'string' ? c.fixture : null;
      if (!shown.fixtures.includes(id)) shown.fixtures.push(id);
      if (typeof c.name === 'string') shown.name = c.name;
    }
    if (run.report === true && !failing.length) reported.push(cases);
  }
  // A run passes the case when its report shows no such failure, and its pinned input's case passed.
  const [pinned] = shown.fixtures;
  shown.passes = reported.filter(
    (cases) => !pinned || cases.some((c) => c.fixture === pinned && c.outcome === 'pass'),
  ).length;
  return shown;
}

/** What `row` claims that `shown` does not bear out; empty when nothing. */
export function unborne(row: LedgerRow, shown: Shown): string[] {
  const out: string[] = [];
  if (shown.fails === 0) return [`it shows no run failing with sig ${row.sig}`];
  if (shown.passes === 0)
    out.push(`sig ${row.sig} failed in every run with a report: a failure to fix, not a flake to freeze`);
  if (row.seed !== shown.seed) out.push(`it ran under seed ${shown.seed}, the row says ${row.seed ?? 'none'}`);
  if (row.env_class !== shown.envClass)
    out.push(`it ran on ${shown.envClass} runners, the row says ${row.env_class ?? 'nothing'}`);
  if ((row.ci ?? null) !== (shown.ci?.provider ?? null) || (row.run ?? null) !== (shown.ci?.run ?? null))
    out.push(
      `it ran ${shown.ci ? `in ${shown.ci.provider} run ${shown.ci.run}` : 'outside CI'}, the row says ${row.ci ? `${row.ci} run ${row.run}` : 'none'}`,
    );
  if (!shown.env) out.push('it records no pinned environment');
  if (row.runs !== String(shown.runs) || row.fails !== String(shown.fails))
    out.push(
      `it shows ${shown.fails} of ${shown.runs} runs failing, the row says ${row.fails ?? '?'} of ${row.runs ?? '?'}`,
    );
  const inputs = shown.fixtures.map((f) => f ?? 'no input').join(', ');
  if (row.fixture === NO_FIXTURE) {
    if (shown.fixtures.some((f) => f !== null))
      out.push(`the failing case ran on input ${inputs}: fixture none is only for a flicker without input`);
  } else if (!row.fixture) out.push('the row names no fixture (the input id, or none)');
  else if (shown.fixtures.length !== 1 || shown.fixtures[0] !== row.fixture)
    out.push(`fixture ${row.fixture} is not the input of the case it freezes (the evidence shows ${inputs})`);
  return out;
}

async function readEvidence(repo: Repo, file: string, source: EvidenceSource): Promise<Buffer | null> {
  if (source.kind === 'rev') return readFileAt(repo, source.rev, file);
  const abs = path.join(worktreeRoot(repo), file);
  try {
    if (!(await lstat(abs)).isFile()) return null;
    return await readFile(abs);
  } catch {
    return null;
  }
}

/**
 * Why the row's evidence file does not bear it out; empty when it does.
 * `attest`: where the config asks for it (the gate), the file's platform
 * attestation is verified too, once everything else holds.
 */
export async function evidenceProblems(
  repo: Repo,
  config: Config,
  row: LedgerRow,
  source: EvidenceSource,
  attest = false,
): Promise<string[]> {
  const file = evidencePath(config, row.evidence!);
  const bytes = await readEvidence(repo, file, source);
  if (!bytes) return [`its evidence file ${file} is missing (commit it with the ledger)`];
  if (sha256(bytes) !== row.evidence) return [`its evidence file ${file} does not hash to its name`];
  const shown = showEvidence(bytes, row.sig);
  if (typeof shown === 'string') return [`its evidence file ${file} is ${shown}`];
  const why = unborne(row, shown).map((w) => `${file}: ${w}`);
  if (why.length || !attest || !config.freeze.attestation) return why;
  const unattested = await attestationProblem(config, bytes, file, row.evidence!);
  return unattested ? [unattested] : [];
}

const ATTEST_FIX =
  'freeze.attestation is set: a row freezes only with an evidence file its signer workflow attested. Where gh is missing,\nwithout a token or offline, the runner needs it (the message says which); else replay the failure in that workflow,\nwhich attests its --out file (actions/attest-build-provenance), and have its owner add the row from that file';

/**
 * The ledger with each row its evidence file does not bear out moved from
 * `rows` to `problems` (rule `ledger-evidence`): such a row freezes nothing.
 */
export async function bindLedger(
  repo: Repo,
  config: Config,
  ledger: Ledger,
  source: EvidenceSource,
  attest = false,
): Promise<Ledger> {
  const problems: Violation[] = [];
  const rows: LedgerRow[] = [];
  for (const row of ledger.rows) {
    const why = row.evidence ? await evidenceProblems(repo, config, row, source, attest) : [];
    if (!why.length) {
      rows.push(row);
      continue;
    }
    problems.push({
      rule: 'ledger-evidence',
      paths: [config.freeze.ledger, evidencePath(config, row.evidence!)],
      message: `${ledger.source}:${row.line}: the row for sig ${row.sig} is not borne out by its replay evidence: ${why.join('; ')}`,
      fix: why.some((w) => w.includes('gh attestation verify') || w.startsWith('freeze.attestation'))
        ? ATTEST_FIX
        : 'replay the failure with --out FILE (in CI), then have its owner run the freeze add --from-replay line replay prints',
      detail: [{ path: config.freeze.ledger, note: `line ${row.line}` }],
    });
  }
  return { ...ledger, rows, problems: [...ledger.problems, ...problems] };
}
