// Option parsing shared by every command: node's own parseArgs, strict, with
// the three options every command takes.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';
import { parseDuration } from './duration.js';

/** What every command prints. */
export const FORMATS = ['text', 'json', 'github'] as const;
/** The report files (common/reports.ts), for the commands that give rows of a verdict. */
export const REPORT_FORMATS = ['sarif', 'junit', 'codequality'] as const;
export type Format = (typeof FORMATS)[number] | (typeof REPORT_FORMATS)[number];

export interface Common {
  format: Format;
  config?: string;
  dir: string;
  help: boolean;
}

type Options = NonNullable<ParseArgsConfig['options']>;

const commonOptions = {
  format: { type: 'string' },
  config: { type: 'string' },
  C: { type: 'string', short: 'C' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** Parses `args` against the command's options plus the common ones; `formats` are those the command prints. */
export function parse<O extends Options>(
  args: string[],
  options: O,
  allowPositionals = true,
  formats: readonly Format[] = FORMATS,
) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...commonOptions, ...options }, strict: true, allowPositionals });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify.*$/s, ''));
  }
  const v = parsed.values as Record<string, unknown>;
  const format = (v.format ?? 'text') as Format;
  if (!formats.includes(format)) {
    throw new UsageError(
      `--format must be ${formats.slice(0, -1).join(', ')} or ${formats.at(-1)}, not ${JSON.stringify(format)}`,
    );
  }
  const common: Common = {
    format,
    config: v.config as string | undefined,
    dir: (v.C as string | undefined) ?? process.cwd(),
    help: Boolean(v.help),
  };
  return {
    common,
    values: parsed.values as {
      [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K] extends { multiple: true } ? string[] : string;
    },
    positionals: parsed.positionals,
  };
}

/** A duration option's value in milliseconds, or a usage error naming the flag. */
export function durationFlag(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === null || ms <= 0)
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not a duration such as 30m, 12h or 7d`);
  return ms;
}
