// The shape of `.patchwarden.yml`, its defaults, and what each key accepts.

import { RULE_IDS } from './tamper-ids.js';
import { CONFIG_FILE, ZONES, type ZoneName } from '../zones/names.js';

export interface Config {
  version: 1;
  /** Zones in the order they are matched, each with its globs. */
  zones: { name: ZoneName; globs: string[] }[];
  mix: { range: 'refuse' | 'allow' };
  freeze: { ledger: string; max_ttl: number; on_rename: 'warn' | 'refuse' };
  fixtures: { inputs: string; lock: string; forbid: string[] };
  properties: { command: string | null; invariants: string; timeout: number };
  suite: { command: string | null };
  signature: { project: string[] | null; length: number };
  revert: { mode: 'worktree' | 'in-place'; link: string[] };
  pre_push: { revert: boolean };
  /**
   * The server hook: deletions of other refs; non-fast-forward updates and
   * deletion of the judging branch (judging_branch); refs/replace/* updates.
   */
  pre_receive: { deletions: 'allow' | 'refuse'; judging_branch: 'protect' | 'allow'; replace_refs: 'refuse' | 'allow' };
  owners: { signers: string | null; agents: string[] };
  /** The tamper layer: refuse, warn or skip; rules switched off by id. */
  tamper: { mode: 'refuse' | 'warn' | 'off'; rules: { disable: string[] } };
  /** Where it was read from (a path, or `REV:path`), for messages. */
  source: string;
  /** False when no config file exists and these are the defaults. */
  present: boolean;
}

const DAY = 86_400_000;

/** The names golden files really have (expected_total.json, cart.golden.txt, Jest and approval-test files). */
const FORBID_OUTPUTS = ['**/expected*', '**/*golden*', '**/*.snap', '**/__snapshots__/**', '**/*.approved.*', '**/*.received.*', '**/*out*.json'];

export function defaults(source = CONFIG_FILE): Config {
  return {
    version: 1,
    zones: [
      { name: 'src', globs: ['src/**'] },
      { name: 'spec', globs: ['spec/**'] },
      { name: 'fixtures', globs: ['fixtures/**'] },
      { name: 'freeze', globs: ['freeze/**'] },
      { name: 'guard', globs: [] },
    ],
    mix: { range: 'refuse' },
    freeze: { ledger: 'freeze/signatures.yaml', max_ttl: 30 * DAY, on_rename: 'warn' },
    fixtures: { inputs: 'fixtures/input', lock: 'fixtures/inputs.sha256', forbid: FORBID_OUTPUTS },
    properties: { command: null, invariants: 'spec/invariants.yaml', timeout: 10 * 60_000 },
    suite: { command: null },
    signature: { project: null, length: 16 },
    revert: { mode: 'worktree', link: [] },
    pre_push: { revert: true },
    pre_receive: { deletions: 'allow', judging_branch: 'protect', replace_refs: 'refuse' },
    owners: { signers: null, agents: [] },
    tamper: { mode: 'refuse', rules: { disable: [] } },
    source,
    present: false,
  };
}

/** What a key's value must be. */
export type Kind =
  | { type: 'string' }
  | { type: 'path' }
  | { type: 'command' }
  | { type: 'globs' }
  | { type: 'paths' }
  | { type: 'bool' }
  | { type: 'duration' }
  | { type: 'int'; min: number; max: number }
  | { type: 'enum'; values: string[] }
  | { type: 'enums'; values: readonly string[] }
  | { type: 'section'; keys: Record<string, Kind>; defaults: () => Record<string, unknown> };

/** Every key a config may hold, section by section. */
export const SCHEMA: Record<string, Record<string, Kind>> = {
  zones: Object.fromEntries(ZONES.map((z) => [z, { type: 'globs' }])),
  mix: { range: { type: 'enum', values: ['refuse', 'allow'] } },
  freeze: { ledger: { type: 'path' }, max_ttl: { type: 'duration' }, on_rename: { type: 'enum', values: ['warn', 'refuse'] } },
  fixtures: { inputs: { type: 'path' }, lock: { type: 'path' }, forbid: { type: 'globs' } },
  properties: { command: { type: 'command' }, invariants: { type: 'path' }, timeout: { type: 'duration' } },
  suite: { command: { type: 'command' } },
  signature: { project: { type: 'globs' }, length: { type: 'int', min: 8, max: 64 } },
  revert: { mode: { type: 'enum', values: ['worktree', 'in-place'] }, link: { type: 'paths' } },
  pre_push: { revert: { type: 'bool' } },
  pre_receive: {
    deletions: { type: 'enum', values: ['allow', 'refuse'] },
    judging_branch: { type: 'enum', values: ['protect', 'allow'] },
    replace_refs: { type: 'enum', values: ['refuse', 'allow'] },
  },
  owners: { signers: { type: 'path' }, agents: { type: 'globs' } },
  tamper: {
    mode: { type: 'enum', values: ['refuse', 'warn', 'off'] },
    rules: { type: 'section', keys: { disable: { type: 'enums', values: RULE_IDS } }, defaults: () => ({ disable: [] }) },
  },
};
