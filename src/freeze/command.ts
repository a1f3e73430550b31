// `patchwarden freeze check | list | add | prune --expired | apply REPORT.xml...`.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { durationFlag, parse, type Common } from '../common/args.js';
import { openWithConfig } from '../config/context.js';
import { emit, violationsOutcome } from '../common/output.js';
import { annotation } from '../common/render.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { counted, shellQuote } from '../common/text.js';
import type { Config } from '../config/schema.js';
import { configBool, identity, worktreeRoot, type Repo } from '../git/repo.js';
import { voidFixtures } from '../fixtures/verify.js';
import { readReport } from '../junit/read.js';
import { isIneligibleSig, signCase, signOptions } from '../signature/sign.js';
import { checkoutSource } from '../signature/source.js';
import type { Signed } from '../signature/types.js';
import { addressOf, identityMatcher } from '../owners/identity.js';
import { applyFreezes, renameEdits, type Decision } from './apply.js';
import { bindLedger } from './bound.js';
import { evidenceViolations, voidedFixtures } from './evidence.js';
import { FROM_FILE, fromReplay, keepEvidence, ledgerVersion, noLedger } from './add.js';
import { countHits, type HitCount } from './hits.js';
import { freezePolicy, type FreezePolicy } from './policy.js';
import { clockNow, formatUtc } from './clock.js';
import { addRow, dropRows, newLedger, setFields, setVersion, type RowFields } from './edit.js';
import {
  emptyLedger,
  isExpired,
  parseLedger,
  readWorktreeLedger,
  soundLedger,
  type Ledger,
  type LedgerRow,
} from './ledger.js';

export const help = `usage: patchwarden freeze <subcommand> [options] [--format text|json|github] [--config PATH] [-C DIR]

The freeze ledger (freeze.ledger, default freeze/signatures.yaml; a .json
ledger of the same shape works too): human-owned rows keyed by failure
signature, each with an owner, a reason and an expiry.

  init [--version 1|2|3]  write an empty ledger (version 2 unless told); add
                        needs one, and never picks a version itself
  check                 the ledger's shape: exit 1 for rows that break a rule,
                        2 when the file cannot be read or parsed
  list [--hits FILE...]  the rows, expired ones marked; with --hits, how often
                        each fired, summed over the files gate --hits wrote
                        (or gate --format json printed)
  add --sig S --reason R --owner O --ttl 3d
      [--last-name N] [--ticket T] [--fixture F] [--seed S] [--env-class C]
      [--ci PROVIDER --run ID]
                        append a row (issued now, expires now + ttl); validated
                        before anything is written, comments kept; an
                        ineligible signature (first digit 0) is refused. Under
                        a version 2 ledger (freeze.require_evidence) the row
                        needs its replay evidence: a fixture in the lock, a
                        seed, --env-class remote, the CI provider and run, and
                        a reason that is not replay's template or TODO
  add --from-replay FILE --sig S --reason R --owner O --ttl 3d
                        a row bound to the results file replay --out wrote:
                        its fixture (or none, for a flicker without input),
                        seed, env class, CI run and run counts come from
                        FILE, which is kept as evidence/<sha256>.json beside
                        the ledger and re-read by every check. Version 3
                        ledgers take rows only this way
  extend --sig S --ttl 7d [--hits FILE...]
                        a row's freeze renewed: issued now, expires now + ttl;
                        with --hits, it prints how often the row fired
  prune --expired       drop the rows whose expiry has passed, comments kept
  migrate [--check]     one version up: 1 to 2 once every row carries its
                        evidence, 2 to 3 once every row says when it was
                        issued (those rows stay valid until they expire);
                        --check lists what blocks it (exit 1 when any)
  apply REPORT...       the signature gate: every failing case of the JUnit
                        or TAP reports, and every flaky one, must match an
                        unexpired row (exit 1 otherwise)

A ledger with broken rows stops list, add, extend, prune and apply with exit 2.
PATCHWARDEN_NOW=2026-12-02T00:00:00Z pins the clock (a testing aid).`;

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'check':
      return check(rest);
    case 'list':
      return list(rest);
    case 'init':
      return init(rest);
    case 'add':
      return add(rest);
    case 'extend':
      return extend(rest);
    case 'prune':
      return prune(rest);
    case 'migrate':
      return migrate(rest);
    case 'apply':
      return apply(rest);
    default:
      throw new UsageError(
        sub
          ? `unknown freeze subcommand ${JSON.stringify(sub)} (init, check, list, add, extend, prune, migrate, apply)`
          : 'freeze needs a subcommand: init, check, list, add, extend, prune, migrate or apply',
      );
  }
}

interface Opened {
  common: Common;
  repo: Repo;
  config: Config;
  now: Date;
  /** The working tree's ledger, null when there is none. */
  ledger: Ledger | null;
  text: string | null;
  file: string;
}

async function open(common: Common, sound: boolean): Promise<Opened> {
  const { repo, config } = await openWithConfig(common);
  const now = clockNow();
  const { file, text } = await readWorktreeLedger(repo, config);
  let ledger = text === null ? null : await judgeText(repo, config, text, now);
  if (ledger && sound) ledger = soundLedger(ledger);
  return { common, repo, config, now, ledger, text, file };
}

/** A ledger text from the working tree, its rows bound to the evidence files beside it. */
function judgeText(repo: Repo, config: Config, text: string, now: Date): Promise<Ledger> {
  return bindLedger(repo, config, parseLedger(text, config.freeze.ledger, config, now), { kind: 'worktree' });
}

async function check(args: string[]): Promise<number> {
  const { common } = parse(args, {}, false);
  const { repo, config, now, ledger } = await open(common, false);
  const shown = config.freeze.ledger;
  if (!ledger)
    return emit(common.format, {
      ok: true,
      json: { ledger: shown, rows: 0, expired: 0, violations: [] },
      text: [`patchwarden: no freeze ledger at ${shown}; nothing is frozen`],
    });
  const expired = ledger.rows.filter((r) => isExpired(r, now)).length;
  const evidence = await rowsWithoutEvidence(repo, config, ledger);
  const policy = freezePolicy(config, ledger);
  const pass = `patchwarden: ${shown} ok (version ${ledger.version}, ${counted(ledger.rows.length, 'row')}${expired ? `, ${expired} expired: patchwarden freeze prune --expired` : ''})`;
  const outcome = violationsOutcome(
    [...ledger.problems, ...(policy.requireEvidence ? evidence : [])],
    { ledger: shown, version: ledger.version, rows: ledger.rows.length, expired, unevidenced: evidence.length },
    pass,
  );
  if (!policy.requireEvidence && evidence.length)
    outcome.text.push(
      `patchwarden: ${counted(evidence.length, 'row')} without replay evidence, which ${ledger.version === 1 ? 'version 2 would refuse' : 'freeze.require_evidence: false lets through'}: patchwarden freeze migrate --check`,
    );
  return emit(common.format, outcome);
}

function rowJson(row: LedgerRow, now: Date) {
  const { expires, issued, ...rest } = row;
  return {
    ...rest,
    expires: formatUtc(expires),
    ...(issued ? { issued: formatUtc(issued) } : {}),
    expired: isExpired(row, now),
  };
}

const HITS_OPTION = { hits: { type: 'string', multiple: true } } as const;

/** The files after --hits (`--hits a.json b.json` and `--hits a.json --hits b.json` alike); null without --hits. */
function hitsFiles(hits: string[] | undefined, positionals: string[]): string[] | null {
  if (!hits) {
    if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    return null;
  }
  return [...hits, ...positionals];
}

const firedText = (c: HitCount | undefined) =>
  c ? `${counted(c.hits, 'hit')} in ${counted(c.runs, 'run')}` : 'no hits';

async function list(args: string[]): Promise<number> {
  const { common, values, positionals } = parse(args, HITS_OPTION);
  const files = hitsFiles(values.hits, positionals);
  const { config, now, ledger } = await open(common, true);
  const counts = files ? await countHits(files) : null;
  const rows = ledger?.rows ?? [];
  const text = rows.length
    ? table(
        ['line', 'sig', 'expires', 'owner', 'last_name', ...(counts ? ['fired'] : []), 'reason'],
        rows.map((r) => [
          String(r.line),
          r.sig,
          `${formatUtc(r.expires)}${isExpired(r, now) ? ' EXPIRED' : ''}`,
          r.owner,
          r.last_name ?? '-',
          ...(counts ? [firedText(counts.get(r.sig))] : []),
          r.reason,
        ]),
      )
    : [`patchwarden: no rows in ${config.freeze.ledger}`];
  if (files) text.push(`patchwarden: hits summed over ${counted(files.length, 'file')}`);
  return emit(common.format, {
    ok: true,
    json: {
      ledger: config.freeze.ledger,
      records: rows.map((r) => ({
        ...rowJson(r, now),
        ...(counts ? { fired: counts.get(r.sig) ?? { hits: 0, runs: 0, tests: [] } } : {}),
      })),
      ...(files ? { hits_files: files } : {}),
    },
    text,
  });
}

const ADD_OPTIONS = {
  sig: { type: 'string' },
  reason: { type: 'string' },
  owner: { type: 'string' },
  ttl: { type: 'string' },
  'last-name': { type: 'string' },
  ticket: { type: 'string' },
  fixture: { type: 'string' },
  seed: { type: 'string' },
  'env-class': { type: 'string' },
  ci: { type: 'string' },
  run: { type: 'string' },
  'from-replay': { type: 'string' },
} as const;

async function add(args: string[]): Promise<number> {
  const { common, values } = parse(args, ADD_OPTIONS, false);
  for (const key of ['sig', 'reason', 'owner', 'ttl'] as const)
    if (values[key] === undefined) throw new UsageError(`freeze add needs --${key}`);
  const replayFile = values['from-replay'];
  for (const key of replayFile === undefined ? [] : FROM_FILE)
    if (values[key] !== undefined) throw new UsageError(`--${key} comes from the replay results under --from-replay`);
  const ttl = durationFlag('--ttl', values.ttl!);
  const { repo, config, now, ledger, text, file } = await open(common, true);
  if (!ledger || text === null) throw noLedger(common, config);
  const agent = await agentRefusal(repo, config);
  if (agent) return emit(common.format, agent);
  if (/^[0-9a-f]+$/.test(values.sig!) && isIneligibleSig(values.sig!)) {
    return emit(
      common.format,
      violationsOutcome(
        [
          {
            rule: 'ledger',
            paths: [config.freeze.ledger],
            message: `sig ${values.sig} is an ineligible failure's (its first digit is 0): it names nothing that tells its defect from another, so no row may freeze it`,
            fix: 'make the test name what it checks (assert on the project call, or let the failure pass through a project function), then freeze the new signature',
          },
        ],
        { ledger: config.freeze.ledger, written: false },
      ),
    );
  }
  const evidence = replayFile === undefined ? null : await fromReplay(replayFile, values.sig!, config);
  const fields: RowFields = {
    sig: values.sig!,
    reason: values.reason!,
    owner: values.owner!,
    issued: formatUtc(now),
    expires: formatUtc(new Date(now.getTime() + ttl)),
    ...evidence?.fields,
  };
  const optional = {
    last_name: values['last-name'],
    ticket: values.ticket,
    fixture: values.fixture,
    seed: values.seed,
    env_class: values['env-class'],
    ci: values.ci,
    run: values.run,
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) fields[k] = v;

  const shown = config.freeze.ledger;
  const updated = addRow(text, shown.endsWith('.json'), fields);
  // The evidence file is in place before the row is judged: the judge re-reads it as every later reader will.
  const removeEvidence = evidence ? await keepEvidence(repo, evidence) : async () => {};
  // The written text is judged by the same rules as any ledger before it replaces the file.
  const judged = await judgeText(repo, config, updated, now);
  const added = judged.rows.find((r) => r.sig === fields.sig);
  const missing =
    added && freezePolicy(config, judged).requireEvidence
      ? await rowsWithoutEvidence(repo, config, { ...judged, rows: [added] })
      : [];
  if (judged.problems.length || missing.length || !added) {
    await removeEvidence();
    const outcome = violationsOutcome([...judged.problems, ...missing], { ledger: shown, written: false });
    outcome.text.push(`patchwarden: nothing written to ${shown}`);
    return emit(common.format, outcome);
  }
  await writeAtomically(file, updated);
  const paths = [shown, ...(evidence ? [evidence.kept] : [])].map(shellQuote).join(' ');
  return emit(common.format, {
    ok: true,
    json: { ledger: shown, written: true, record: rowJson(added, now), ...(evidence && { evidence: evidence.kept }) },
    text: [
      `patchwarden: added to ${shown}: sig ${added.sig}, owner ${added.owner}, expires ${formatUtc(added.expires)} (line ${added.line})${evidence ? `, bound to ${evidence.kept}` : ''}`,
      `  commit it on its own: git add -- ${paths} && git commit`,
    ],
  });
}

async function init(args: string[]): Promise<number> {
  const { common, values } = parse(args, { version: { type: 'string' } }, false);
  const version = ledgerVersion(values.version);
  const { repo, config } = await openWithConfig(common);
  const { file, text } = await readWorktreeLedger(repo, config);
  const shown = config.freeze.ledger;
  if (text !== null) throw new UsageError(`${shown} exists already (patchwarden freeze check shows it)`);
  await writeAtomically(file, newLedger(version, shown.endsWith('.json')));
  return emit(common.format, {
    ok: true,
    json: { ledger: shown, version, written: true },
    text: [
      `patchwarden: wrote ${shown}, version ${version}, with no rows; commit it on its own: git add -- ${shellQuote(shown)} && git commit`,
    ],
  });
}

/** Freeze rows are a human's: an identity matching owners.agents may not write one. */
async function agentRefusal(repo: Repo, config: Config) {
  if (!config.owners.agents.length) return null;
  const ident = await identity(repo, 'author');
  // Who writes the row decides whether it may: unknown is not "not an agent".
  if (ident === null)
    throw new CannotJudge(
      'git cannot tell who is writing this row (git var GIT_AUTHOR_IDENT): git config user.name "Your Name" && git config user.email you@example.com',
    );
  const author = addressOf(ident);
  if (!identityMatcher(config.owners.agents)(author)) return null;
  return violationsOutcome(
    [
      {
        rule: 'owners-agent',
        paths: [config.freeze.ledger],
        message: `freeze rows are written by a human: the git identity ${author} matches owners.agents in ${config.source}`,
        fix: 'ask the owner of the flake to review it and run the freeze command themselves',
      },
    ],
    { ledger: config.freeze.ledger, written: false },
  );
}

/** Rule breaks for the rows without replay evidence, the fixtures checked against the lock on disk. */
async function rowsWithoutEvidence(repo: Repo, config: Config, ledger: Ledger) {
  return evidenceViolations(ledger, config, await voidedFixtures(repo, config, ledger.rows, { kind: 'worktree' }));
}

async function extend(args: string[]): Promise<number> {
  const { common, values, positionals } = parse(args, {
    sig: { type: 'string' },
    ttl: { type: 'string' },
    ...HITS_OPTION,
  });
  for (const key of ['sig', 'ttl'] as const)
    if (values[key] === undefined) throw new UsageError(`freeze extend needs --${key}`);
  const ttl = durationFlag('--ttl', values.ttl!);
  const files = hitsFiles(values.hits, positionals);
  // Read before anything is written, so an unreadable file changes nothing.
  const fired = files ? (await countHits(files)).get(values.sig!) : undefined;
  const { repo, config, now, ledger, text, file } = await open(common, true);
  const shown = config.freeze.ledger;
  const index = ledger?.rows.findIndex((r) => r.sig === values.sig) ?? -1;
  if (!ledger || index < 0)
    throw new UsageError(`no row of ${shown} has sig ${values.sig}: patchwarden freeze list shows them`);
  const agent = await agentRefusal(repo, config);
  if (agent) return emit(common.format, agent);
  const updated = setFields(text!, shown.endsWith('.json'), index, {
    issued: formatUtc(now),
    expires: formatUtc(new Date(now.getTime() + ttl)),
  });
  const judged = parseLedger(updated, shown, config, now);
  const row = judged.rows.find((r) => r.sig === values.sig);
  // A renewed row is judged like a new one: under version 2 it needs its evidence.
  const evidence =
    row && freezePolicy(config, judged).requireEvidence
      ? await rowsWithoutEvidence(repo, config, { ...judged, rows: [row] })
      : [];
  if (judged.problems.length || evidence.length || !row) {
    const outcome = violationsOutcome([...judged.problems, ...evidence], { ledger: shown, written: false });
    outcome.text.push(`patchwarden: nothing written to ${shown}`);
    return emit(common.format, outcome);
  }
  await writeAtomically(file, updated);
  const firedLine = files
    ? [`  it fired ${firedText(fired)} of the ${counted(files.length, 'hits file')} read`]
    : ['  how often it fired: freeze extend --hits FILE... with the files gate --hits wrote'];
  return emit(common.format, {
    ok: true,
    json: {
      ledger: shown,
      written: true,
      record: rowJson(row, now),
      ...(files ? { fired: fired ?? { hits: 0, runs: 0, tests: [] }, hits_files: files } : {}),
    },
    text: [
      `patchwarden: extended the row at ${shown}:${row.line}: sig ${row.sig}, owner ${row.owner}, expires ${formatUtc(row.expires)}`,
      ...firedLine,
      `  commit it on its own: git add -- ${shellQuote(shown)} && git commit`,
    ],
  });
}

/** One step up: version 1 to 2 once every row carries its evidence, version 2 to 3 once every row says when it was issued. */
async function migrate(args: string[]): Promise<number> {
  const { common, values } = parse(args, { check: { type: 'boolean' } }, false);
  const { repo, config, now, ledger, text, file } = await open(common, true);
  const shown = config.freeze.ledger;
  const next = ledger ? (Math.min(ledger.version + 1, 3) as 2 | 3) : 2;
  // Version 3 keeps each row issued by the migration as a version 2 row until it expires: it must say when it was issued.
  const blocking = !ledger
    ? []
    : ledger.version === 1
      ? await rowsWithoutEvidence(repo, config, ledger)
      : ledger.version === 2
        ? undated(ledger, config)
        : [];
  const extra = { ledger: shown, version: ledger?.version ?? null, unevidenced: blocking.length };
  if (blocking.length) {
    const outcome = violationsOutcome(blocking, { ...extra, written: false });
    outcome.text.push(
      `patchwarden: version ${next} would refuse ${counted(blocking.length, 'row')} of ${shown}${values.check ? '' : '; nothing written'}`,
    );
    return emit(common.format, outcome);
  }
  if (values.check || !ledger || ledger.version === 3) {
    const said = !ledger
      ? `no ledger at ${shown}: patchwarden freeze init writes one`
      : ledger.version === 3
        ? `${shown} is version 3`
        : `every row of ${shown} holds under version ${next}: patchwarden freeze migrate sets version: ${next}`;
    return emit(common.format, { ok: true, json: { ...extra, written: false }, text: [`patchwarden: ${said}`] });
  }
  const json = shown.endsWith('.json');
  await writeAtomically(file, setVersion(text!, json, next, next === 3 ? formatUtc(now) : undefined));
  const kept =
    next === 3
      ? ' (its rows stay valid as version 2 rows until they expire; new rows come from freeze add --from-replay)'
      : '';
  return emit(common.format, {
    ok: true,
    json: { ...extra, version: next, written: true },
    text: [
      `patchwarden: ${shown} is version ${next}${kept}; commit it on its own: git add -- ${shellQuote(shown)} && git commit`,
    ],
  });
}

/** Rows without `issued`: version 3 could not tell them from rows added after the migration. */
function undated(ledger: Ledger, config: Config) {
  return ledger.rows
    .filter((r) => !r.issued)
    .map((r) => ({
      rule: 'ledger',
      paths: [config.freeze.ledger],
      message: `${ledger.source}:${r.line}: the row for sig ${r.sig} has no issued time, so version 3 could not keep it as a version 2 row`,
      fix: 'give it issued: the time it was written (or let it expire and prune it), then migrate',
      detail: [{ path: config.freeze.ledger, note: `line ${r.line}` }],
    }));
}

async function prune(args: string[]): Promise<number> {
  const { common, values } = parse(args, { expired: { type: 'boolean' } }, false);
  if (!values.expired) throw new UsageError('freeze prune drops expired rows only: pass --expired');
  const { config, now, ledger, text, file } = await open(common, true);
  const shown = config.freeze.ledger;
  const rows = ledger?.rows ?? [];
  // A sound ledger has one row per record, in order.
  const drop = new Set(rows.flatMap((r, i) => (isExpired(r, now) ? [i] : [])));
  if (drop.size) await writeAtomically(file, dropRows(text!, shown.endsWith('.json'), drop));
  const removed = rows.filter((_, i) => drop.has(i));
  return emit(common.format, {
    ok: true,
    json: { ledger: shown, removed: removed.map((r) => rowJson(r, now)), kept: rows.length - removed.length },
    text: removed.length
      ? [
          `patchwarden: removed ${counted(removed.length, 'expired row')} from ${shown}:`,
          ...removed.map(
            (r) =>
              `  ${r.sig}  expired ${formatUtc(r.expires)}  owner ${r.owner}${r.last_name ? `  (${r.last_name})` : ''}`,
          ),
        ]
      : [`patchwarden: no expired rows in ${shown}`],
  });
}

async function apply(args: string[]): Promise<number> {
  const { common, positionals } = parse(args, {}, true);
  if (!positionals.length)
    throw new UsageError(
      'freeze apply needs at least one report (JUnit XML or TAP): patchwarden freeze apply REPORT...',
    );
  const { repo, config, now, ledger } = await open(common, true);
  const options = signOptions(
    config,
    await configBool(repo, 'core.ignorecase'),
    await checkoutSource(worktreeRoot(repo)),
  );
  const signed: Signed[] = [];
  const reportOf: string[] = [];
  for (const file of positionals) {
    const report = await readReport(file, { failingOnly: true });
    for (const tc of report.cases) {
      const s = signCase(tc, options);
      if (!s) continue;
      signed.push(s);
      reportOf.push(file);
    }
  }
  const rows = ledger ?? emptyLedger(config.freeze.ledger);
  const bySig = new Map(rows.rows.map((r) => [r.sig, r]));
  const fixtureIds = [...new Set(signed.flatMap((s) => bySig.get(s.sig)?.fixture ?? []))];
  const voided = fixtureIds.length
    ? await voidFixtures(repo, config, fixtureIds, { kind: 'worktree' })
    : new Set<string>();
  const decisions = applyFreezes(signed, rows, config, now, voided);
  return emit(common.format, decisionOutcome(decisions, reportOf, config, freezePolicy(config, rows)));
}

function decisionOutcome(decisions: Decision[], reportOf: string[], config: Config, policy: FreezePolicy) {
  const ok = decisions.every((d) => d.passes);
  const failures = decisions.map((d, i) => ({
    sig: d.sig,
    name: d.name,
    action: d.action,
    rename: d.rename,
    passes: d.passes,
    void: d.void,
    note: d.note,
    exc: d.signed.exc,
    kind: d.signed.kind,
    frames: d.signed.frames,
    report: reportOf[i],
    ...(d.signed.flaky ? { flaky: true } : {}),
    unevidenced: d.unevidenced,
    ...(d.edit ? { edit: d.edit } : {}),
    row: d.row
      ? { line: d.row.line, owner: d.row.owner, expires: formatUtc(d.row.expires), last_name: d.row.last_name ?? null }
      : null,
  }));
  const text: string[] = [];
  if (decisions.length) {
    text.push(
      ...table(
        ['observation', 'layer', 'action'],
        decisions.map((d) => [
          `${d.name}: ${d.signed.exc || 'failure'} (${d.signed.kind}) sig ${d.sig}`,
          d.row && !d.void
            ? `ledger line ${d.row.line}${d.rename ? ` (row for ${d.row.last_name})` : ''}`
            : d.void
              ? 'fixture lock'
              : 'signature',
          `${d.action}${d.rename ? ', rename' : ''}${d.passes ? '' : ' - refused'}`,
        ]),
      ),
    );
    text.push('');
    for (const d of decisions) text.push(`  ${d.passes ? 'ok     ' : 'REFUSED'} ${d.name}: ${d.note}`);
  }
  const stopped = decisions.filter((d) => !d.passes).length;
  text.push(
    ok
      ? `patchwarden: ${decisions.length ? `every failure is frozen by ${config.freeze.ledger}` : 'no failing test cases'}`
      : `patchwarden: refused [freeze] ${stopped} of ${counted(decisions.length, 'failure')} not frozen by ${config.freeze.ledger}`,
  );
  if (!ok) text.push(...renameEdits(decisions, config.freeze.ledger), ...freezeHint(decisions, policy));
  const unevidenced = decisions.filter((d) => d.passes && d.unevidenced.length);
  if (unevidenced.length)
    text.push(
      `patchwarden: ${counted(unevidenced.length, 'failure')} frozen by rows without replay evidence (freeze.require_evidence is off): ${unevidenced.map((d) => `line ${d.row!.line}`).join(', ')}`,
    );
  const github = decisions.flatMap((d) => {
    if (!d.passes)
      return [annotation('error', 'patchwarden freeze', `${d.name}: ${d.action} (sig ${d.sig}): ${d.note}`)];
    return d.rename ? [annotation('warning', 'patchwarden freeze rename', `${d.name}: ${d.note}`)] : [];
  });
  return { ok, json: { ledger: config.freeze.ledger, failures }, text, github };
}

/** Aligned columns; the last column runs free. */
function table(head: string[], rows: string[][]): string[] {
  const all = [head, ...rows];
  const widths = head.map((_, c) => Math.max(...all.map((r) => r[c].length)));
  return all.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd(),
  );
}

/** Written beside the target and renamed over it: a killed write never leaves half a ledger. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** The commands a human runs to freeze the refused failures: their real signatures, after pruning a row that expired. */
function freezeHint(decisions: Decision[], policy: FreezePolicy): string[] {
  const open = decisions.filter((d) => !d.passes && (d.action === 'new' || d.action === 'expired'));
  const sigs = [...new Set(open.map((d) => d.sig))];
  if (!sigs.length) return [];
  return [
    '  a human who judges a failure flaky freezes it:',
    ...(open.some((d) => d.action === 'expired')
      ? ['    patchwarden freeze prune --expired    # first: an expired row still holds its signature']
      : []),
    ...sigs.map((sig) =>
      policy.version === 3
        ? `    patchwarden freeze add --from-replay FILE --sig ${sig} --reason R --owner O --ttl 7d    # the line \`patchwarden replay --out FILE --seed S -- COMMAND\` prints in CI`
        : policy.requireEvidence
          ? // The row needs its replay evidence: replay in CI prints the exact line with it.
            `    patchwarden freeze add --sig ${sig} --reason R --owner O --ttl 7d --fixture ID --seed S --env-class remote --ci PROVIDER --run RUN    # the line \`patchwarden replay --pin --seed S -- COMMAND\` prints in CI`
          : `    patchwarden freeze add --sig ${sig} --reason R --owner O --ttl 7d`,
    ),
  ];
}
