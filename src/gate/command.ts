// `patchwarden gate --base REV`: every layer over base..HEAD, the rules,
// ledger, lock and registry taken from the base side, one decision table and
// one exit code.
import { writeFile } from 'node:fs/promises';
import { durationFlag, FORMATS, parse, REPORT_FORMATS } from '../common/args.js';
import type { ReportFormat } from '../common/reports.js';
import { emit } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { counted } from '../common/text.js';
import { judgingConfig } from '../config/judging.js';
import type { Config } from '../config/schema.js';
import { clockNow } from '../freeze/clock.js';
import type { Hit, HitsFile } from '../freeze/hits.js';
import { BASELINE_FILE, CONFIG_FILE } from '../zones/names.js';
import { rangeChanges } from '../git/changes.js';
import { mergeBase, openRepo, type Repo, resolveCommits } from '../git/repo.js';
import { classifierFor } from '../config/classifier.js';
import { commitWith } from '../properties/tree.js';
import { ciRun } from '../replay/ci.js';
import { OVERRIDE_TRAILER, overrideLines } from '../owners/override.js';
import { exitCode, type LayerResult } from './layer.js';
import { containedSoFar, containedLines } from '../runner/contain.js';
import { sealedLines, sealedCalls, sealedSoFar } from '../properties/sealed/env.js';
import { fenceLines, fenceSoFar } from '../properties/fence.js';
import { containedLayer, enforceRequired, kernelLayer, requirements } from './require.js';
import { checkedSeed } from '../runner/seed.js';
import { Facts } from '../judge/facts.js';
import { startPlan } from '../judge/rule.js';
import { fixturesLayer, GATE_RULES, ledgerLayer, mixingAndOwners, type GateContext } from './range.js';
import { propertyLayers, suiteLayer } from './tests.js';
import { tamperLayer } from './tamper.js';
import { judgeTamper } from '../tamper/judge.js';
import { githubAnnotations, jsonLayers, textTable } from './table.js';
import { compareVerdicts, type Comparison } from '../scratch/compare.js';
import { readProposal } from '../scratch/proposal.js';
import { diffDigest } from '../refactors/ack.js';
import { treeDiff } from '../git/changes.js';
import { isShallow } from '../git/history.js';

export const help = `usage: patchwarden gate --base REV [--hits FILE] [--seed S] [--scratch FILE] [--format FORMAT] [--config PATH] [-C DIR]

The merge gate: every layer over the commits of HEAD that are not in REV,
judged by the config, ledger, lock and registry as they are at REV.

  mixing      production code and oracles in separate commits, and not mixed
              across the range (mix.range)
  owners      oracle commits signed by a listed owner (owners.signers), never
              by an agent identity (owners.agents)
  ledger      the freeze ledger's shape at HEAD
  fixtures    the fixture lock at HEAD
  tamper      no added line of production code games the test run
              (tamper.mode; allow rows in .patchwarden/tamper-allow.yaml)
  properties  every registered invariant passes at HEAD (properties.command)
  revert      the properties fail with the production diff reverted
  suite       every failure of suite.command matches an unexpired freeze row

A layer with nothing configured is skipped and says why, unless gate.require
(or --require) names it. Once mixing, owners, ledger, fixtures or tamper
refused, properties and revert are not run ("not run: mixing refused"): the
change stays refused whatever they would say. It prints one table; --format github adds
annotations, --format json gives ok and layers, and --format sarif, junit or
codequality prints that report file instead (SARIF 2.1.0, JUnit XML, GitLab
Code Quality): one finding per refused path, and one per layer that could not
judge.

  --base REV             the target branch (e.g. origin/main); required
  --format FORMAT        text (the default), json, github, sarif, junit or
                         codequality
  --suite-timeout DUR    kill the suite after this long (default 60m)
  --require LAYERS       properties, fixtures, freeze, contained, kernel
                         (comma-separated): a missing one is refused as
                         unproven; adds to gate.require
  --hits FILE            write the suite's freeze hits (each failure a row let
                         through, with the row, the test and the CI run) to
                         FILE, for freeze list --hits and freeze extend --hits
  --seed S               run the revert check's properties with PROP_SEED=S
                         (to replay a run exactly: the gate prints the line)
  --scratch FILE         compare with a scratch proposal (patchwarden scratch
                         --out): print where its predicted verdict and the
                         production diff it judged differ from the gate's;
                         the gate's verdict and exit code stand

The revert check's two runs get a fresh PROP_SEED: an HMAC of
PATCHWARDEN_SEED_KEY (a CI secret), the base tree and the production diff's
digest, or a random one without the secret. A case failing in both runs under
it that passes on head under the pinned seed is reported as a finding about
the base, not refused. No child process gets PATCHWARDEN_SEED_KEY.

exit 0 every layer passed or was skipped, 1 a layer refused, 2 a layer could
not judge (and none refused).`;

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(
    args,
    {
      base: { type: 'string' },
      'suite-timeout': { type: 'string' },
      require: { type: 'string' },
      hits: { type: 'string' },
      seed: { type: 'string' },
      scratch: { type: 'string' },
    },
    false,
    [...FORMATS, ...REPORT_FORMATS],
  );
  if (!values.base) throw new UsageError('gate needs --base REV, the branch the change would merge into');
  // Read first: a proposal that cannot be read stops the gate before any run.
  const proposal = values.scratch === undefined ? null : readProposal(values.scratch);
  const suiteTimeout = durationFlag('--suite-timeout', values['suite-timeout'] ?? '60m');
  const repo = await openRepo(common.dir);
  const [base, head] = await resolveCommits(repo, [values.base, 'HEAD']);
  const progress = (line: string) => process.stderr.write(`patchwarden gate: ${line}\n`);
  // A base whose config does not parse is judged by its last one that does, so a correction can merge.
  const { config } = await judgingConfig(repo, common.config, base, progress);
  const required = requirements(config, values.require);
  const ctx = await gateContext(repo, config, values.base, base, head, progress);
  if (values.seed !== undefined) ctx.seed = checkedSeed(values.seed);
  const { commits, overrides } = ctx;
  const cheap = [
    ...(await mixingAndOwners(ctx)),
    await ledgerLayer(ctx),
    await fixturesLayer(ctx),
    await tamperLayer(ctx),
  ];
  const refused = cheap.filter((l) => l.status === 'refused').map((l) => l.layer);
  const layers: LayerResult[] = enforceRequired(
    [
      ...cheap,
      ...(await propertyLayers(ctx, refused)),
      await suiteLayer(ctx, suiteTimeout),
      ...containedLayer(required, containedSoFar(), config.source),
      ...kernelLayer(required, sealedSoFar(), config.properties.sealed, config.source),
    ],
    required,
    config.source,
  );
  const rules =
    common.config ??
    (config.present
      ? `${base.slice(0, 12)}:${CONFIG_FILE}`
      : `the defaults (no ${CONFIG_FILE} at ${base.slice(0, 12)})`);
  const header = { base, head, commits: commits.length, rules };
  const listed = overrideLines(overrides.granted).map((l) => `patchwarden gate: ${l}`);
  const code = exitCode(layers);
  const scratch = proposal && compareVerdicts(proposal, layers, await productionDigest(ctx));
  const compared = scratch ? scratchLines(values.scratch!, scratch) : [];
  if (values.hits) await writeHits(values.hits, layers, base, head);
  if ((REPORT_FORMATS as readonly string[]).includes(common.format)) {
    const { report } = await import('../common/reports.js');
    process.stdout.write(
      report(common.format as ReportFormat, layers, { title: 'patchwarden gate', rulesFile: CONFIG_FILE }),
    );
    return code;
  }
  emit(common.format, {
    ok: code === 0,
    json: {
      base,
      head,
      commits: commits.length,
      rules,
      required,
      contained: containedSoFar(),
      sealed: sealedSoFar(),
      sealed_calls: sealedCalls(),
      fence: fenceSoFar(),
      overrides: overrides.granted,
      layers: jsonLayers(layers),
      ...(scratch && { scratch: { file: values.scratch, ...scratch } }),
    },
    text: [
      ...textTable(header, layers),
      ...listed,
      ...containedLines().map((l) => `patchwarden gate: ${l}`),
      ...sealedLines().map((l) => `patchwarden gate: ${l}`),
      ...fenceLines().map((l) => `patchwarden gate: ${l}`),
      ...compared,
    ],
    github: githubAnnotations(layers),
  });
  return code;
}

/** The range the gate judges: its commits (the adoption baseline left out), their changes, the merge base and the owners' overrides. */
async function gateContext(
  repo: Repo,
  config: Config,
  baseName: string,
  base: string,
  head: string,
  progress: (line: string) => void,
): Promise<GateContext> {
  const walking = rangeChanges(repo, [head, '--not', base], { trailer: OVERRIDE_TRAILER });
  walking.catch(() => {});
  const forkPoint = await mergeBase(repo, base, head);
  if (!forkPoint) {
    throw new CannotJudge(
      (await isShallow(repo))
        ? `this clone is shallow, so HEAD and ${baseName} share no history here; fetch the full history (fetch-depth: 0 in actions/checkout, GIT_DEPTH: 0 in GitLab CI, or git fetch --unshallow)`
        : `HEAD and ${baseName} have no common history`,
    );
  }
  const classify = await classifierFor(repo, config);
  const now = clockNow();
  const facts: Facts = new Facts({
    point: 'gate',
    repo,
    config,
    tip: head,
    where: `head ${head.slice(0, 12)}`,
    classify: () => classify,
    now,
    // Commits that predate the guard (the adoption baseline at the base) are not judged; an override, and an
    // owner-signed oracle commit sharing the range with production ones, is admitted against the merge base.
    walk: { read: () => walking, exclude: [base], start: forkPoint, judgeRev: base, admit: true },
    tamper: () => judgeTamper(repo, config, { from: forkPoint, to: head, judgeRev: base }, classify),
  });
  startPlan(facts, GATE_RULES);
  const [judged, old, overrides] = await Promise.all([facts.judged(), facts.baselined(), facts.overrides()]);
  if (old.size) progress(`${counted(old.size, 'commit')} of the adoption baseline (${BASELINE_FILE}) not judged`);
  const { commits, changes } = judged!;
  // An owner's override passes the mixing and revert rules for its own changes: the revert check starts from them.
  const own = overrides.granted.flatMap((o) => changes.get(o.commit) ?? []);
  const withOwn = (rev: string) =>
    own.length ? commitWith(repo, rev, own, "the base plus the owners' overrides") : rev;
  return {
    repo,
    config,
    base,
    baseName: baseName,
    head,
    mergeBase: forkPoint,
    commits,
    changes,
    overrides,
    revertFrom: { mergeBase: await withOwn(forkPoint), onto: await withOwn(base) },
    classify,
    now,
    progress,
    facts,
  };
}

/** The digest of the production diff the revert check judges, as scratch records it. */
async function productionDigest(ctx: GateContext): Promise<string> {
  const diff = await treeDiff(ctx.repo, ctx.revertFrom.mergeBase, ctx.head);
  return diffDigest(diff.filter((c) => ctx.classify(c.path) === 'src'));
}

function scratchLines(file: string, c: Comparison): string[] {
  const said = `patchwarden gate: scratch proposal ${file}`;
  if (c.agrees) return [`${said}: agrees with the gate`];
  return [
    `${said}: differs from the gate; the gate's verdict stands:`,
    ...c.differences.map((d) => `patchwarden gate:   ${d}`),
  ];
}

/** The suite's freeze hits as a file of their own, kept as a CI artifact (an empty list when the suite did not run). */
async function writeHits(file: string, layers: LayerResult[], base: string, head: string): Promise<void> {
  const hits = (layers.find((l) => l.layer === 'suite')?.details?.hits ?? []) as Hit[];
  const data: HitsFile = { kind: 'patchwarden-freeze-hits', version: 1, base, head, run: ciRun()?.run ?? null, hits };
  await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
}
