// The gate's one decision table, as text, GitHub annotations or JSON.
import { annotation, violationAnnotation, violationLines } from '../common/render.js';
import { counted } from '../common/text.js';
import type { LayerResult } from './layer.js';

export interface GateHeader {
  base: string;
  head: string;
  commits: number;
  /** Where the rules came from, e.g. `<base>:.patchwarden.yml`. */
  rules: string;
}

export function textTable(h: GateHeader, layers: LayerResult[]): string[] {
  const lines = [
    `patchwarden gate: ${h.base.slice(0, 12)}..${h.head.slice(0, 12)} (${counted(h.commits, 'commit')}), rules from ${h.rules}`,
    '',
  ];
  const w = Math.max(5, ...layers.map((l) => l.layer.length)) + 2;
  const sw = Math.max(6, ...layers.map((l) => l.status.length)) + 2;
  // Where production code ran, for the layers whose properties ran (sealed/env.ts); no column when none did.
  const column = layers.some((l) => sealedOf(l));
  const cell = (text: string) => (column ? text.padEnd(9) : '');
  lines.push(`  ${'layer'.padEnd(w)}${'status'.padEnd(sw)}${cell('sealed')}summary`);
  for (const l of layers)
    lines.push(`  ${l.layer.padEnd(w)}${l.status.padEnd(sw)}${cell(sealedOf(l) ?? '-')}${l.summary}`);
  for (const l of layers) {
    const renamed = renamedMatches(l);
    if (renamed.length)
      lines.push(
        '',
        `${l.layer}: frozen by a row written for another name:`,
        ...renamed.map((m) => `  ${m.name}  (row at line ${m.line} was written for ${m.last_name})`),
      );
    if (l.notes?.length) lines.push('', `${l.layer}:`, ...l.notes.map((n) => `  note: ${n}`));
    if (!l.violations.length) continue;
    lines.push('', `${l.layer}:`);
    for (const v of l.violations) lines.push(...violationLines(v, 'nested'));
  }
  const refused = layers.filter((l) => l.status === 'refused').map((l) => l.layer);
  const unjudged = layers.filter((l) => !l.ok && l.status !== 'refused').map((l) => l.layer);
  const verdict = [
    refused.length ? `refused (${refused.join(', ')})` : '',
    unjudged.length ? `could not judge (${unjudged.join(', ')})` : '',
  ].filter(Boolean);
  lines.push('', `patchwarden gate: ${verdict.join('; ') || 'passed'}`);
  return lines;
}

function sealedOf(l: LayerResult): string | null {
  const s = l.details?.sealed;
  return typeof s === 'string' ? s : null;
}

/** One annotation per violation, and one per layer that could not judge. */
export function githubAnnotations(layers: LayerResult[]): string[] {
  const out: string[] = [];
  for (const l of layers) {
    for (const v of l.violations) out.push(violationAnnotation(v, `patchwarden ${l.layer}: ${v.rule}`));
    if (!l.ok && !l.violations.length) out.push(annotation('error', `patchwarden ${l.layer}: ${l.status}`, l.summary));
    for (const m of renamedMatches(l)) {
      out.push(
        annotation(
          'warning',
          'patchwarden freeze rename',
          `${m.name} (${m.action}, sig ${m.sig}) matched the row at line ${m.line}, written for ${m.last_name}`,
        ),
      );
    }
  }
  return out;
}

interface RenamedMatch {
  sig: string;
  name: string;
  action: string;
  line: number;
  last_name: string;
}

/** The freeze matches of the suite layer whose row names another test: a freeze is shown, never applied quietly. */
function renamedMatches(l: LayerResult): RenamedMatch[] {
  const failures = (l.details?.failures ?? []) as {
    sig: string;
    name: string;
    action: string;
    rename: boolean;
    row?: { line: number; last_name: string | null };
  }[];
  return failures
    .filter((f) => f.rename && f.row?.last_name)
    .map((f) => ({ sig: f.sig, name: f.name, action: f.action, line: f.row!.line, last_name: f.row!.last_name! }));
}

export function jsonLayers(layers: LayerResult[]): Record<string, unknown>[] {
  return layers.map((l) => ({
    layer: l.layer,
    ok: l.ok,
    status: l.status,
    summary: l.summary,
    violations: l.violations,
    ...(l.details ? { details: l.details } : {}),
    ...(l.notes?.length ? { notes: l.notes } : {}),
  }));
}
