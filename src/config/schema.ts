// The shape of `.patchwarden.yml`, its defaults, and what each key accepts.

import { RULE_IDS } from './tamper-ids.js';
import { CONFIG_FILE, ZONES, type ZoneName } from '../zones/names.js';

/** What `gate.require` may name: properties (with revert), the fixture lock, the suite judged by the ledger, containment, kernel sealing. */
export const GATE_REQUIREMENTS = ['properties', 'fixtures', 'freeze', 'contained', 'kernel'] as const;
export type GateRequirement = (typeof GATE_REQUIREMENTS)[number];

/** Bytes of production code to scan for tamper, new commits to walk, signatures to verify. */
export interface ServerCaps {
  scan_bytes: number | null;
  commits: number | null;
  signatures: number | null;
}

export interface Config {
  /** 2 puts the test harness in the guard zone (config/harness.ts); 1 leaves it free. */
  version: 1 | 2;
  /** Zones in the order they are matched, each with its globs. */
  zones: { name: ZoneName; globs: string[] }[];
  mix: { range: 'refuse' | 'allow' };
  /**
   * on_rename and require_evidence are null when not written: the ledger's
   * version decides them then (freeze/policy.ts). forbid: paths whose
   * failures may never be frozen. attestation: the gate verifies each
   * evidence file's platform attestation, signed by `signer_workflow`
   * (OWNER/REPO/.github/workflows/FILE), and refuses a row without one.
   */
  freeze: {
    ledger: string;
    max_ttl: number;
    on_rename: 'warn' | 'refuse' | null;
    require_evidence: boolean | null;
    forbid: string[];
    attestation: 'github' | null;
    signer_workflow: string | null;
  };
  /**
   * strict: the whole fixtures zone holds locked inputs only (an output-shaped
   * name anywhere in it, or a file the lock does not list, is refused).
   * forbid_except: paths an owner allows despite a `forbid` name.
   */
  fixtures: { inputs: string; lock: string; forbid: string[]; strict: boolean; forbid_except: string[] };
  /**
   * min_cases: 0 is off. pending_ttl: how long an owner's pending mark on an invariant holds.
   * sealed: where production code runs in a guarded property run (properties/sealed/): a kernel-confined worker, a guarded worker, or the property process itself.
   */
  properties: {
    command: string | null;
    invariants: string;
    timeout: number;
    min_cases: number;
    pending_ttl: number;
    sealed: 'kernel' | 'process' | 'off';
  };
  suite: { command: string | null };
  /** Layers the gate refuses to skip: a missing one is "unproven". */
  gate: { require: GateRequirement[] };
  /** The environment of every test command patchwarden runs: a value pins a variable, null leaves the caller's. */
  runner: { env: Record<string, string | null> };
  signature: { project: string[] | null; length: number };
  /**
   * require: who owes evidence for a production diff; null means by owners.signers (see evidenceRequired).
   * jobs: how many of the two runs go at once (2: head and reverted side concurrently; in-place is always 1).
   * cache: whether the reverted run's result is kept under the git directory for a later check of the same key (properties/cache.ts).
   */
  revert: {
    mode: 'worktree' | 'in-place';
    link: string[];
    require: 'agents' | 'all' | null;
    ignore_docstrings: boolean;
    jobs: number;
    cache: boolean;
  };
  /** base: the branch the revert check's diff is measured from when the pushed branch has no other upstream; null: the remote's default branch. */
  pre_push: { revert: boolean; base: string | null };
  /**
   * The server hook: deletions of other refs; non-fast-forward updates and
   * deletion of the judging branch (judging_branch); refs/replace/* updates.
   */
  pre_receive: { deletions: 'allow' | 'refuse'; judging_branch: 'protect' | 'allow'; replace_refs: 'refuse' | 'allow' };
  /** The server hook's caps on a push's cost (null: no cap); see hooks/pre-receive-cost.ts. */
  server: { caps: ServerCaps };
  /**
   * max_age: how old an owner-signed oracle commit may be to share a range
   * with production commits. required: a missing signers file is a refusal,
   * never a skipped layer. trailers: `strict` makes a credit trailer naming a
   * known coding agent mark an oracle commit as an agent's (`listed`: only
   * identities in `agents`), except the credits `assisted_by_ok` names.
   */
  owners: {
    signers: string | null;
    agents: string[];
    max_age: number;
    required: boolean;
    trailers: 'listed' | 'strict';
    assisted_by_ok: string[];
  };
  /** The tamper layer: refuse, warn or skip; rules switched off by id. */
  tamper: { mode: 'refuse' | 'warn' | 'off'; rules: { disable: string[] } };
  /** Where it was read from (a path, or `REV:path`), for messages. */
  source: string;
  /** False when no config file exists and these are the defaults. */
  present: boolean;
}

const DAY = 86_400_000;

/** The names golden files really have (expected_total.json, cart.golden.txt, Jest and approval-test files). */
const FORBID_OUTPUTS = [
  '**/expected*',
  '**/*golden*',
  '**/*.snap',
  '**/__snapshots__/**',
  '**/*.approved.*',
  '**/*.received.*',
  '**/*out*.json',
];

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
    freeze: {
      ledger: 'freeze/signatures.yaml',
      max_ttl: 30 * DAY,
      on_rename: null,
      require_evidence: null,
      forbid: [],
      attestation: null,
      signer_workflow: null,
    },
    fixtures: {
      inputs: 'fixtures/input',
      lock: 'fixtures/inputs.sha256',
      forbid: FORBID_OUTPUTS,
      strict: false,
      forbid_except: [],
    },
    properties: {
      command: null,
      invariants: 'spec/invariants.yaml',
      timeout: 10 * 60_000,
      min_cases: 0,
      pending_ttl: 90 * DAY,
      sealed: 'off',
    },
    suite: { command: null },
    gate: { require: [] },
    runner: { env: {} },
    signature: { project: null, length: 16 },
    revert: { mode: 'worktree', link: [], require: null, ignore_docstrings: false, jobs: 1, cache: true },
    pre_push: { revert: true, base: null },
    pre_receive: { deletions: 'allow', judging_branch: 'protect', replace_refs: 'refuse' },
    server: { caps: noCaps() },
    owners: { signers: null, agents: [], max_age: 14 * DAY, required: false, trailers: 'listed', assisted_by_ok: [] },
    tamper: { mode: 'refuse', rules: { disable: [] } },
    source,
    present: false,
  };
}

function noCaps(): ServerCaps {
  return { scan_bytes: null, commits: null, signatures: null };
}

/** What a key's value must be. */
export type Kind =
  | { type: 'string' }
  | { type: 'path' }
  | { type: 'branch' }
  | { type: 'command' }
  | { type: 'globs' }
  | { type: 'paths' }
  | { type: 'bool' }
  | { type: 'duration' }
  | { type: 'size' }
  | { type: 'int'; min: number; max: number }
  | { type: 'enum'; values: string[] }
  | { type: 'enums'; values: readonly string[] }
  | { type: 'env' }
  | { type: 'section'; keys: Record<string, Kind>; defaults: () => Record<string, unknown> };

/** Every key a config may hold, section by section. */
export const SCHEMA: Record<string, Record<string, Kind>> = {
  zones: Object.fromEntries(ZONES.map((z) => [z, { type: 'globs' }])),
  mix: { range: { type: 'enum', values: ['refuse', 'allow'] } },
  freeze: {
    ledger: { type: 'path' },
    max_ttl: { type: 'duration' },
    on_rename: { type: 'enum', values: ['warn', 'refuse'] },
    require_evidence: { type: 'bool' },
    forbid: { type: 'globs' },
    attestation: { type: 'enum', values: ['github'] },
    signer_workflow: { type: 'string' },
  },
  fixtures: {
    inputs: { type: 'path' },
    lock: { type: 'path' },
    forbid: { type: 'globs' },
    strict: { type: 'bool' },
    forbid_except: { type: 'paths' },
  },
  properties: {
    command: { type: 'command' },
    invariants: { type: 'path' },
    timeout: { type: 'duration' },
    min_cases: { type: 'int', min: 0, max: 1_000_000 },
    pending_ttl: { type: 'duration' },
    sealed: { type: 'enum', values: ['kernel', 'process', 'off'] },
  },
  suite: { command: { type: 'command' } },
  gate: { require: { type: 'enums', values: GATE_REQUIREMENTS } },
  runner: { env: { type: 'env' } },
  signature: { project: { type: 'globs' }, length: { type: 'int', min: 8, max: 64 } },
  revert: {
    mode: { type: 'enum', values: ['worktree', 'in-place'] },
    link: { type: 'paths' },
    require: { type: 'enum', values: ['agents', 'all'] },
    ignore_docstrings: { type: 'bool' },
    jobs: { type: 'int', min: 1, max: 2 },
    cache: { type: 'bool' },
  },
  pre_push: { revert: { type: 'bool' }, base: { type: 'branch' } },
  pre_receive: {
    deletions: { type: 'enum', values: ['allow', 'refuse'] },
    judging_branch: { type: 'enum', values: ['protect', 'allow'] },
    replace_refs: { type: 'enum', values: ['refuse', 'allow'] },
  },
  server: {
    caps: {
      type: 'section',
      keys: {
        scan_bytes: { type: 'size' },
        commits: { type: 'int', min: 1, max: 1_000_000_000 },
        signatures: { type: 'int', min: 1, max: 1_000_000_000 },
      },
      defaults: () => ({ ...noCaps() }),
    },
  },
  owners: {
    signers: { type: 'path' },
    agents: { type: 'globs' },
    max_age: { type: 'duration' },
    required: { type: 'bool' },
    trailers: { type: 'enum', values: ['listed', 'strict'] },
    assisted_by_ok: { type: 'globs' },
  },
  tamper: {
    mode: { type: 'enum', values: ['refuse', 'warn', 'off'] },
    rules: {
      type: 'section',
      keys: { disable: { type: 'enums', values: RULE_IDS } },
      defaults: () => ({ disable: [] }),
    },
  },
};

/**
 * Who owes evidence for a production diff: `agents` trusts an owner's
 * signature, so it is the default only where signatures are checked (typed
 * names prove nothing); `all` otherwise.
 */
export function evidenceRequired(config: Config): 'agents' | 'all' {
  return config.revert.require ?? (config.owners.signers !== null ? 'agents' : 'all');
}
