// Reading a human-owned YAML file (config, ledger, registry) so that every
// error names the file and the line.
import { LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { CannotJudge } from './errors.js';

export interface YamlFile {
  doc: Document;
  /** The 1-based line a node starts on. */
  lineOf(node: Node | null | undefined): number | undefined;
  /** Throws CannotJudge naming the file and the node's line. */
  fail(message: string, node?: Node | null): never;
}

/**
 * Parses `text` (duplicate keys refused); the first syntax error is thrown as
 * CannotJudge. `failsafe` keeps every scalar the string a human wrote.
 */
export function readYaml(
  text: string,
  source: string,
  opts: { failsafe?: boolean; format?: 'YAML' | 'JSON' } = {},
): YamlFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: true,
    prettyErrors: false,
    ...(opts.failsafe ? { schema: 'failsafe' } : {}),
  });
  const lineOf = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : undefined);
  if (doc.errors.length) {
    const e = doc.errors[0];
    throw new CannotJudge(`not valid ${opts.format ?? 'YAML'}: ${e.message.split('\n')[0]}`, {
      file: source,
      line: lines.linePos(e.pos[0]).line,
    });
  }
  return {
    doc,
    lineOf,
    fail: (message, node) => {
      throw new CannotJudge(message, { file: source, line: lineOf(node) });
    },
  };
}
