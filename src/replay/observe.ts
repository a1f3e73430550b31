// From one run's test cases to keyed observations. A case is keyed by the id
// its report carries (a pinned fixture, else an invariant), and only failing
// cases without one are keyed by their failure signature: a test name is never
// a key, because a patch can rename a test at will.
import { CannotJudge } from '../common/errors.js';
import type { TestCase } from '../junit/types.js';
import { invariantIds } from '../properties/mapping.js';
import type { Signed } from '../signature/types.js';
import type { Observation } from './types.js';
import { caseCounterexample } from '../fixtures/counterexample.js';
import { isFixtureId } from '../fixtures/id.js';

/** `<property name="fixture" value="…">`: the id of the pinned input the case ran on. */
export const FIXTURE_PROPERTY = 'fixture';

/**
 * The fixture and invariant ids a case carries, checked. The invariant is the
 * one the revert check maps it to (a property, else `[invariant:ID]` in its
 * name); of several, the first keys it.
 */
export function caseIds(tc: TestCase, file: string): { fixture?: string; invariant?: string } {
  const fixture = tc.properties.find((p) => p.name === FIXTURE_PROPERTY)?.value.trim() || undefined;
  if (fixture !== undefined && !isFixtureId(fixture)) {
    throw new CannotJudge(
      `test case ${JSON.stringify(tc.name)} has fixture property ${JSON.stringify(fixture)}, which is not a fixture id (16 lowercase hex digits)`,
      { file },
    );
  }
  const [invariant] = invariantIds(tc);
  return { ...(fixture && { fixture }), ...(invariant && { invariant }) };
}

/**
 * The observations of one report. Passing and skipped cases without an id are
 * left out: there is nothing to key them by (their absence is what a pass of a
 * signature-keyed case looks like, see classify.ts).
 */
export function observeCases(cases: TestCase[], sign: (tc: TestCase) => Signed | null, file: string): Observation[] {
  const out: Observation[] = [];
  for (const tc of cases) {
    const ids = caseIds(tc, file);
    const failed = tc.status === 'failed' || tc.status === 'error';
    const signed = failed ? sign(tc) : null;
    const found = failed ? counterexampleOf(tc, file) : null;
    const failure = signed
      ? {
          sig: signed.sig,
          eligible: signed.eligible,
          frames: signed.frames,
          ...(found ? { counterexample: found.value } : {}),
        }
      : {};
    const outcome = failed ? 'fail' : tc.status === 'skipped' ? 'skipped' : 'pass';
    if (ids.fixture) {
      out.push({ key: `fixture:${ids.fixture}`, kind: 'fixture', name: tc.name, outcome, ...failure, ...ids });
    } else if (ids.invariant) {
      out.push({ key: `invariant:${ids.invariant}`, kind: 'invariant', name: tc.name, outcome, ...failure, ...ids });
    } else if (signed) {
      out.push({ key: `sig:${signed.sig}`, kind: 'signature', name: tc.name, outcome: 'fail', ...failure });
    }
  }
  return out;
}

/** The case's counterexample, for `--pin`; one that cannot be read is none here (`--pin` says so). */
function counterexampleOf(tc: TestCase, file: string) {
  try {
    return caseCounterexample(tc, file);
  } catch {
    return null;
  }
}
