// `revert-check --merge`: the two runs of a revert check put together from
// the parts a CI matrix wrote (shard.ts), judged as if they had run on one
// machine. The merge refuses, naming what is wrong, unless the parts agree on
// what they ran, each side's shards are all there exactly once, and every
// registered invariant has its cases from exactly one shard of each side: a
// case judged from two shards, or from none while a shard is missing, would
// be a verdict no single run could give.
import { readFileSync } from 'node:fs';
import { CannotJudge } from '../common/errors.js';
import { showPath } from '../common/text.js';
import type { InvariantResult, Mapping } from './mapping.js';
import type { Side } from './revert.js';
import type { PropertyRun } from './run.js';
import { macMatches, PART_VERSION, parseShard, type Part } from './shard.js';
import { weakestMode } from './sealed/env.js';

export interface MergedParts {
  base: string;
  head: string;
  command: string;
  env: Record<string, string>;
  /** The verdict every part gave before any run, when they settled without one. */
  settled: { status: string; reason: string } | null;
  runs: Record<Side, PropertyRun>;
  /** Whether every part's MAC was checked under the key. */
  verified: boolean;
}

const FIX = 'run every part of the matrix again from the same workflow run, then the merge job on all of its files';

function refuse(what: string): never {
  throw new CannotJudge(`revert-check --merge: ${what}; ${FIX}`);
}

/** Reads each part file; a file that is not a part is named. */
export function readParts(files: string[]): { file: string; part: Part }[] {
  if (!files.length) refuse('no part files were given');
  return files.map((file) => {
    let part: Part;
    try {
      part = JSON.parse(readFileSync(file, 'utf8')) as Part;
    } catch (err) {
      return refuse(`${showPath(file)} cannot be read as a part: ${(err as Error).message}`);
    }
    if (!part || typeof part !== 'object' || part.patchwarden_part !== PART_VERSION)
      refuse(`${showPath(file)} is not a revert-check part of version ${PART_VERSION}`);
    if ((part.side !== 'head' && part.side !== 'base') || typeof part.shard !== 'string')
      refuse(`${showPath(file)} names no side and shard`);
    return { file, part };
  });
}

/** The fields every part must share, each compared as JSON. */
const SHARED: (keyof Part)[] = ['judge', 'base', 'head', 'command', 'seed', 'env', 'runtime'];

/** The parts put together: refused unless they form one complete check. */
export function mergeParts(parts: { file: string; part: Part }[], key: string | undefined): MergedParts {
  if (key !== undefined)
    for (const { file, part } of parts)
      if (!macMatches(key, part))
        refuse(
          `${showPath(file)} does not carry a valid HMAC under PATCHWARDEN_SEED_KEY: it was changed after its job wrote it, or written without the key`,
        );
  const [first] = parts;
  for (const field of SHARED)
    for (const { file, part } of parts)
      if (JSON.stringify(part[field]) !== JSON.stringify(first.part[field]))
        refuse(
          `the parts disagree on ${field}: ${showPath(first.file)} has ${JSON.stringify(first.part[field])}, ${showPath(file)} has ${JSON.stringify(part[field])}`,
        );
  const settled = parts.every(({ part }) => part.settled) ? first.part.settled : null;
  const runs = { head: sideRun(parts, 'head'), revert: sideRun(parts, 'base') };
  return {
    base: first.part.base,
    head: first.part.head,
    command: first.part.command,
    env: first.part.env,
    settled,
    runs,
    verified: key !== undefined,
  };
}

/** One side's shards, complete and once each, merged into the run they stand for. */
function sideRun(all: { file: string; part: Part }[], side: 'head' | 'base'): PropertyRun {
  const parts = all.filter(({ part }) => part.side === side);
  if (!parts.length) refuse(`no part of side ${side} was given`);
  const n = parseShard(parts[0].part.shard).n;
  const byShard = new Map<number, string>();
  for (const { file, part } of parts) {
    const s = parseShard(part.shard);
    if (s.n !== n) refuse(`side ${side} mixes ${n} shards with ${s.n} (${showPath(file)})`);
    const seen = byShard.get(s.k);
    if (seen) refuse(`side ${side} has shard ${part.shard} twice: ${showPath(seen)} and ${showPath(file)}`);
    byShard.set(s.k, file);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((k) => !byShard.has(k));
  if (missing.length) refuse(`side ${side} lacks shard ${missing.map((k) => `${k}/${n}`).join(', ')}`);
  const problems = parts.flatMap(({ part }) =>
    part.run === null
      ? [`shard ${part.shard} settled before any run (${part.settled?.status ?? 'no verdict'})`]
      : part.run.problem
        ? [`shard ${part.shard}: ${part.run.problem}`]
        : [],
  );
  const output = parts
    .map(({ part }) => `--- side ${side}, shard ${part.shard} ---\n${part.run?.output ?? ''}`)
    .join('\n');
  const elapsedMs = Math.max(...parts.map(({ part }) => part.run?.elapsed_ms ?? 0));
  const code = parts.map(({ part }) => part.run?.code ?? null).find((c) => c !== 0) ?? 0;
  const sealed = weakestMode(parts.map(({ part }) => part.run?.sealed));
  if (problems.length) return { mapping: null, problem: problems.join('; '), output, code, elapsedMs, sealed };
  const mappings = parts.map(({ file, part }) => ({ file, shard: part.shard, mapping: part.run!.mapping! }));
  return { mapping: mergeMappings(side, mappings), problem: null, output, code, elapsedMs, sealed };
}

/** Each invariant from the one shard whose run had its cases; the rest of the mappings put together. */
function mergeMappings(side: string, shards: { file: string; shard: string; mapping: Mapping }[]): Mapping {
  const ids = shards[0].mapping.invariants.map((i) => i.id);
  for (const s of shards)
    if (JSON.stringify(s.mapping.invariants.map((i) => i.id)) !== JSON.stringify(ids))
      refuse(`side ${side}: ${showPath(s.file)} maps to another list of registered invariants`);
  const invariants = ids.map((id, at): InvariantResult => {
    const holding = shards.filter((s) => s.mapping.invariants[at].outcomes.length > 0);
    if (holding.length > 1)
      refuse(
        `side ${side}: invariant ${id} has cases in shards ${holding.map((s) => s.shard).join(' and ')}: an invariant's cases must come from one shard (keep them in one test file)`,
      );
    return (holding[0] ?? shards[0]).mapping.invariants[at];
  });
  const strays = new Map(shards.flatMap((s) => s.mapping.strays).map((x) => [x.name, x]));
  return {
    invariants,
    unregistered: shards.flatMap((s) => s.mapping.unregistered),
    mapped: shards.reduce((n, s) => n + s.mapping.mapped, 0),
    strays: [...strays.values()],
    outside: shards.flatMap((s) => s.mapping.outside),
    min_cases: shards[0].mapping.min_cases,
  };
}
