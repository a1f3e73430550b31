// What a replay observes in each run and what it concludes per case. The
// observations are what `--out` writes and `replay merge` reads back.
import type { CiRun } from './ci.js';

export type EnvClass = 'local' | 'remote';

/** How a case is keyed: by the id its report carries, or by its failure signature. */
export type KeyKind = 'fixture' | 'invariant' | 'signature';

/** One keyed case as one run's report showed it. */
export interface Observation {
  /** `fixture:<id>`, `invariant:<id>` or `sig:<signature>`. */
  key: string;
  kind: KeyKind;
  /** The test case's name: shown, never a key. */
  name: string;
  /** skipped only for id-keyed cases: a failure-keyed case is seen only when it fails. */
  outcome: 'pass' | 'fail' | 'skipped';
  /** Failure signature, for a failing case. */
  sig?: string;
  /** False when the failure has nothing stable to bind to. */
  eligible?: boolean;
  fixture?: string;
  invariant?: string;
  /** The failure's project frames: a flake whose frames differ between runs is unpinned entropy. */
  frames?: string[];
  /** The shrunk counterexample the failure printed (Hypothesis, fast-check), as JSON: what `--pin` writes. */
  counterexample?: unknown;
}

/** One run of the command. */
export interface RunRecord {
  /** 1-based, within its results file. */
  run: number;
  /** Exit code; null when killed by a signal. */
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** False when the run left no readable report: a failed run for every case. */
  report: boolean;
  /** Why there is no report, when there is none. */
  error?: string;
  /** The last lines of the command's output, kept for a run without a report. */
  output_tail?: string;
  elapsed_ms: number;
  cases: Observation[];
}

/** The file `replay --out` writes: every run of one runner, with its conditions. */
export interface Results {
  format: 'patchwarden-replay';
  version: 1;
  seed: string;
  env_class: EnvClass;
  command: string;
  /** A label for where it ran (the host name), for people. */
  runner: string;
  started: string;
  /** The CI run it ran in, from the provider's variables; null outside CI. */
  ci?: CiRun | null;
  /** The pinned variables every run got (runner/env.ts). */
  env?: Record<string, string>;
  /** The CI variables the run saw (ci.ts), token-free. */
  ci_vars?: Record<string, string>;
  runs: RunRecord[];
}

export type Status = 'stable_pass' | 'stable_fail' | 'flicker';

/** What the promotion table says to do with a case. */
export type Action =
  | 'fix'
  | 'drop'
  | 'freeze_candidate'
  | 'replay_remote'
  | 'investigate'
  | 'unpinned_entropy'
  | 'already_frozen';

/** A ledger row proposed for a human to review; owner is theirs to fill. */
export interface FreezeCandidate {
  sig: string;
  reason: string;
  owner: null;
  expires: string;
  issued: string;
  last_name: string;
  /** The input's fixture id; `none` on a row bound to a flicker without input. */
  fixture?: string;
  seed: number | string;
  env_class: EnvClass;
  /** Where the replay ran, when it ran in CI. */
  ci?: string;
  run?: string;
  /** The results file the row is added from (freeze add --from-replay), when replay wrote one (--out). */
  evidence?: string;
  /** The exact `patchwarden freeze add` line that writes the row. */
  command: string;
}

export interface CaseVerdict {
  key: string;
  kind: KeyKind;
  /** The name it last failed under (else last seen under): metadata only. */
  name: string;
  /** Every distinct name the key was seen under. */
  names: string[];
  status: Status;
  action: Action;
  /** One line: why this action. */
  note: string;
  /** Runs judged (every run of every results file). */
  runs: number;
  passes: number;
  fails: number;
  /** Of the fails: runs that left no report. */
  crashed: number;
  /** Of the fails: runs whose report did not run an id-keyed case (absent or skipped). */
  missing: number;
  /** Distinct failure signatures seen for it. */
  sigs: string[];
  freeze_candidate: FreezeCandidate | null;
  /** The fixture `--pin` wrote for a stable_fail, when it did. */
  pinned?: { id: string; path: string; created: boolean };
}
