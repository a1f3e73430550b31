// A failure's signature and the parts it is made of.

export interface Signed {
  /** Lowercase hex, `signature.length` digits. */
  sig: string;
  /** Exception type, normalized (e.g. AssertionError). */
  exc: string;
  /** Assertion kind: equal, raises, approx, truthy, contains, match, type, unknown, … */
  kind: string;
  /** Project function names, innermost first. */
  frames: string[];
  /** The files of those frames, as the trace gives them (freeze.forbid reads them; never hashed). */
  files: string[];
  /** The normalized message that enters the hash. */
  message: string;
  /** The asserting expression read from the test's source, normalized; absent when the rest names the defect or it is not there. */
  expression?: string;
  /** The test case's name: metadata, never part of the key. */
  name: string;
  /** True when something in the failure names the defect: a project frame, a predicate naming more than numbers and assertion words, or the asserting expression. */
  eligible: boolean;
  /** A case that failed and then passed when Surefire reran it: judged like a failure. */
  flaky?: true;
  /** The same parts hashed by algorithm v1: recognizes a v1 ledger row so that it can be re-keyed. */
  v1?: string;
}
