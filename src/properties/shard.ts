// One part of a revert check split over a CI matrix: one side (head, or the
// production diff reverted), or one shard of it, run by `revert-check --side
// S --shard K/N --out FILE` and written as data for `revert-check --merge`
// (merge.ts). A part records what it ran (base, head, command, seed, pinned
// environment, the judge's version and runtime) so the merge can refuse parts
// that do not belong together, and, where PATCHWARDEN_SEED_KEY is set, an
// HMAC over all of it, so a part edited after its job cannot pass a merge
// that holds the key.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { UsageError } from '../common/errors.js';
import { VERSION } from '../common/version.js';
import type { Config } from '../config/schema.js';
import { runEnv, SEED_VARIABLE } from '../runner/env.js';
import type { Mapping } from './mapping.js';
import type { SealedMode } from './sealed/env.js';
import type { RevertResult, Side } from './revert.js';
import { propertyCommand, type PropertyRun } from './run.js';

export const PART_VERSION = 1;

/** A side as parts and the command line name it: `base` is the run with the production diff reverted. */
export type PartSide = 'head' | 'base';

export interface Part {
  patchwarden_part: number;
  judge: string;
  side: PartSide;
  /** K/N. */
  shard: string;
  base: string;
  head: string;
  command: string;
  /** PROP_SEED as the run got it. */
  seed: string | null;
  /** The pinned variables (runner.env) the run got. */
  env: Record<string, string>;
  runtime: { node: string; platform: string; arch: string };
  /** The verdict when the check settled before any run (no production change, an owner's row, same syntax trees). */
  settled: { status: string; reason: string } | null;
  run: {
    problem: string | null;
    code: number | null;
    elapsed_ms: number;
    output: string;
    mapping: Mapping | null;
    /** Where production code ran (sealed/env.ts). */
    sealed: SealedMode;
  } | null;
  /** HMAC-SHA256 under PATCHWARDEN_SEED_KEY of the part without this field, hex; null without a key. */
  mac: string | null;
}

/** What a part keeps of the command's output: its end, where runners put the failures. */
const OUTPUT_KEEP = 64 * 1024;

/** K/N with 1 ≤ K ≤ N. */
export function parseShard(text: string): { k: number; n: number } {
  const m = /^([1-9]\d{0,3})\/([1-9]\d{0,3})$/.exec(text);
  const k = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || k > n)
    throw new UsageError(`--shard must be K/N with 1 <= K <= N (for example 2/4), not ${JSON.stringify(text)}`);
  return { k, n };
}

export function toSide(side: string): Side {
  if (side === 'head') return 'head';
  if (side === 'base') return 'revert';
  throw new UsageError(
    `--side must be head or base (the run with the production diff reverted), not ${JSON.stringify(side)}`,
  );
}

/** The part a `--side` run writes: what it ran, and what the run said. */
export function partOf(config: Config, result: RevertResult, side: Side, shard: string): Part {
  const env = runEnv(config);
  const run: PropertyRun | null | undefined = result.part;
  const part: Part = {
    patchwarden_part: PART_VERSION,
    judge: VERSION,
    side: side === 'head' ? 'head' : 'base',
    shard,
    base: result.base,
    head: result.head,
    command: propertyCommand(config),
    seed: env[SEED_VARIABLE] ?? null,
    env,
    runtime: { node: process.version, platform: process.platform, arch: process.arch },
    settled: run ? null : { status: result.status, reason: result.reason },
    run: run
      ? {
          problem: run.problem,
          code: run.code,
          elapsed_ms: run.elapsedMs,
          output: run.output.slice(-OUTPUT_KEEP),
          mapping: run.mapping,
          sealed: run.sealed,
        }
      : null,
    mac: null,
  };
  return part;
}

/** The HMAC of a part's every field but `mac`, in a fixed order. */
export function partMac(key: string, part: Part): string {
  const { mac: _, ...rest } = part;
  return createHmac('sha256', key)
    .update(`patchwarden-part\0${canonical(rest)}`)
    .digest('hex');
}

export function macMatches(key: string, part: Part): boolean {
  if (typeof part.mac !== 'string' || !/^[0-9a-f]{64}$/.test(part.mac)) return false;
  return timingSafeEqual(Buffer.from(part.mac, 'hex'), Buffer.from(partMac(key, part), 'hex'));
}

/** JSON with object keys sorted, so a part's MAC does not depend on the writer's key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Writes the part, signed when the key is there. */
export function writePart(file: string, part: Part, key: string | undefined): void {
  const signed = { ...part, mac: key ? partMac(key, part) : null };
  writeFileSync(file, `${JSON.stringify(signed, null, 1)}\n`);
}
