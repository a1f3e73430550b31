// The tamper rules' ids: what config (tamper.rules.disable) and allow rows
// name; and where the allow rows are.
export const RULE_IDS = [
  'exit.process',
  'exit.library',
  'exit.hook',
  'framework.import',
  'env.sniff',
  'caller.read',
  'hook.replace',
  'code.swap',
  'eq.always',
  'report.write',
  'source.opaque',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export const ALLOW_FILE = '.patchwarden/tamper-allow.yaml';
