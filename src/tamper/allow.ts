// `.patchwarden/tamper-allow.yaml`: hits a human reviewed and let stand. The
// file is in the guard zone (a production change cannot edit it in the same
// commit or push) and is read from the base side of what is judged.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { readYaml } from '../common/yaml.js';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { globMatcher } from '../zones/glob.js';
import { ALLOW_FILE, RULE_IDS } from '../config/tamper-ids.js';

export interface AllowRow {
  path: string;
  rule: string;
  owner: string;
  reason: string;
  /** sha256 of the trimmed line; absent: any line of the path. */
  line?: string;
  /** `source.opaque` only, and required there: the sha256 of the file's bytes. */
  sha256?: string;
  /** Where the row is, for messages. */
  where: string;
  matches: (path: string) => boolean;
}

const KEYS = ['path', 'rule', 'owner', 'reason', 'line', 'sha256'];
const SHA = /^[0-9a-f]{64}$/;

export function parseAllow(text: string, source: string, ignoreCase = false): AllowRow[] {
  const { doc, fail, lineOf } = readYaml(text, source, { failsafe: true });
  const root = doc.contents;
  if (root === null) return [];
  if (!isMap(root)) return fail('must be a mapping with `version: 1` and `allow:` rows', root);
  const version = root.get('version', true);
  if (!isScalar(version) || String(version.value) !== '1') fail('needs `version: 1`', version ?? root);
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'version' && key !== 'allow') fail(`unknown key \`${key}\` (known: version, allow)`, pair.key as Node);
  }
  const list = root.get('allow', true) as Node | undefined;
  if (list === undefined || (isScalar(list) && (list.value === null || list.value === ''))) return [];
  if (!isSeq(list)) return fail('allow: must be a list of rows', list);
  return list.items.map((item) => {
    const row = item as Node;
    if (!isMap(row)) return fail('each allow row must be a mapping with path, rule, owner and reason', row);
    const get = (k: string): string | undefined => {
      const v = row.get(k, true);
      if (v === undefined) return undefined;
      if (!isScalar(v) || typeof v.value !== 'string' || !v.value.trim())
        return fail(`${k}: must be a non-empty string`, v as Node);
      return v.value.trim();
    };
    for (const pair of row.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!KEYS.includes(key))
        fail(`unknown key \`${key}\` in an allow row (known: ${KEYS.join(', ')})`, pair.key as Node);
    }
    const need = (k: string) => get(k) ?? fail(`an allow row needs \`${k}\``, row);
    const path = need('path');
    const rule = need('rule');
    if (!(RULE_IDS as readonly string[]).includes(rule))
      fail(
        `rule: ${JSON.stringify(rule)} is not a tamper rule (known: ${RULE_IDS.join(', ')})`,
        row.get('rule', true) as Node,
      );
    const line = get('line');
    if (line !== undefined && !SHA.test(line))
      fail(
        'line: must be the sha256 of the line (64 lowercase hex digits), as `patchwarden tamper --allow-line` prints it',
        row.get('line', true) as Node,
      );
    // A file no scan can read is allowed as exactly those bytes, never as a path.
    const sha256 = get('sha256');
    if (rule === 'source.opaque') {
      if (sha256 === undefined || !SHA.test(sha256))
        fail(
          'a source.opaque row needs `sha256:`, the sha256 of the file (64 lowercase hex digits), as `patchwarden tamper --allow-line` prints it',
          row,
        );
      if (line !== undefined)
        fail('a source.opaque row pins the whole file with `sha256:`, not a `line:`', row.get('line', true) as Node);
    } else if (sha256 !== undefined)
      fail('`sha256:` pins a file for source.opaque only; other rules take `line:`', row.get('sha256', true) as Node);
    if (path.startsWith('/') || path.split('/').includes('..'))
      fail(
        `path: ${JSON.stringify(path)} must be a glob relative to the repository root, without ..`,
        row.get('path', true) as Node,
      );
    let matches: (p: string) => boolean;
    try {
      matches = globMatcher([path], { ignoreCase });
    } catch (err) {
      return fail(`path: bad glob ${JSON.stringify(path)}: ${(err as Error).message}`, row.get('path', true) as Node);
    }
    const owner = need('owner');
    const reason = need('reason');
    if (owner === 'OWNER' || reason === 'REASON')
      fail('fill in owner and reason: who reviewed this line and why it stays', row);
    return { path, rule, owner, reason, line, sha256, where: `${source}:${lineOf(row) ?? 1}`, matches };
  });
}

/** The allow rows committed at `rev` (none when the file is absent or there is no rev). */
export async function allowAt(repo: Repo, rev: string | null, ignoreCase = false): Promise<AllowRow[]> {
  if (!rev) return [];
  const blob = await readFileAt(repo, rev, ALLOW_FILE);
  return blob ? parseAllow(blob.toString('utf8'), `${rev.slice(0, 12)}:${ALLOW_FILE}`, ignoreCase) : [];
}

/** The row that lets a hit stand, if any. */
export function allowedBy(rows: AllowRow[], hit: { path: string; rule: string; digest: string }): AllowRow | undefined {
  return rows.find(
    (r) =>
      r.rule === hit.rule &&
      r.matches(hit.path) &&
      (r.sha256 !== undefined ? r.sha256 === hit.digest : r.line === undefined || r.line === hit.digest),
  );
}

/** The row a human would paste to let a hit stand; printed, never written. */
export function allowRowText(hit: { path: string; rule: string; digest: string; text: string }): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    `  # ${hit.text.replace(/[\r\n]/g, ' ')}`,
    `  - path: ${q(hit.path)}`,
    `    rule: ${hit.rule}`,
    hit.rule === 'source.opaque' ? `    sha256: ${hit.digest}` : `    line: ${hit.digest}`,
    '    owner: OWNER          # who reviewed it',
    '    reason: REASON        # why this line stays',
  ].join('\n');
}
