// The invariant registry (`properties.invariants`): the human-owned list of
// invariant ids a property run must exercise. Malformed registries cannot
// judge anything (exit 2); range modes read it from the base side.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { readYaml } from '../common/yaml.js';
import { CannotJudge } from '../common/errors.js';
import type { Config } from '../config/schema.js';
import type { Repo } from '../git/repo.js';
import { readFileAt } from '../git/objects.js';

/** An owner's mark on a registry row: the base is known to fail this invariant, and may, until the mark expires. */
export interface PendingMark {
  /** YYYY-MM-DD, the day the owner marked it. */
  since: string;
  owner: string;
  reason: string;
  /** Its line in the registry, for messages. */
  line?: number;
}

export interface Invariant {
  id: string;
  description: string;
  pending?: PendingMark;
  /** The row's line, for the edit a refusal prints. */
  line?: number;
}

export interface Registry {
  /** Where it was read from (a path or `REV:path`), for messages. */
  source: string;
  invariants: Invariant[];
}

/** An id is one token: it has to fit inside `[invariant:ID]` in a test name. */
const ID = /^[A-Za-z0-9_][A-Za-z0-9_.:/-]*$/;

export function parseRegistry(text: string, source: string): Registry {
  const { doc, lineOf, fail } = readYaml(text, source);
  const root = doc.contents;
  if (!isMap(root)) return fail('the invariant registry must be a mapping with `version: 1` and `invariants`', root);
  let version: Node | null | undefined;
  let list: Node | null | undefined;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'version') version = pair.value as Node;
    else if (key === 'invariants') list = pair.value as Node;
    else fail(`unknown key \`${key}\` (known: version, invariants)`, pair.key as Node);
  }
  if (version === undefined) fail('missing `version: 1`', root);
  if (!isScalar(version) || version.value !== 1) fail('version: this patchwarden reads registry version 1', version);
  if (!isSeq(list)) return fail('`invariants` must be a list of {id, description}', list ?? root);
  if (!list.items.length) fail('`invariants` lists no invariant; a revert check needs at least one', list);
  const seen = new Map<string, number | undefined>();
  const invariants = list.items.map((item) => {
    const node = item as Node;
    if (!isMap(node)) return fail('each invariant must be a mapping with `id` and `description`', node);
    const entry: Partial<Invariant> = { line: lineOf(node) };
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (key === 'pending') {
        entry.pending = pendingMark(pair.value as Node, fail, lineOf);
        continue;
      }
      const value = isScalar(pair.value) ? pair.value.value : undefined;
      if (key !== 'id' && key !== 'description')
        fail(`unknown key \`${key}\` in an invariant (known: id, description, pending)`, pair.key as Node);
      if (typeof value !== 'string' || !value.trim())
        fail(`${key}: must be a non-empty string`, (pair.value as Node) ?? (pair.key as Node));
      entry[key as 'id' | 'description'] = value as string;
    }
    if (!entry.id) return fail('an invariant without `id`', node);
    if (!ID.test(entry.id))
      fail(`id ${JSON.stringify(entry.id)}: ids are letters, digits and . _ - : / without spaces or brackets`, node);
    if (!entry.description) fail(`invariant ${entry.id} has no \`description\``, node);
    if (seen.has(entry.id)) fail(`invariant ${entry.id} is listed twice (first on line ${seen.get(entry.id)})`, node);
    seen.set(entry.id, lineOf(node));
    return entry as Invariant;
  });
  return { source, invariants };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `pending: {since: YYYY-MM-DD, owner: NAME, reason: TEXT}`, all three required. */
function pendingMark(
  node: Node | null,
  fail: (m: string, n?: Node | null) => never,
  lineOf: (n: Node | null | undefined) => number | undefined,
): PendingMark {
  const shape = 'pending: must be {since: YYYY-MM-DD, owner: NAME, reason: TEXT}';
  if (!isMap(node)) return fail(shape, node);
  const mark: Partial<PendingMark> = { line: lineOf(node) };
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'since' && key !== 'owner' && key !== 'reason')
      fail(`unknown key \`${key}\` in pending (known: since, owner, reason)`, pair.key as Node);
    const value = isScalar(pair.value) ? String(pair.value.value ?? '').trim() : '';
    if (!value) fail(`pending.${key}: must be a non-empty string`, (pair.value as Node) ?? (pair.key as Node));
    mark[key as 'since' | 'owner' | 'reason'] = value;
  }
  for (const k of ['since', 'owner', 'reason'] as const) if (!mark[k]) fail(`${shape}; ${k} is missing`, node);
  const m = DAY.exec(mark.since!);
  const d = m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) : null;
  if (!d || d.getUTCDate() !== +m![3] || d.getUTCMonth() !== +m![2] - 1)
    fail(`pending.since: ${JSON.stringify(mark.since)} is not a date YYYY-MM-DD`, node);
  return mark as PendingMark;
}

/** When a mark stops holding: its day plus `ttl`. */
export function markExpires(mark: PendingMark, ttl: number): Date {
  return new Date(Date.parse(`${mark.since}T00:00:00Z`) + ttl);
}

/** The registry as committed at `rev`; a missing one cannot judge. */
export async function loadRegistryAt(repo: Repo, config: Config, rev: string): Promise<Registry> {
  const file = config.properties.invariants;
  const blob = await readFileAt(repo, rev, file);
  const source = `${/^[0-9a-f]{40,64}$/.test(rev) ? rev.slice(0, 12) : rev}:${file}`;
  if (!blob)
    throw new CannotJudge(
      `no invariant registry at ${source} (properties.invariants); the properties cannot be judged without one`,
    );
  return parseRegistry(blob.toString('utf8'), source);
}
