// Printing a verdict: one JSON object on stdout, plain text, or GitHub
// annotations (each violation rendered by render.ts). Progress and errors go
// to stderr.
import type { Format } from './args.js';
import { violationAnnotation, violationLines } from './render.js';
import type { Violation } from './verdict.js';

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

/** A verdict of rule violations as an outcome: each rendered by common/render.ts, `passLine` when there is none. */
export function violationsOutcome(
  violations: Violation[],
  extra: Record<string, unknown> = {},
  passLine = 'patchwarden: ok',
): Outcome {
  const text = violations.length ? violations.flatMap((v) => violationLines(v, 'line')) : [passLine];
  const github = violations.map((v) => violationAnnotation(v, `patchwarden ${v.rule}`));
  return { ok: violations.length === 0, json: { ...extra, violations }, text, github };
}
