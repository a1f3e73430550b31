// A scratch proposal: what `patchwarden scratch` saw of a branch, for an
// owner to review and `patchwarden promote` to commit. It is written by a job
// that ran the branch's own code, so nothing in it is trusted: promote
// commits only the files and rows it lists, each file checked against its
// git object id (and against the branch, when the branch is fetched), and the
// gate judges the result again from the base side.
import { readFileSync, writeFileSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';

/** One oracle file the branch changes, at the branch's head. */
export interface ProposedFile {
  path: string;
  /** The zone the base's config puts it in. */
  zone: string;
  status: 'added' | 'modified' | 'deleted';
  /** The git mode and blob id at the branch's head; null when deleted. */
  mode: string | null;
  oid: string | null;
  /** The bytes, base64; null when deleted. */
  content: string | null;
}

/** A registry row for an invariant the branch's tests name and the registry lacks. */
export interface ProposedInvariant {
  id: string;
  description: string;
  /** The test cases that name it. */
  cases: string[];
}

/** A freeze row a replay on the scratch tree proposes; promote writes it only once the owner fills reason and owner. */
export interface ProposedFreeze {
  sig: string;
  name: string;
  /** The replay results file (beside the proposal) the row is added from. */
  evidence: string;
  ttl: string;
  reason: string | null;
  owner: string | null;
  note: string;
}

/** What the gate's layers would say, as scratch predicts them. */
export type Predicted = Record<'properties' | 'revert' | 'suite', 'pass' | 'refused' | 'skipped'>;

/** The suite on the scratch tree: each failure, and whether the base's ledger freezes it. */
export interface SuiteSeen {
  cases: number;
  failures: { name: string; sig: string; frozen: boolean }[];
  /** Why the run cannot be believed (no report, a report that disagrees with the exit code), or null. */
  problem: string | null;
}

export interface Verdict {
  /** The base's oracles plus the production diff: what the gate says of the branch without its oracle edits. */
  trusted: { status: string; reason: string };
  /** The base plus the proposal plus the production diff: what the gate should say once it is promoted. */
  proposed: { status: string; reason: string; failing_on_revert: string[] };
  /** The suite there; null when suite.command is not set. */
  suite: SuiteSeen | null;
  gate: Predicted;
}

export interface Proposal {
  format: 'patchwarden-scratch';
  version: 1;
  base: string;
  /** --base as given (origin/main): what a new scratch run is told. */
  base_ref: string;
  head: string;
  merge_base: string;
  branch: string | null;
  made: string;
  /** The production diff judged, and its digest (the gate's and a refactor row's). */
  production: { paths: string[]; digest: string };
  files: ProposedFile[];
  registry: ProposedInvariant[];
  freeze: ProposedFreeze[];
  verdict: Verdict;
  /** The seed of the revert checks, and where it came from. */
  seed: { value: string; source: string } | null;
}

export function writeProposal(file: string, p: Proposal): void {
  writeFileSync(file, `${JSON.stringify(p, null, 2)}\n`);
}

const HEX = /^[0-9a-f]{40,64}$/;

/** A proposal file read and checked field by field; anything else stops with exit 2, naming the file. */
export function readProposal(file: string): Proposal {
  let p: Proposal;
  try {
    p = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CannotJudge(`not a scratch proposal: ${(err as Error).message}`, { file });
  }
  const bad = (what: string) => new CannotJudge(`not a scratch proposal: ${what}`, { file });
  if (p?.format !== 'patchwarden-scratch' || p.version !== 1)
    throw bad('format must be patchwarden-scratch, version 1 (written by patchwarden scratch --out)');
  for (const k of ['base', 'head', 'merge_base'] as const)
    if (!HEX.test(String(p[k]))) throw bad(`${k} is no commit id`);
  if (typeof p.base_ref !== 'string' || !p.base_ref) throw bad('base_ref is missing');
  if (!Array.isArray(p.files) || !Array.isArray(p.registry) || !Array.isArray(p.freeze))
    throw bad('files, registry and freeze must be lists');
  for (const f of p.files) {
    if (typeof f?.path !== 'string' || !f.path || f.path.startsWith('/') || f.path.split('/').includes('..'))
      throw bad(`a file path ${JSON.stringify(f?.path)} is not a path inside the repository`);
    const deleted = f.status === 'deleted';
    if (
      deleted
        ? f.oid !== null
        : !HEX.test(String(f.oid)) || typeof f.content !== 'string' || !/^1[02]0[0-7]{3}$/.test(String(f.mode))
    )
      throw bad(`${f.path}: a file needs its mode, blob id and content (or status deleted and none)`);
  }
  for (const r of p.registry)
    if (typeof r?.id !== 'string' || typeof r.description !== 'string' || !r.description.trim())
      throw bad('each registry row needs an id and a description');
  for (const z of p.freeze)
    if (typeof z?.sig !== 'string' || typeof z.evidence !== 'string' || typeof z.ttl !== 'string')
      throw bad('each freeze row needs sig, evidence and ttl');
  if (typeof p.verdict?.gate !== 'object' || p.verdict.gate === null) throw bad('verdict.gate is missing');
  return p;
}
