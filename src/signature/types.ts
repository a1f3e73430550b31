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
  /** The normalized message that enters the hash. */
  message: string;
  /** The test case's name: metadata, never part of the key. */
  name: string;
  /** False when there is neither a project frame nor an assertion predicate. */
  eligible: boolean;
}
