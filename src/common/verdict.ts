// What every check returns: data in, verdict out. Commands render these.

export interface Violation {
  /** Stable rule id, e.g. `mix`, `mix-range`, `ledger`, `fixtures`. */
  rule: string;
  /** Every path the rule names. */
  paths: string[];
  /** One plain sentence saying what is wrong. */
  message: string;
  /** What to do about it, when there is something to do. */
  fix?: string;
  /** The commit judged, in commit and range modes. */
  commit?: string;
  /** Per-path details (zone, status) where the rule has them. */
  detail?: { path: string; zone?: string; note?: string }[];
}

/**
 * pass and skipped let a change through; refused is a rule saying no; error
 * is input that could not be judged, which blocks too.
 */
export type Status = 'pass' | 'refused' | 'skipped' | 'error';

/** One row of a verdict, what every output format renders: a gate layer, or a whole command's verdict. */
export interface Judged {
  layer: string;
  ok: boolean;
  status: Status;
  /** One line for a table. */
  summary: string;
  violations: Violation[];
}
