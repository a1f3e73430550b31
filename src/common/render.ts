// The one rendering of rule violations for people and for GitHub: every
// command, the gate's table and the server hook print a violation through
// here. The report files CI systems read (SARIF, JUnit, Code Quality) are in
// reports.ts, over the same rows.
import { showPath } from './text.js';
import type { Violation } from './verdict.js';

/**
 * `line`: the shape of a command's own verdict, a refusal per line
 * (`patchwarden: refused [rule] ...`, the fix indented below it). `nested`:
 * under a heading, a gate layer or a pushed ref (`  [rule] ...`, `fix: ...`).
 */
export type Layout = 'line' | 'nested';

/** The text lines of one violation: what refused, each path with its zone and note, then the fix. */
export function violationLines(v: Violation, layout: Layout, subject?: string): string[] {
  const nested = layout === 'nested';
  const lines = [`${nested ? '  ' : 'patchwarden: refused '}[${v.rule}] ${whoLabel(v, subject)}${v.message}`];
  for (const d of v.detail ?? v.paths.map((path) => ({ path, zone: undefined, note: undefined }))) {
    const tags = [d.zone, d.note].filter(Boolean).join(', ');
    lines.push(`${nested ? '      ' : '    '}${showPath(d.path)}${tags ? `  (${tags})` : ''}`);
  }
  if (v.fix) lines.push(...v.fix.split('\n').map((l, i) => (nested ? `    ${i ? '' : 'fix: '}${l}` : `  ${l}`)));
  return lines;
}

/** `commit 0123456789ab "subject": `, or nothing for a violation of no one commit. */
function whoLabel(v: Violation, subject?: string): string {
  if (!v.commit) return '';
  const s = subject && ` ${JSON.stringify(subject.length > 60 ? subject.slice(0, 57) + '...' : subject)}`;
  return `commit ${v.commit.slice(0, 12)}${s || ''}: `;
}

/** One `::error` workflow command for a violation, on its first path, naming every path. */
export function violationAnnotation(v: Violation, title: string): string {
  const more = v.paths.length > 1 ? ` (${v.paths.length} paths: ${v.paths.join(', ')})` : '';
  return annotation('error', title, whoLabel(v) + v.message + more, v.paths[0]);
}

/** A GitHub workflow command (`::error title=...::message`), on a file when one is given. */
export function annotation(
  level: 'error' | 'warning' | 'notice',
  title: string,
  message: string,
  file?: string,
): string {
  const props = [...(file ? [`file=${githubEscape(file, true)}`] : []), `title=${githubEscape(title, true)}`];
  return `::${level} ${props.join(',')}::${githubEscape(message)}`;
}

function githubEscape(s: string, property = false): string {
  let out = s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}
