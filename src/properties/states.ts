// The state of each case of a registered invariant, from the two runs the
// revert check makes (head: the base plus the production diff; reverted: the
// base), and what they say together. Pure.
//
//   head \ reverted   passed      failed      skipped     missing
//   passed            holds       fixed       holds       holds
//   failed            regressed   pending     regressed   regressed
//   skipped           regressed   regressed   skipped     regressed
//   missing           regressed   regressed   regressed   -
//
// Skip is not pass: a case skipped in both runs (a platform skip) is neutral
// and listed; one that skips only on head fails its invariant, as does an
// invariant all of whose cases skip. A regression is refused always, inside
// a pending invariant too; a case failing in both runs is allowed only under
// an owner's unexpired pending mark on the registry row.
import type { CaseOutcome, InvariantResult, Outcome } from './mapping.js';
import { markExpires, type PendingMark, type Registry } from './registry.js';

export type CaseState = 'holds' | 'fixed' | 'regressed' | 'pending' | 'skipped';
export type InvariantState = CaseState | 'missing';

export interface CaseVerdict {
  name: string;
  state: CaseState;
  head: Outcome | 'missing';
  reverted: Outcome | 'missing';
}

export interface InvariantVerdict {
  id: string;
  state: InvariantState;
  cases: CaseVerdict[];
  /** The owner's mark on the registry row, with when it expires. */
  pending: (PendingMark & { expires: string; expired: boolean }) | null;
  /** Fixed by build: without the production diff its property does not build, for want of these symbols the diff adds. */
  by_build?: string[];
}

export interface Refusal {
  id: string;
  why: 'regressed' | 'unmarked' | 'expired' | 'skipped' | 'missing';
  message: string;
}

export interface Evidence {
  invariants: InvariantVerdict[];
  refusals: Refusal[];
  /** Invariants with a fixed case: the patch is described. */
  fixed: string[];
  /** Pending invariants let through by their mark, listed on every run. */
  pending: string[];
  /** Marked invariants that no longer fail: the mark can go. */
  green: string[];
  /** Cases skipped in both runs. */
  neutral: string[];
}

function caseState(head: Outcome | 'missing', reverted: Outcome | 'missing'): CaseState {
  if (head === 'passed') return reverted === 'failed' ? 'fixed' : 'holds';
  if (head === 'failed') return reverted === 'failed' ? 'pending' : 'regressed';
  if (head === 'skipped') return reverted === 'skipped' ? 'skipped' : 'regressed';
  return 'regressed';
}

function invariantState(cases: CaseVerdict[]): InvariantState {
  if (!cases.length) return 'missing';
  if (cases.some((c) => c.state === 'regressed')) return 'regressed';
  if (cases.every((c) => c.state === 'skipped')) return 'skipped';
  // Neutral skips aside, the worst of the rest decides.
  return (['pending', 'fixed'] as const).find((s) => cases.some((c) => c.state === s)) ?? 'holds';
}

/**
 * Each registered invariant's cases judged against the reverted run, or,
 * where there is no production diff (`reverted` null), against themselves:
 * head is then the base.
 */
export function judgeStates(
  head: InvariantResult[],
  reverted: InvariantResult[] | null,
  registry: Registry,
  now: Date,
  ttl: number,
): Evidence {
  const ev: Evidence = { invariants: [], refusals: [], fixed: [], pending: [], green: [], neutral: [] };
  const before = new Map((reverted ?? head).map((r) => [r.id, new Map(r.outcomes.map((o) => [o.key, o]))]));
  for (const inv of registry.invariants) {
    const onHead = head.find((r) => r.id === inv.id)?.outcomes ?? [];
    const old = before.get(inv.id) ?? new Map<string, CaseOutcome>();
    const keys = [...new Set([...onHead.map((o) => o.key), ...old.keys()])];
    const now_ = new Map(onHead.map((o) => [o.key, o]));
    const cases = keys.map((k): CaseVerdict => {
      const h = now_.get(k)?.outcome ?? 'missing';
      const r = old.get(k)?.outcome ?? 'missing';
      return { name: (now_.get(k) ?? old.get(k))!.name, state: caseState(h, r), head: h, reverted: r };
    });
    const state = invariantState(cases);
    const expires = inv.pending ? markExpires(inv.pending, ttl) : null;
    const pending = inv.pending
      ? { ...inv.pending, expires: expires!.toISOString().slice(0, 10), expired: now > expires! }
      : null;
    ev.invariants.push({ id: inv.id, state, cases, pending });
    ev.neutral.push(...cases.filter((c) => c.state === 'skipped').map((c) => c.name));
    if (cases.some((c) => c.state === 'fixed')) ev.fixed.push(inv.id);
    const named = (s: CaseState) =>
      cases
        .filter((c) => c.state === s)
        .map((c) => JSON.stringify(c.name))
        .join(', ');
    if (state === 'regressed') {
      ev.refusals.push({
        id: inv.id,
        why: 'regressed',
        message: `${inv.id} regressed: ${cases
          .filter((c) => c.state === 'regressed')
          .map(
            (c) =>
              `${JSON.stringify(c.name)} ${c.head === 'missing' ? 'is missing' : c.head === 'skipped' ? 'skips' : 'fails'} on head and ${c.reverted === 'missing' ? 'is not in' : c.reverted === 'skipped' ? 'skips in' : c.reverted === 'failed' ? 'fails in' : 'passes in'} the reverted run`,
          )
          .join('; ')}`,
      });
    } else if (state === 'missing') {
      ev.refusals.push({
        id: inv.id,
        why: 'missing',
        message: `registered invariants exercised by no test case: ${inv.id}`,
      });
    } else if (state === 'skipped') {
      ev.refusals.push({
        id: inv.id,
        why: 'skipped',
        message: `every case of ${inv.id} was skipped (${named('skipped')}): an invariant all of whose cases skip never passes`,
      });
    } else if (state === 'pending') {
      if (!pending)
        ev.refusals.push({
          id: inv.id,
          why: 'unmarked',
          message: `the base itself fails ${inv.id} (${named('pending')} fail with and without the production diff): mark it pending, reviewed, or fix it`,
        });
      else if (pending.expired)
        ev.refusals.push({
          id: inv.id,
          why: 'expired',
          message: `the pending mark on ${inv.id} (since ${pending.since}, ${pending.owner}) expired on ${pending.expires} (properties.pending_ttl): the base still fails it; an owner fixes it, or renews the mark, reviewed`,
        });
      else ev.pending.push(inv.id);
    } else if (pending) ev.green.push(inv.id);
  }
  return ev;
}

/** The registry row edit that marks `ids` pending, for an owner to commit on its own. */
export function markAdvice(registry: Registry, ids: string[], today: Date): string {
  const day = today.toISOString().slice(0, 10);
  const rows = registry.invariants.filter((i) => ids.includes(i.id));
  const file = registry.source.replace(/^[^:]*:/, '');
  return [
    `a human owner marks it pending in ${file}, in a commit of its own (reviewed, on the base branch or owner-signed in this range); the row edit:`,
    ...rows.flatMap((i) => [
      `    - id: ${i.id}${i.line ? `    # line ${i.line}` : ''}`,
      `      description: ${/^[\w .,()'/-]+$/.test(i.description) ? i.description : JSON.stringify(i.description)}`,
      `      pending: {since: ${day}, owner: NAME, reason: WHY THE BASE FAILS IT}`,
    ]),
  ].join('\n');
}

/** Whether the invariant's registry row holds an unexpired pending mark. */
export function pendingCovers(id: string, registry: Registry, now: Date, ttl: number): boolean {
  const mark = registry.invariants.find((i) => i.id === id)?.pending;
  return mark ? now <= markExpires(mark, ttl) : false;
}

/**
 * Cases failing on head in an invariant with no unexpired pending mark: each
 * is refused whatever the reverted run says (regressed, or failing in both
 * without a mark), so that run cannot change the verdict.
 */
export function unmarkedFailures(head: InvariantResult[], registry: Registry, now: Date, ttl: number): string[] {
  return head
    .filter((r) => !pendingCovers(r.id, registry, now, ttl))
    .flatMap((r) => r.outcomes.filter((o) => o.outcome === 'failed').map((o) => o.name));
}
