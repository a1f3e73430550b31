// Rendering of verdicts: one JSON object on stdout, plain text, or GitHub
// annotations. Progress and errors go to stderr.
import type { Format } from './args.js';
import type { Violation } from './verdict.js';
import { showPath } from './text.js';

export interface Outcome {
  ok: boolean;
  /** Fields of the JSON object besides `ok`. */
  json: Record<string, unknown>;
  /** Lines of the text rendering. */
  text: string[];
  /** `::error ...` lines for --format github; text is printed when absent. */
  github?: string[];
}

/** Prints the outcome in the chosen format and returns its exit code. */
export function emit(format: Format, outcome: Outcome): number {
  if (format === 'json') {
    process.stdout.write(JSON.stringify({ ok: outcome.ok, ...outcome.json }) + '\n');
  } else {
    const lines = format === 'github' && outcome.github ? [...outcome.github, ...outcome.text] : outcome.text;
    if (lines.length) process.stdout.write(lines.join('\n') + '\n');
  }
  return outcome.ok ? 0 : 1;
}

/** Escapes a value for a GitHub workflow command. */
export function githubEscape(s: string, property = false): string {
  let out = s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}

/** The common rendering of a list of rule violations. */
export function violationsOutcome(violations: Violation[], extra: Record<string, unknown> = {}, passLine = 'patchwarden: ok'): Outcome {
  const text: string[] = [];
  const github: string[] = [];
  for (const v of violations) {
    const head = v.commit ? `commit ${v.commit.slice(0, 12)}: ` : '';
    text.push(`patchwarden: refused [${v.rule}] ${head}${v.message}`);
    for (const d of v.detail ?? v.paths.map((path) => ({ path, zone: undefined, note: undefined }))) {
      const tags = [d.zone, d.note].filter(Boolean).join(', ');
      text.push(`    ${showPath(d.path)}${tags ? `  (${tags})` : ''}`);
    }
    if (v.fix) text.push(...v.fix.split('\n').map((l) => `  ${l}`));
    const props = [`title=${githubEscape(`patchwarden ${v.rule}`, true)}`];
    if (v.paths[0]) props.unshift(`file=${githubEscape(v.paths[0], true)}`);
    github.push(`::error ${props.join(',')}::${githubEscape(head + v.message)}`);
  }
  if (!violations.length) text.push(passLine);
  return { ok: violations.length === 0, json: { ...extra, violations }, text, github };
}
