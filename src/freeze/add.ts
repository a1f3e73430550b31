// What `freeze add` needs beyond a hand-typed row: the ledger it writes to
// made explicitly (`freeze init`, so no version is ever chosen by default), and
// a row read from a replay results file (`--from-replay`), whose file is kept
// beside the ledger under its digest for every later reader to re-read.
import { existsSync } from 'node:fs';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Common } from '../common/args.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { shellQuote } from '../common/text.js';
import type { Config } from '../config/schema.js';
import { worktreeRoot, type Repo } from '../git/repo.js';
import { evidencePath, sha256, showEvidence } from './bound.js';
import type { RowFields } from './edit.js';
import { NO_FIXTURE } from './evidence.js';

/** The exact command that creates the ledger, for the options this command was given. */
export function initCommand(common: Common): string {
  return ['patchwarden freeze init', ...(common.config ? [`--config ${shellQuote(common.config)}`] : [])].join(' ');
}

/** `freeze add` without a ledger: exit 2, naming the command that makes one. */
export function noLedger(common: Common, config: Config): CannotJudge {
  return new CannotJudge(
    `no freeze ledger at ${config.freeze.ledger}: create it first (version 2, as init writes), then run freeze add again: ${initCommand(common)}`,
  );
}

/** The version `freeze init --version` names; 2 (what init writes) when none. */
export function ledgerVersion(given: string | undefined): 1 | 2 | 3 {
  if (given === undefined) return 2;
  if (given === '1' || given === '2' || given === '3') return Number(given) as 1 | 2 | 3;
  throw new UsageError(`--version must be 1, 2 or 3, not ${JSON.stringify(given)}`);
}

/** Flags that come from the results file under --from-replay, never typed beside it. */
export const FROM_FILE = ['fixture', 'seed', 'env-class', 'ci', 'run'] as const;

export interface FromReplay {
  /** The row's evidence fields, as the file shows them. */
  fields: RowFields;
  /** The file's bytes and where they are kept in the working tree. */
  bytes: Buffer;
  kept: string;
}

/** The evidence fields of the row for `sig`, read from the results file `replay --out` wrote. */
export async function fromReplay(file: string, sig: string, config: Config): Promise<FromReplay> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new CannotJudge(`cannot read the replay results: ${(err as NodeJS.ErrnoException).code ?? err}`, { file });
  }
  const shown = showEvidence(bytes, sig);
  if (typeof shown === 'string') throw new CannotJudge(shown, { file });
  const digest = sha256(bytes);
  const fields: RowFields = {
    ...(shown.name !== null && { last_name: shown.name }),
    // Several inputs, or none, are the judge's to refuse (bound.ts): the row says what the file shows first.
    fixture: shown.fixtures[0] ?? NO_FIXTURE,
    seed: shown.seed,
    env_class: shown.envClass,
    ...(shown.ci && { ci: shown.ci.provider, run: shown.ci.run }),
    runs: String(shown.runs),
    fails: String(shown.fails),
    evidence: digest,
  };
  return { fields, bytes, kept: evidencePath(config, digest) };
}

/** Writes the evidence file into the working tree; returns a function that removes it again if this call made it. */
export async function keepEvidence(repo: Repo, evidence: FromReplay): Promise<() => Promise<void>> {
  const abs = path.join(worktreeRoot(repo), evidence.kept);
  if (existsSync(abs)) return async () => {};
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, evidence.bytes);
  return () => unlink(abs);
}
