// A rule of the engine: one file with its id, the enforcement points it runs
// at, the facts it needs, and `judge`, which reads facts only (every git read
// is a fact, memoized in facts.ts) and returns violations. An enforcement
// point is range -> plan -> render: it builds the Facts of its range, runs
// its plan (the rules it applies, in steps) and renders what they found.
import type { Violation } from '../common/verdict.js';
import type { FactName, Facts } from './facts.js';

/** The four enforcement points, and the `check` command, which judges the index or a range as they do. */
export const POINTS = ['pre-commit', 'pre-push', 'pre-receive', 'gate', 'check'] as const;
export type Point = (typeof POINTS)[number];

export interface Rule {
  /** The rule's name (its violations carry their own rule ids). */
  id: string;
  /** Where it runs: a plan of another point that lists it is a bug. */
  points: readonly Point[];
  /** The facts it reads, started as soon as a plan that holds it starts. */
  needs: readonly FactName[];
  judge(facts: Facts): Promise<Violation[]>;
}

/**
 * A plan: steps in order, each a set of rules judged side by side. A step
 * runs only while the steps before it refused nothing: a guard file that does
 * not parse stops the rules that would read it.
 */
export type Plan = readonly (readonly Rule[])[];

/** Starts every fact a plan's rules need, so they are read while the point does other work. */
export function startPlan(facts: Facts, plan: Plan): void {
  for (const rule of plan.flat()) {
    if (!rule.points.includes(facts.point)) throw new Error(`rule ${rule.id} does not run at ${facts.point}`);
    facts.start(rule.needs);
  }
}

/** The violations a plan finds in a range. */
export async function runPlan(facts: Facts, plan: Plan): Promise<Violation[]> {
  startPlan(facts, plan);
  const out: Violation[] = [];
  for (const step of plan) {
    if (out.length) break;
    for (const found of await Promise.all(step.map((rule) => rule.judge(facts)))) out.push(...found);
  }
  return out;
}
