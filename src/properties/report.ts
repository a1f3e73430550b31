// The states of a revert check as lines of text, the same in revert-check,
// pre-push and the gate: each invariant's state, its cases that are not
// plainly holding, the pending ones with their marks, and the marks that can go.
import type { RevertResult } from './revert.js';

const SHOWN = 20;

export function stateLines(r: RevertResult, indent = '  '): string[] {
  const lines: string[] = [];
  if (r.head_run?.cached) lines.push(`${indent}head: cached (key ${r.head_run.cached.slice(0, 12)})`);
  if (r.revert_run?.cached) lines.push(`${indent}base: cached (key ${r.revert_run.cached.slice(0, 12)})`);
  const w = Math.max(0, ...r.states.map((i) => i.id.length));
  for (const inv of r.states) {
    const counts = new Map<string, number>();
    for (const c of inv.cases) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
    const mark = inv.pending
      ? `; pending mark by ${inv.pending.owner} since ${inv.pending.since}${inv.pending.expired ? `, expired ${inv.pending.expires}` : ` (until ${inv.pending.expires})`}: ${inv.pending.reason}`
      : '';
    const build = inv.by_build
      ? ` (by build: without the production diff it does not build, missing ${inv.by_build.join(', ')})`
      : '';
    lines.push(
      `${indent}${inv.id.padEnd(w)}  ${inv.state.padEnd(9)} ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'no case'}${build}${mark}`,
    );
    const notable = inv.cases.filter((c) => c.state !== 'holds');
    for (const c of notable.slice(0, SHOWN))
      lines.push(`${indent}    ${c.state}: ${JSON.stringify(c.name)} (head ${c.head}, reverted ${c.reverted})`);
    if (notable.length > SHOWN) lines.push(`${indent}    … ${notable.length - SHOWN} more`);
  }
  if (r.neutral.length)
    lines.push(
      `${indent}skipped in both runs (neutral, listed): ${r.neutral.map((n) => JSON.stringify(n)).join(', ')}`,
    );
  if (r.found)
    lines.push(
      `${indent}found on the base under PROP_SEED=${r.found.seed}: ${r.found.invariants.join(', ')} (fail with and without the production diff, pass on head under the pinned seed; not held against this change)`,
    );
  for (const id of r.green)
    lines.push(`${indent}${id} passes now: an owner drops its pending mark in a commit of its own`);
  return lines;
}
