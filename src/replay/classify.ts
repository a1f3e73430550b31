// Classification over every run, pure: observations in, one verdict per key out.
//
// A run judges a key as follows:
// - the run left no report (crash, timeout, unreadable report): a failed run;
// - a case with the key failed in it: a failed run;
// - an id-keyed key (fixture, invariant) passed in it only when every one of
//   its cases ran and passed; a case that skipped there, or no case at all,
//   is a failed run ("missing": a silent skip is not a pass). A case skipped
//   in every run (a platform skip) is neutral; a key all of whose cases skip
//   never passes;
// - a signature-keyed key is absent from a run that wrote a report: a passed
//   run. Its passing runs cannot be seen directly (a pass has no signature, and
//   names are not keys), so the absence of that failure is its pass.
import type { KeyKind, Observation, RunRecord, Status } from './types.js';

export interface KeyStats {
  key: string;
  kind: KeyKind;
  name: string;
  names: string[];
  status: Status;
  runs: number;
  passes: number;
  fails: number;
  crashed: number;
  missing: number;
  /** Failure signatures seen, in order, with whether each is eligible. */
  sigs: { sig: string; eligible: boolean }[];
  fixture?: string;
  invariant?: string;
  /** The distinct project frame lists its failures showed; more than one in a flake is unpinned entropy. */
  frameSets: string[][];
  /** Its failing frames differ between runs, here or in another key failing under the same name. */
  entropy: boolean;
  /** The first counterexample a failing run printed. */
  counterexample?: unknown;
}

type RunOutcome = 'pass' | 'fail' | 'missing' | 'crashed';

/** What one report says of one key, its cases folded: any failure fails it, any skip (but a neutral one) keeps it from passing. */
function outcomeIn(run: RunRecord, key: string, kind: KeyKind, neutral: ReadonlySet<string>): RunOutcome {
  if (!run.report) return 'crashed';
  const seen = run.cases.filter((o) => o.key === key && !neutral.has(o.name));
  if (seen.some((o) => o.outcome === 'fail')) return 'fail';
  if (kind === 'signature') return 'pass';
  return seen.length && seen.every((o) => o.outcome === 'pass') ? 'pass' : 'missing';
}

/** Names of a key's cases that skipped in every run that reported them, and ran in none. */
function neutralNames(runs: RunRecord[], key: string): Set<string> {
  const outcomes = new Map<string, Set<string>>();
  for (const run of runs)
    for (const o of run.cases)
      if (o.key === key) outcomes.set(o.name, (outcomes.get(o.name) ?? new Set()).add(o.outcome));
  return new Set([...outcomes].filter(([, seen]) => seen.size === 1 && seen.has('skipped')).map(([name]) => name));
}

export function classify(runs: RunRecord[]): KeyStats[] {
  const byKey = new Map<
    string,
    {
      first: Observation;
      names: string[];
      name: string;
      sigs: Map<string, boolean>;
      frames: Map<string, string[]>;
      counterexample?: unknown;
    }
  >();
  // Failing frames per case name: a name is never a key, but two keys failing under one name with
  // different frames are one flake whose failure moves, which refuses (never passes) anything.
  const framesByName = new Map<string, Set<string>>();
  for (const run of runs) {
    for (const o of run.cases) {
      let entry = byKey.get(o.key);
      if (!entry) byKey.set(o.key, (entry = { first: o, names: [], name: o.name, sigs: new Map(), frames: new Map() }));
      if (!entry.names.includes(o.name)) entry.names.push(o.name);
      // The name it last failed under is the one a ledger row's last_name should carry.
      if (o.outcome === 'fail') entry.name = o.name;
      if (o.sig && !entry.sigs.has(o.sig)) entry.sigs.set(o.sig, o.eligible !== false);
      if (o.outcome === 'fail' && o.frames) {
        const k = JSON.stringify(o.frames);
        entry.frames.set(k, o.frames);
        framesByName.set(o.name, (framesByName.get(o.name) ?? new Set()).add(k));
      }
      if (o.outcome === 'fail' && o.counterexample !== undefined && entry.counterexample === undefined)
        entry.counterexample = o.counterexample;
    }
  }
  const out: KeyStats[] = [];
  for (const [key, { first, names, name, sigs, frames, counterexample }] of byKey) {
    const counts = { pass: 0, fail: 0, missing: 0, crashed: 0 };
    const neutral = neutralNames(runs, key);
    for (const run of runs) counts[outcomeIn(run, key, first.kind, neutral)]++;
    const fails = counts.fail + counts.missing + counts.crashed;
    const status: Status = fails === 0 ? 'stable_pass' : counts.pass === 0 ? 'stable_fail' : 'flicker';
    out.push({
      key,
      kind: first.kind,
      name,
      names,
      status,
      runs: runs.length,
      passes: counts.pass,
      fails,
      crashed: counts.crashed,
      missing: counts.missing,
      sigs: [...sigs].map(([sig, eligible]) => ({ sig, eligible })),
      ...(first.fixture && { fixture: first.fixture }),
      ...(first.invariant && { invariant: first.invariant }),
      frameSets: [...frames.values()],
      entropy: frames.size > 1 || names.some((n) => (framesByName.get(n)?.size ?? 0) > 1),
      ...(counterexample !== undefined && { counterexample }),
    });
  }
  return out;
}
