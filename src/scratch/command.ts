// `patchwarden scratch --base REV`: the branch judged on a scratch runner, to
// propose rather than to decide. The revert check runs twice: on the base's
// oracles plus the production diff (what the gate says of the branch without
// its own oracle edits), and on the base plus the branch's oracle files plus
// the production diff (what it should say once an owner promotes them). The
// branch's own tests run there too, so the invariants they name and the
// registry lacks become proposed rows; the suite runs there once, and
// replays of it propose freeze rows. Nothing is written to the repository: the proposal is a file for an
// owner, and `patchwarden promote` turns it into one owner commit.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { durationFlag, parse } from '../common/args.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { emit } from '../common/output.js';
import { counted } from '../common/text.js';
import { judgingConfig } from '../config/judging.js';
import type { Config } from '../config/schema.js';
import { clockNow } from '../freeze/clock.js';
import { treeDiff, type RawChange } from '../git/changes.js';
import { readBlobs, readFileAt, writeBlob } from '../git/objects.js';
import { currentBranch } from '../git/refs.js';
import { ABSENT } from '../git/raw-diff.js';
import { mergeBase, openRepo, resolveCommit, type Repo } from '../git/repo.js';
import { classifierFor } from '../config/classifier.js';
import { loadRegistryAt } from '../properties/registry.js';
import { headRefused, revertCheck, revertPasses, type RevertResult } from '../properties/revert.js';
import { propertyCommand, runProperties } from '../properties/run.js';
import { commitWith } from '../properties/tree.js';
import { trustedTree, type TrustedRange } from '../properties/trusted-tree.js';
import { diffDigest } from '../refactors/ack.js';
import { runEnv, SEED_VARIABLE } from '../runner/env.js';
import { checkedSeed, type PropSeed } from '../runner/seed.js';
import { type Classify, isOracle } from '../zones/classify.js';
import { type Predicted, type Proposal, type ProposedFile, type ProposedInvariant, writeProposal } from './proposal.js';
import { withRows } from './registry-rows.js';
import { scratchReplays } from './replays.js';
import { scratchSuite } from './suite.js';
import { summary } from './summary.js';

export const help = `usage: patchwarden scratch --base REV [--out FILE] [--replay N] [--seed S] [--ttl DUR]

Runs the branch (the commits of HEAD not in REV) on a scratch runner and
writes a proposal for an owner: the oracle files the branch changes, registry
rows for invariants its tests name that the registry lacks, and freeze rows
its replays show. It decides nothing and writes nothing to the repository.

  1. the revert check on REV's oracles plus the branch's production diff:
     what the gate says of the branch without its oracle edits
  2. the branch's own property tests on REV plus its oracle files plus the
     production diff, once: the invariant ids they name
  3. the revert check there, with the proposed rows: what the gate should
     say once an owner promotes the proposal
  4. the suite there (suite.command), each failure matched against REV's
     ledger as the gate's suite row matches it
  5. with --replay N, the suite command (the property command when no
     suite is set) N times there under one seed: flickers become proposed
     freeze rows bound to the results file

  --base REV     the branch the change merges into (e.g. origin/main); required
  --out FILE     the proposal (default scratch-proposal.json); a readable
                 summary is written beside it (FILE with .md), and the replay
                 results as FILE with .replay.json
  --replay N     replay the properties N times (default: no replay)
  --seed S       PROP_SEED for the revert checks and the replays (default: the
                 pinned one, runner.env)
  --ttl DUR      life of a proposed freeze row (default 7d)

Run it in a CI job with no secrets: it runs the branch's own code, tests
included. An owner reviews the proposal and runs patchwarden promote FILE,
which makes one commit of it; gate --scratch FILE prints where the gate's
verdict differs from the proposal's, and the gate's verdict stands.

exit 0 the proposal predicts the gate passes the branch once promoted, 1 it
predicts a refusal (the proposal is written either way), 2 could not judge.`;

interface Scratch {
  repo: Repo;
  config: Config;
  classify: Classify;
  range: TrustedRange;
  seed: PropSeed | null;
  /** --base as given. */
  baseRef: string;
  progress(line: string): void;
}

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(args, {
    base: { type: 'string' },
    out: { type: 'string' },
    replay: { type: 'string' },
    seed: { type: 'string' },
    ttl: { type: 'string' },
  });
  if (!values.base) throw new UsageError('scratch needs --base REV, the branch the change would merge into');
  const runs = values.replay === undefined ? 0 : Number(values.replay);
  if (!Number.isInteger(runs) || runs === 1 || runs < 0 || runs > 1000)
    throw new UsageError(`--replay must be a whole number from 2 to 1000, not ${JSON.stringify(values.replay)}`);
  const ttl = { text: values.ttl ?? '7d', ms: durationFlag('--ttl', values.ttl ?? '7d') };
  const out = path.resolve(values.out ?? 'scratch-proposal.json');
  const repo = await openRepo(common.dir);
  const onto = await resolveCommit(repo, values.base);
  const head = await resolveCommit(repo, 'HEAD');
  const progress = (line: string) => process.stderr.write(`patchwarden scratch: ${line}\n`);
  const { config } = await judgingConfig(repo, common.config, onto, progress);
  propertyCommand(config);
  const base = await mergeBase(repo, onto, head);
  if (!base) throw new CannotJudge(`HEAD and ${values.base} have no common history`);
  const given = values.seed === undefined ? null : checkedSeed(values.seed);
  const pinned = runEnv(config)[SEED_VARIABLE] ?? null;
  const s: Scratch = {
    repo,
    config,
    classify: await classifierFor(repo, config),
    range: { base, head, onto, now: clockNow() },
    seed: given === null ? null : { value: given, source: 'given', pinned },
    baseRef: values.base,
    progress,
  };
  const proposal = await propose(s);
  if (runs) {
    const seed = given ?? pinned;
    if (seed === null) throw new UsageError('--replay needs a seed: give --seed S (runner.env pins none)');
    const candidate = await candidateCommit(s, proposal);
    const file = out.replace(/\.json$/, '') + '.replay.json';
    proposal.freeze = await scratchReplays(
      repo,
      config,
      { ...s.range, onto: candidate },
      { runs, seed, out: file, ttl, now: s.range.now, progress },
    );
  }
  writeProposal(out, proposal);
  const text = summary(proposal, path.basename(out));
  const md = out.replace(/\.json$/, '') + '.md';
  writeFileSync(md, `${text.join('\n')}\n`);
  const predicted = Object.values(proposal.verdict.gate).every((st) => st !== 'refused');
  emit(common.format, { ok: predicted, json: { proposal: out, summary: md, ...proposal }, text });
  return predicted ? 0 : 1;
}

/** The proposal's files, rows and verdicts (freeze rows come from the replays, after). */
async function propose(s: Scratch): Promise<Proposal> {
  const { repo, range } = s;
  const mine = await branchChanges(s);
  const production = mine.patch.filter((c) => s.classify(c.path) === 'src');
  s.progress(
    `${counted(production.length, 'production path')}, ${counted(mine.oracles.length, 'oracle path')} the branch changes`,
  );
  s.progress("1. the revert check on the base's oracles plus the production diff");
  const trusted = await check(s, range.onto);
  const proposal: Proposal = {
    format: 'patchwarden-scratch',
    version: 1,
    base: range.onto,
    base_ref: s.baseRef,
    head: range.head,
    merge_base: range.base,
    branch: await currentBranch(repo),
    made: range.now.toISOString(),
    production: { paths: production.map((c) => c.path), digest: diffDigest(production) },
    files: await proposedFiles(repo, mine.oracles, s.classify),
    registry: [],
    freeze: [],
    verdict: {
      trusted: { status: trusted.status, reason: trusted.reason },
      proposed: { status: '', reason: '', failing_on_revert: [] },
      suite: null,
      gate: { properties: 'skipped', revert: 'skipped', suite: 'skipped' },
    },
    seed: s.seed && { value: s.seed.value, source: s.seed.source },
  };
  if (production.length) {
    s.progress("2. the branch's own property tests, once, for the invariants they name");
    proposal.registry = await unregistered(s, await candidateCommit(s, proposal));
  }
  s.progress('3. the revert check with the proposal');
  const proposed = await check(s, await candidateCommit(s, proposal));
  proposal.verdict.proposed = {
    status: proposed.status,
    reason: proposed.reason,
    failing_on_revert: proposed.failing_on_revert,
  };
  s.progress('4. the suite with the proposal');
  const suite = await scratchSuite(repo, s.config, { ...range, onto: await candidateCommit(s, proposal) }, range.onto);
  proposal.verdict.suite = suite;
  proposal.verdict.gate = {
    ...predicted(proposed),
    suite: !suite ? 'skipped' : suite.problem || suite.failures.some((f) => !f.frozen) ? 'refused' : 'pass',
  };
  return proposal;
}

/** The revert check of the branch's production diff on `onto`, as the gate runs it. */
function check(s: Scratch, onto: string): Promise<RevertResult> {
  return revertCheck(s.repo, s.config, s.range.base, s.range.head, {
    onto,
    now: s.range.now,
    progress: s.progress,
    ...(s.seed && { seed: async () => s.seed! }),
  });
}

/** What the branch changes since it forked: its production diff, and its oracle paths taken at head against the base. */
async function branchChanges(s: Scratch): Promise<{ patch: RawChange[]; oracles: RawChange[] }> {
  const patch = await treeDiff(s.repo, s.range.base, s.range.head);
  const own = new Set(patch.filter((c) => isOracle(s.classify(c.path))).map((c) => c.path));
  const oracles = (await treeDiff(s.repo, s.range.onto, s.range.head)).filter((c) => own.has(c.path));
  return { patch, oracles };
}

async function proposedFiles(repo: Repo, changes: RawChange[], classify: Classify): Promise<ProposedFile[]> {
  const blobs = await readBlobs(
    repo,
    changes.filter((c) => c.newMode !== ABSENT).map((c) => c.newOid),
  );
  return changes.map((c) => {
    const deleted = c.newMode === ABSENT;
    return {
      path: c.path,
      zone: classify(c.path) ?? 'none',
      status: deleted ? 'deleted' : c.oldMode === ABSENT ? 'added' : 'modified',
      mode: deleted ? null : c.newMode,
      oid: deleted ? null : c.newOid,
      content: deleted ? null : (blobs.get(c.newOid)?.toString('base64') ?? ''),
    };
  });
}

/** The base plus the proposal's files and registry rows, as a commit the runs are built on. */
async function candidateCommit(s: Scratch, p: Proposal): Promise<string> {
  const { repo, config, range } = s;
  const changes: RawChange[] = p.files.map((f) => ({
    status: f.status,
    path: f.path,
    oldMode: '',
    oldOid: '',
    newMode: f.mode ?? ABSENT,
    newOid: f.oid ?? '0'.repeat(40),
  }));
  const file = config.properties.invariants;
  if (p.registry.length) {
    const mine = p.files.find((f) => f.path === file);
    const before = mine
      ? Buffer.from(mine.content ?? '', 'base64').toString('utf8')
      : await readFileAt(repo, range.onto, file);
    const text = withRows(before === null ? null : before.toString(), p.registry, file);
    const oid = await writeBlob(repo, text);
    changes.push({ status: 'M', path: file, oldMode: '', oldOid: '', newMode: '100644', newOid: oid });
  }
  return changes.length ? commitWith(repo, range.onto, changes, 'scratch: the base plus the proposal') : range.onto;
}

/** One run of the properties on the candidate tree: the invariant ids its cases name that the registry lacks. */
async function unregistered(s: Scratch, candidate: string): Promise<ProposedInvariant[]> {
  const registry = await loadRegistryAt(s.repo, s.config, candidate);
  const tree = await trustedTree(s.repo, s.config, { ...s.range, onto: candidate });
  try {
    const run = await runProperties(tree.dir, s.config, registry, {
      classify: s.classify,
      ...(s.seed && { env: { [SEED_VARIABLE]: s.seed.value } }),
    });
    return (run.mapping?.unregistered ?? []).map((u) => ({
      id: u.id,
      description: `what ${u.cases[0]} checks (proposed by scratch: the owner words it)`,
      cases: u.cases,
    }));
  } finally {
    await tree.remove();
  }
}

/** The gate's properties and revert rows, as the revert check's status predicts them. */
function predicted(r: RevertResult): Omit<Predicted, 'suite'> {
  if (r.status === 'not_applicable') return { properties: 'skipped', revert: 'skipped' };
  return {
    properties: headRefused(r.status) ? 'refused' : 'pass',
    revert: revertPasses(r.status) ? 'pass' : 'refused',
  };
}
