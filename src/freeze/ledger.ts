// The freeze ledger: human-owned rows, each keyed by a failure signature, with
// an owner, a reason and an expiry. Parsing is pure (text in, rows and rule
// breaks out); the readers at the end fetch the text from git or the disk.
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isAlias, isMap, isScalar, isSeq, parseDocument, Scalar, type Document, type Node, type YAMLMap } from 'yaml';
import { readYaml } from '../common/yaml.js';
import { isFixtureId } from '../fixtures/id.js';
import { CannotJudge } from '../common/errors.js';
import type { Violation } from '../common/verdict.js';
import type { Config } from '../config/schema.js';
import { listIndex, listTree, readFileAt } from '../git/objects.js';
import { worktreeRoot, type Repo } from '../git/repo.js';
import { parseUtc } from './clock.js';
import { bindLedger } from './bound.js';
import { NO_FIXTURE } from './evidence.js';

export interface LedgerRow {
  sig: string;
  reason: string;
  owner: string;
  expires: Date;
  issued?: Date;
  /** Metadata for people; never part of the key. */
  last_name?: string;
  ticket?: string;
  /** Fixture id the failure was classified on; the row is void once that fixture changes. */
  fixture?: string;
  seed?: string;
  env_class?: string;
  /** Where the replay that classified it ran: the CI provider, and its run id or URL. */
  ci?: string;
  run?: string;
  /** The sha256 of the replay results file the row was added from (freeze/evidence/<sha256>.json, bound.ts). */
  evidence?: string;
  /** The replay's run count, and how many of those runs failed with the row's signature. */
  runs?: string;
  fails?: string;
  /** Under version 3: a row issued before the ledger was migrated, judged as a version 2 row until it expires. */
  legacy?: boolean;
  /** The line the row starts on, for messages. */
  line: number;
}

export interface Ledger {
  /** Where it was read from (`path` for the working tree or the index, `REV:path`), for messages. */
  source: string;
  /** 1, 2: the stricter defaults, 3: rows bound to their replay evidence (freeze/policy.ts). */
  version: LedgerVersion;
  /** Version 3: when `freeze migrate` moved it up; rows issued by then are version 2 rows. */
  migrated?: Date;
  /** The rows that keep every rule; a broken row is in `problems` instead. */
  rows: LedgerRow[];
  /** Rule breaks, each naming its row by line (rule `ledger`). */
  problems: Violation[];
}

export type LedgerVersion = 1 | 2 | 3;
/** Reasons that name no cause: refused under version 3. */
const BARE_REASON = /^(flaky|flake|intermittent|todo)$/i;
export const ROW_KEYS = [
  'sig',
  'reason',
  'owner',
  'expires',
  'issued',
  'last_name',
  'ticket',
  'fixture',
  'seed',
  'env_class',
  'ci',
  'run',
  'runs',
  'fails',
  'evidence',
] as const;
/** Keys people reach for when they key a freeze by the test instead of the failure. */
const TEST_KEYS = ['name', 'test', 'test_name', 'testname', 'nodeid', 'node_id', 'test_id', 'testcase', 'classname'];
const SIG_FIX =
  'key the row by the failure signature that `patchwarden signatures REPORT.xml` prints; the test name may go in last_name, as metadata';

export function isExpired(row: LedgerRow, now: Date): boolean {
  return row.expires.getTime() <= now.getTime();
}

/** A duration as people write it in the config: 30d, 12h, 90m. */
export function showTtl(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}

/**
 * Reads a ledger's text. Throws CannotJudge when the text is not well-formed
 * YAML (or JSON, for a `.json` ledger), multiplies aliases, or is not version 1, 2 or 3;
 * every other rule break is a problem naming its row's line.
 */
export function parseLedger(text: string, source: string, config: Config, now: Date): Ledger {
  const json = source.endsWith('.json');
  if (json) checkJson(text, source);
  // failsafe: every scalar stays the string the human wrote (a sig of digits, a seed of 0012).
  const { doc, lineOf, fail: cannot } = readYaml(text, source, { failsafe: true, format: json ? 'JSON' : 'YAML' });
  try {
    doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    cannot(`cannot be read: ${(err as Error).message} (anchors and aliases that multiply)`);
  }
  const deref = (node: unknown): Node | null =>
    isAlias(node) ? (node.resolve(doc as Document) ?? null) : ((node as Node | null) ?? null);

  const root = deref(doc.contents);
  if (!isMap(root)) return cannot('the ledger must be a mapping with `version: 2` (or 1, 3) and `records:`', root);
  let version: Node | null | undefined;
  let records: Node | null = null;
  let migratedNode: Node | null = null;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'version') version = deref(pair.value) ?? (pair.key as Node);
    else if (key === 'records') records = deref(pair.value);
    else if (key === 'migrated') migratedNode = deref(pair.value) ?? (pair.key as Node);
    else
      cannot(
        `unknown key \`${key}\` (a ledger holds version, records and, from version 3, migrated)`,
        pair.key as Node,
      );
  }
  if (version === undefined) cannot('missing `version: 2` (or 1)', root);
  const written = stringOf(version!);
  if (written !== '1' && written !== '2' && written !== '3')
    cannot(`unknown version ${JSON.stringify(written ?? null)}; this patchwarden reads versions 1, 2 and 3`, version);
  let migrated: Date | undefined;
  if (migratedNode) {
    const m = written === '3' ? parseUtc(stringOf(migratedNode) ?? '') : null;
    if (!m) cannot('`migrated` is the ISO 8601 UTC time freeze migrate moved a version 3 ledger up', migratedNode);
    migrated = m!;
  }
  if (records !== null && stringOf(records) !== null && !isSeq(records))
    cannot('`records` must be a list of rows', records);

  const ledgerPath = config.freeze.ledger;
  const problems: Violation[] = [];
  const rows: LedgerRow[] = [];
  const seen = new Map<string, number>();
  const items = isSeq(records) ? records.items : [];
  for (const item of items) {
    const line = lineOf(item as Node) ?? lineOf(records) ?? 1;
    const refuse = (message: string, fix?: string) => {
      problems.push({
        rule: 'ledger',
        paths: [ledgerPath],
        message: `${source}:${line}: ${message}`,
        detail: [{ path: ledgerPath, note: `line ${line}` }],
        ...(fix ? { fix } : {}),
      });
    };
    const row = readRow(deref(item), line, refuse, deref, config, now);
    if (!row || (written === '3' && !boundRules(row, migrated, refuse))) continue;
    const first = seen.get(row.sig);
    if (first !== undefined) {
      refuse(`sig ${row.sig} repeats the row at line ${first}; one row per signature`, 'merge the two rows into one');
      continue;
    }
    seen.set(row.sig, line);
    rows.push(row);
  }
  return {
    source,
    version: Number(written) as LedgerVersion,
    ...(migrated && { migrated }),
    rows,
    problems,
  };
}

/**
 * Version 3: a row is added from its replay evidence (freeze add --from-replay)
 * and says a cause. A row issued by the time the ledger was migrated is a
 * version 2 row: it stays valid, under the version 2 rules, until it expires.
 */
function boundRules(
  row: LedgerRow,
  migrated: Date | undefined,
  refuse: (message: string, fix?: string) => void,
): boolean {
  if (migrated && row.issued && row.issued.getTime() < migrated.getTime() && !row.evidence) {
    row.legacy = true;
    return true;
  }
  let ok = true;
  if (!row.evidence) {
    ok = false;
    refuse(
      `the row for sig ${row.sig} names no replay evidence: a version 3 row is added from the file replay --out wrote`,
      'replay the failure with --out FILE, then have its owner run the freeze add --from-replay line replay prints',
    );
  }
  if (BARE_REASON.test(row.reason.replace(/[\s.:!-]/g, ''))) {
    ok = false;
    refuse(
      `the row for sig ${row.sig} gives ${JSON.stringify(row.reason)} as its reason, which names no cause`,
      'say what makes it fail (the clock, a race, an outside service), not that it is flaky',
    );
  }
  return ok;
}

/** A `.json` ledger must be JSON, not merely YAML that happens to parse. */
function checkJson(text: string, source: string) {
  try {
    JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    // V8 gives a position for some errors only; the YAML parser places the rest.
    const pos = /position (\d+)/.exec(message);
    const at = pos ? Number(pos[1]) : parseDocument(text, { prettyErrors: false }).errors[0]?.pos[0];
    const line = at === undefined ? undefined : text.slice(0, at).split('\n').length;
    throw new CannotJudge(
      `not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '').replace(/, (\.\.\.)?".*$/, '')}`,
      { file: source, line },
    );
  }
}

/** The text of a scalar; null for an empty value, `~` or `null`, or a node that is not a scalar. */
function stringOf(node: Node | null): string | null {
  if (!isScalar(node)) return null;
  const value = String(node.value ?? '');
  if (node.type === Scalar.PLAIN && /^(|~|null|Null|NULL)$/.test(value)) return null;
  return value;
}

/** A row's keys as read: each known key's text (trimmed, empty left out), and what cannot be. */
interface RowFields {
  text: (key: string) => string | undefined;
  /** Absent or empty; a misshapen value has its own message already. */
  missing: (key: string) => boolean;
  /** Keys that name a test (`nodeid`, `test`): metadata at most, never a key. */
  testKeys: string[];
  hasLastName: boolean;
}

function readRow(
  node: Node | null,
  line: number,
  refuse: (message: string, fix?: string) => void,
  deref: (n: unknown) => Node | null,
  config: Config,
  now: Date,
): LedgerRow | null {
  if (!isMap(node)) {
    refuse('a row must be a mapping with sig, reason, owner and expires');
    return null;
  }
  let broken = false;
  const fail = (message: string, fix?: string) => {
    broken = true;
    refuse(message, fix);
  };
  const f = rowFields(node, deref, fail);
  const { text, missing } = f;
  const sig = checkSig(f, config.signature.length, fail);
  const reason = text('reason');
  if (missing('reason')) fail('the row has no reason', 'say why the failure is tolerated for now');
  const owner = text('owner');
  if (missing('owner')) fail('the row has no owner', 'name the person or team who answers for it');
  const { expires, issued } = checkTimes(f, config.freeze.max_ttl, now, fail);
  checkEvidence(f, fail);
  if (broken || !sig || !reason || !owner || !expires) return null;
  const row: LedgerRow = { sig, reason, owner, expires, line };
  if (issued) row.issued = issued;
  for (const k of OPTIONAL_KEYS) {
    const v = text(k);
    if (v !== undefined) (row as unknown as Record<string, string>)[k] = v;
  }
  return row;
}

/** The keys a row may carry beside sig, reason, owner, expires and issued. */
const OPTIONAL_KEYS = ['last_name', 'ticket', 'fixture', 'seed', 'env_class', 'ci', 'run', 'runs', 'fails', 'evidence'];

function rowFields(node: YAMLMap, deref: (n: unknown) => Node | null, fail: (message: string) => void): RowFields {
  const values = new Map<string, Node | null>();
  const testKeys: string[] = [];
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if ((ROW_KEYS as readonly string[]).includes(key)) values.set(key, deref(pair.value));
    else if (TEST_KEYS.includes(key)) testKeys.push(key);
    else fail(`unknown key \`${key}\` in the row (known: ${ROW_KEYS.join(', ')})`);
  }
  const fields = new Map<string, string>();
  const misshapen = new Set<string>();
  for (const [key, v] of values) {
    const s = stringOf(v);
    if (v !== null && !isScalar(v)) {
      misshapen.add(key);
      fail(`\`${key}\` must be a single value, not a ${isSeq(v) ? 'list' : 'mapping'}`);
    } else if (s?.trim()) fields.set(key, s.trim());
  }
  return {
    text: (key) => fields.get(key),
    missing: (key) => !fields.has(key) && !misshapen.has(key),
    testKeys,
    hasLastName: values.has('last_name'),
  };
}

/** The row's sig: a failure signature of `signature.length` lowercase hex digits, never a test's name. */
function checkSig(f: RowFields, length: number, fail: (message: string, fix?: string) => void): string | undefined {
  const sig = f.text('sig');
  if (f.missing('sig')) {
    const byName = [...f.testKeys, ...(f.hasLastName ? ['last_name'] : [])];
    if (byName.length)
      fail(
        `the row is keyed by a test name or node id alone (\`${byName[0]}\`) and has no sig; a rename would lift it`,
        SIG_FIX,
      );
    else fail('the row has no sig', SIG_FIX);
  } else if (sig !== undefined && looksLikeTestId(sig)) {
    fail(`sig ${JSON.stringify(sig)} is a test name or node id, not a failure signature`, SIG_FIX);
  } else if (sig !== undefined && !new RegExp(`^[0-9a-f]{${length}}$`).test(sig)) {
    const why =
      /^[0-9a-fA-F]+$/.test(sig) && sig.length === length
        ? 'must be lowercase'
        : `must be ${length} lowercase hex digits (signature.length)`;
    fail(`sig ${JSON.stringify(sig)} ${why}`, SIG_FIX);
  }
  if (sig !== undefined && f.testKeys.length)
    fail(`\`${f.testKeys[0]}\` is not a ledger key: a test name is metadata only (write it as last_name)`);
  return sig;
}

/** `expires` (required) and `issued`: UTC times, no further apart or away from now than freeze.max_ttl. */
function checkTimes(
  f: RowFields,
  max: number,
  now: Date,
  fail: (message: string, fix?: string) => void,
): { expires?: Date; issued?: Date } {
  const time = (key: 'expires' | 'issued'): Date | undefined => {
    const s = f.text(key);
    if (s === undefined) return undefined;
    const d = parseUtc(s);
    if (!d) fail(`${key} ${JSON.stringify(s)} is not an ISO 8601 UTC time such as 2026-12-09T00:00:00Z`);
    return d ?? undefined;
  };
  const expires = time('expires');
  if (f.missing('expires'))
    fail('the row has no expires; every freeze ends', 'add expires: an ISO 8601 UTC time at most freeze.max_ttl away');
  const issued = time('issued');
  const shorten = 'shorten the freeze, or raise freeze.max_ttl in the config';
  if (expires && issued) {
    if (expires.getTime() < issued.getTime()) fail('expires is before issued');
    else if (expires.getTime() - issued.getTime() > max)
      fail(`expires is further than freeze.max_ttl (${showTtl(max)}) from issued`, shorten);
  }
  if (expires && expires.getTime() - now.getTime() > max)
    fail(`expires is further than freeze.max_ttl (${showTtl(max)}) from now`, shorten);
  return { expires, issued };
}

/** The fixture, evidence and run counts a replay-bound row names, each in its form. */
function checkEvidence(f: RowFields, fail: (message: string, fix?: string) => void) {
  const fixture = f.text('fixture');
  if (fixture !== undefined && fixture !== NO_FIXTURE && !isFixtureId(fixture))
    fail(`fixture ${JSON.stringify(fixture)} must be a fixture id (16 lowercase hex digits) or none`);
  if (fixture === NO_FIXTURE && !f.text('evidence'))
    fail(
      'fixture none is only for a flake its replay shows flickering without input, and the row names no replay evidence',
      'replay it with --out FILE, then have its owner run the freeze add --from-replay line replay prints',
    );
  const evidence = f.text('evidence');
  if (evidence !== undefined && !/^[0-9a-f]{64}$/.test(evidence))
    fail(`evidence ${JSON.stringify(evidence)} must be the sha256 of a replay results file (64 lowercase hex digits)`);
  for (const key of ['runs', 'fails'] as const) {
    const n = f.text(key);
    if (n !== undefined && !/^\d{1,6}$/.test(n)) fail(`\`${key}\` must be a whole number of runs`);
  }
}

/** Node ids (`tests/test_a.py::test_x`), parametrized, dotted or snake_case test names. */
function looksLikeTestId(sig: string): boolean {
  return /::|[/\\[\]\s._]|^test/i.test(sig);
}

/**
 * The ledger as stored at `rev` (`:` for the index); null when it has none.
 * `attest`: verify each evidence file's attestation where the config asks (the gate).
 */
export async function readLedgerAt(
  repo: Repo,
  config: Config,
  rev: string,
  now: Date,
  attest = false,
): Promise<Ledger | null> {
  const file = config.freeze.ledger;
  // The index is what the hook judges: its messages name the path alone.
  const source = rev === ':' ? file : `${rev}:${file}`;
  const entries = rev === ':' ? await listIndex(repo, file) : await listTree(repo, rev, file);
  const entry = entries.find((e) => e.path === file);
  if (!entry) return null;
  if (entry.mode === '120000' || entry.type !== 'blob')
    throw new CannotJudge('the freeze ledger must be a regular file, not a symbolic link or a folder', {
      file: source,
    });
  const blob = await readFileAt(repo, rev, file);
  if (!blob) return null;
  // Rows bound to replay evidence are judged by the evidence committed beside them, at the same revision.
  return bindLedger(
    repo,
    config,
    parseLedger(blob.toString('utf8'), source, config, now),
    { kind: 'rev', rev },
    attest,
  );
}

/** The ledger in the working tree, its absolute path, and its text (null when absent). */
export async function readWorktreeLedger(repo: Repo, config: Config): Promise<{ file: string; text: string | null }> {
  const file = path.join(worktreeRoot(repo), config.freeze.ledger);
  const shown = config.freeze.ledger;
  let stat;
  try {
    stat = await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, text: null };
    throw new CannotJudge(`cannot read the freeze ledger: ${(err as Error).message}`, { file: shown });
  }
  if (stat.isSymbolicLink() || !stat.isFile())
    throw new CannotJudge('the freeze ledger must be a regular file, not a symbolic link or a folder', { file: shown });
  try {
    return { file, text: await readFile(file, 'utf8') };
  } catch (err) {
    throw new CannotJudge(`cannot read the freeze ledger: ${(err as Error).message}`, { file: shown });
  }
}

/** A missing ledger: nothing is frozen, and the version 1 defaults hold. */
export function emptyLedger(source: string): Ledger {
  return { source, version: 1, rows: [], problems: [] };
}

/** For commands that use the rows: a ledger with broken rows cannot judge anything. */
export function soundLedger(ledger: Ledger): Ledger {
  const [first, ...rest] = ledger.problems;
  if (first)
    throw new CannotJudge(
      `the freeze ledger has ${ledger.problems.length} broken row${rest.length ? 's' : ''} (run patchwarden freeze check); first: ${first.message}`,
    );
  return ledger;
}
