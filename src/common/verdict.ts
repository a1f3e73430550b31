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
