// What a JUnit XML report holds, as every runner writes it, read once.

/** One `<failure>`, `<error>` or Surefire rerun/flaky element. */
export interface FailureRecord {
  /** failure | error | flakyFailure | flakyError | rerunFailure | rerunError */
  tag: string;
  /** The `type` attribute (often the exception class), '' when absent. */
  type: string;
  /** The `message` attribute, '' when absent. */
  message: string;
  /** The element's text (usually the stack trace), '' when absent. */
  text: string;
  /** A rerun's own system-out/err where Surefire writes them. */
  systemOut?: string;
  systemErr?: string;
}

export interface TestCase {
  name: string;
  classname: string;
  /** The `file` attribute where the runner writes one. */
  file?: string;
  /** failed: a failure element; error: an error element; skipped; passed. */
  status: 'passed' | 'failed' | 'error' | 'skipped';
  /** The `type` of a skipped case's `<skipped>` element (pytest: `pytest.skip` or `pytest.xfail`). */
  skipType?: string;
  /** The failure/error elements, primary first; reruns and flaky runs after. */
  failures: FailureRecord[];
  /** `<properties><property name value>` of the case, in order (names may repeat). */
  properties: { name: string; value: string }[];
  systemOut: string;
  systemErr: string;
  /** Names of the enclosing testsuite elements, outermost first. */
  suites: string[];
  /** True for a suite-level failure/error (no testcase element), kept as a case of its own. */
  suiteLevel?: boolean;
}

export interface Report {
  /** The path it was read from, as given. */
  file: string;
  cases: TestCase[];
}
