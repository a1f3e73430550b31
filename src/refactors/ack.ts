// Owners' acknowledgment of a refactor. A behaviour-preserving production
// change can make no property fail when it is reverted, so the revert check
// refuses it. An owner acknowledges one such diff with a row keyed by the
// digest of exactly that diff, in a guard-zone file read from the base side,
// or from head where an admitted owner-signed commit of the range changed it
// (as pending marks are read): a patch can never acknowledge itself, and any
// other diff keeps being refused.
import { createHash } from 'node:crypto';
import { isMap, isScalar, isSeq } from 'yaml';
import { readYaml } from '../common/yaml.js';
import type { Config } from '../config/schema.js';
import type { RawChange } from '../git/changes.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import type { Exemption } from '../properties/revert.js';

/** In `.patchwarden/`, which is always in the guard zone. */
export const ACK_FILE = '.patchwarden/refactors.yaml';

export interface AckRow {
  diff: string;
  owner: string;
  reason: string;
}

/** sha256 over the diff's paths, modes and blob ids, in path order: the same diff gives the same digest however it was committed. */
export function diffDigest(changes: RawChange[]): string {
  const lines = changes.map((c) => `${c.path}\0${c.oldMode} ${c.oldOid} ${c.newMode} ${c.newOid}\n`).sort();
  return createHash('sha256').update(lines.join('')).digest('hex');
}

export function parseAcks(text: string, source: string): AckRow[] {
  const y = readYaml(text, source, { failsafe: true });
  const root = y.doc.contents;
  if (!isMap(root)) return y.fail('must be a mapping with version: 1 and refactors: [...]', root);
  const version = root.get('version', true);
  if (!isScalar(version) || String(version.value) !== '1') y.fail('version: must be 1', version ?? root);
  const rows = root.get('refactors', true);
  if (rows === undefined) return [];
  if (!isSeq(rows)) return y.fail('refactors: must be a list of {diff, owner, reason}', rows);
  return rows.items.map((item: unknown) => {
    if (!isMap(item)) return y.fail('a refactor row must be a mapping of diff, owner and reason', item as never);
    const field = (k: string) => {
      const v = item.get(k, true);
      if (!isScalar(v) || !String(v.value).trim()) return y.fail(`a refactor row needs ${k}`, (v ?? item) as never);
      return String(v.value).trim();
    };
    const row = { diff: field('diff'), owner: field('owner'), reason: field('reason') };
    if (!/^[0-9a-f]{64}$/.test(row.diff))
      y.fail(
        `diff: ${JSON.stringify(row.diff)} is not a sha256 digest (the refusal prints it)`,
        item.get('diff', true) as never,
      );
    return row;
  });
}

/** The row committed at `judgeRev` (the base side) that acknowledges the production diff with this digest, if any. */
export async function acknowledgment(repo: Repo, judgeRev: string, digest: string): Promise<AckRow | null> {
  const text = await readFileAt(repo, judgeRev, ACK_FILE);
  const rows = text ? parseAcks(text.toString('utf8'), `${judgeRev.slice(0, 12)}:${ACK_FILE}`) : [];
  return rows.find((r) => r.diff === digest) ?? null;
}

/**
 * The revert check's lookup before any run: the digest of the patch's
 * src-zone changes and the row for it. The row comes from the base side, or
 * from head where `kept` holds the file (an owner-signed commit of the range,
 * admitted, changed it and no other commit did) and the range added it, so an
 * owner can acknowledge an agent's refactor in the pull request that holds
 * it. A row the merge base (`from`) already held counts only from the base:
 * one an owner has since removed there stays withdrawn on a branch forked
 * before.
 */
export async function refactorExemption(
  repo: Repo,
  config: Config,
  sides: { from: string; base: string; head: string },
  patch: RawChange[],
  kept: ReadonlySet<string>,
): Promise<Exemption> {
  const digest = diffDigest(patch);
  const added = async () =>
    kept.has(ACK_FILE) && !(await acknowledgment(repo, sides.from, digest))
      ? acknowledgment(repo, sides.head, digest)
      : null;
  return {
    digest,
    row: (await acknowledgment(repo, sides.base, digest)) ?? (await added()),
    advice: ackAdvice(digest, config.owners.signers !== null),
  };
}

/** What a refusal of this diff tells an owner to do; `signed`: owner-signed commits may share the range. */
function ackAdvice(digest: string, signed: boolean): string {
  const where = signed
    ? 'in a commit of its own signed by an owner (git commit -S), on this branch or landed before it:'
    : 'in a commit of its own, pushed and reviewed before this one:';
  return [
    'if the change preserves behaviour (a refactor), an owner can acknowledge this one diff:',
    `  add to ${ACK_FILE}, ${where}`,
    '    version: 1',
    '    refactors:',
    `      - diff: ${digest}`,
    '        owner: NAME',
    '        reason: WHY NO PROPERTY CHANGES',
  ].join('\n');
}
