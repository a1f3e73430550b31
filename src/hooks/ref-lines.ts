// The ref lines git writes to pre-push and pre-receive on standard input.
import { CannotJudge } from '../common/errors.js';

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export async function readHookInput(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One record per non-blank line of space-separated words, named by `fields`
 * (shown to the user as `<a b> <c d>` from camelCase); the `ids` fields must be
 * object ids. Ref names cannot hold spaces, so words split cleanly.
 */
export function parseRefLines<K extends string>(
  text: string,
  fields: readonly K[],
  ids: readonly K[],
): Record<K, string>[] {
  const shape = fields.map((f) => `<${f.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}>`).join(' ');
  const records: Record<K, string>[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const words = line.split(' ');
    const record = Object.fromEntries(fields.map((f, k) => [f, words[k]])) as Record<K, string>;
    if (words.length !== fields.length || words.some((w) => !w) || ids.some((f) => !OID.test(record[f]))) {
      throw new CannotJudge(`not a "${shape}" line: ${JSON.stringify(line.slice(0, 160))}`, {
        file: 'stdin',
        line: i + 1,
      });
    }
    records.push(record);
  });
  return records;
}
