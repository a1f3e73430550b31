// `patchwarden replay --runs N --seed S [--env-class C] [--out FILE] -- COMMAND`
// and `patchwarden replay merge FILE...`: classify each case over repeated runs
// under one seed, and print what the promotion table says to do with it.
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { durationFlag, parse, type Common } from '../common/args.js';
import { openWithConfig } from '../config/context.js';
import { emit } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { readReport } from '../junit/read.js';
import { signCase, signOptions } from '../signature/sign.js';
import { checkoutSource } from '../signature/source.js';
import type { Config } from '../config/schema.js';
import { pinFixture } from '../fixtures/pin.js';
import { formatUtc } from '../freeze/clock.js';
import { isExpired, parseLedger, readWorktreeLedger } from '../freeze/ledger.js';
import { mergeBase, resolveCommit, worktreeRoot, type Repo } from '../git/repo.js';
import { trustedTree, type TrustedTree } from '../properties/trusted-tree.js';
import { containedLines, containedSoFar } from '../runner/contain.js';
import { runEnv } from '../runner/env.js';
import { checkedSeed } from '../runner/seed.js';
import { ciRun, ciVars, type CiRun } from './ci.js';
import { classify } from './classify.js';
import { promote, type PromotionContext } from './promotion.js';
import { outcome, type Classified } from './render.js';
import { replay } from './replay.js';
import { mergedResults, mergeResults, readResults, writeResults } from './results.js';
import type { EnvClass, Results } from './types.js';

export const help = `usage: patchwarden replay --runs N --seed S [--env-class local|remote] [--base REV] [--out FILE] [--pin] -- COMMAND
       patchwarden replay merge [--out FILE] FILE...

Runs COMMAND N times, each with PROP_SEED=S in its environment (and {junit} /
PATCHWARDEN_JUNIT for its JUnit report), and classifies every test case as
stable_pass, stable_fail or flicker. A case is keyed by its fixture id
(<property name="fixture">) or invariant id (<property name="invariant"> or
[invariant:ID] in its name), else by its failure signature; never by its name.

  --runs N           runs (default 7, at least 2)
  --seed S           the seed, passed as PROP_SEED (required)
  --env-class C      local or remote (default: remote in CI: CI=true or a
                     provider's own variables)
  --base REV         run on trusted files: a temporary tree of REV (the
                     target branch) plus the admitted owner-signed commits
                     and the production diff of the commits of HEAD not in
                     REV; the branch's own oracle edits are left out (what
                     CI uses; by hand, without it, the working tree runs)
  --out FILE         also write every run's observations, for replay merge
  --pin              write the shrunk counterexample of each stable_fail as
                     a fixture (fixtures add), so it is replayed as pinned
  --timeout DUR      per run (default: properties.timeout)
  --ttl DUR          life of a proposed freeze row (default 7d)

The words after -- are joined by spaces into one shell line, run in -C DIR
(default: the current folder). A run that leaves no usable report counts as a
failed run for every case.

merge classifies over several --out files (one seed; remote when any is).
With --out, merge writes the pooled runs as one results file (the files
must share their pinned environment), and its freeze candidates get the
\`freeze add --from-replay FILE\` line bound to it.

Runs get TZ=UTC, LANG and LC_ALL C.UTF-8, PYTHONHASHSEED=0 (runner.env
changes them). The CI run (GitHub, GitLab, Buildkite, CircleCI, Jenkins) is
read from the provider's own variables and recorded as the row's evidence.

A flicker on remote runners prints a freeze candidate and the exact
\`patchwarden freeze add\` line for a human, unless a row already freezes
it; the ledger is never written. With --out, a flake without input (timing,
randomness), and any flake under a version 3 ledger, gets the line
\`freeze add --from-replay FILE\`: the row is bound to the results file. A flake whose failing frames differ between
runs is unpinned entropy: it fails, and is never a candidate.
exit: 0 classified, no case fails in every run; 1 some case is stable_fail
or unpinned entropy; 2 could not judge (bad usage, no usable report,
unreadable results).`;

const DEFAULT_RUNS = 7;
const DEFAULT_TTL = '7d';
const MAX_RUNS = 1000;

/** The runners' class: --env-class, else remote in CI. */
export function envClass(given: string | undefined): EnvClass {
  if (given === undefined) return /^(true|1)$/i.test(process.env.CI ?? '') || ciRun() ? 'remote' : 'local';
  if (given !== 'local' && given !== 'remote')
    throw new UsageError(`--env-class must be local or remote, not ${JSON.stringify(given)}`);
  return given;
}

interface Setting {
  seed: string;
  env: EnvClass;
  ttlMs: number;
  ci: CiRun | null;
  /** The pinned variables the runs got, when this process ran them. */
  vars?: Record<string, string>;
  /** The repository and its config, when there is one: its ledger says what is frozen already, --pin writes to it. */
  project: { repo: Repo; config: Config } | null;
  pin: boolean;
  /** The results file written (--out): a bound row's evidence. */
  out: string | null;
}

async function classified(common: Common, set: Setting, runs: Classified['runs']): Promise<number> {
  const records = runs.map((r) => r.record);
  const now = new Date();
  const { frozenBy, version } = await ledgerLookup(set.project, now);
  const stats = classify(records);
  const cases = stats.map((s) =>
    promote(s, {
      seed: set.seed,
      envClass: set.env,
      ttlMs: set.ttlMs,
      now,
      ci: set.ci,
      frozenBy,
      ledgerVersion: version,
      out: set.out,
    }),
  );
  if (!cases.length) {
    const why = records.every((r) => !r.report)
      ? `no run left a usable report (${[...new Set(records.map((r) => r.error))].join('; ')})`
      : 'the reports hold no test case with a failure or an id: nothing to classify';
    throw new CannotJudge(why);
  }
  if (set.pin) {
    if (!set.project) throw new UsageError('--pin writes fixtures into a repository: run it inside one');
    for (const [i, v] of cases.entries()) {
      if (v.status !== 'stable_fail') continue;
      const example = stats[i].counterexample;
      if (example === undefined) {
        v.note +=
          '; --pin: its report shows no counterexample (Hypothesis "Falsifying example:", fast-check "Counterexample:") to pin';
        continue;
      }
      const p = await pinFixture(
        set.project.repo,
        set.project.config,
        JSON.stringify(example),
        `the counterexample of ${v.name}`,
      );
      v.pinned = p;
      v.note += `; pinned as fixture ${p.id} (${p.path}${p.created ? '' : ', already there'}): commit it with ${set.project.config.fixtures.lock}, on its own, and have the property read it (record_property("fixture", "${p.id}"))`;
    }
  }
  const said = outcome({
    seed: set.seed,
    envClass: set.env,
    runs,
    cases,
    ci: set.ci,
    ...(set.vars && { vars: set.vars }),
  });
  return emit(common.format, {
    ...said,
    json: { ...said.json, contained: containedSoFar() },
    text: [...said.text, ...containedLines().map((l) => `replay: ${l}`)],
  });
}

/** The working tree's unexpired rows by signature (a flake frozen already gets no second row), and its version. */
async function ledgerLookup(
  project: Setting['project'],
  now: Date,
): Promise<{ frozenBy: PromotionContext['frozenBy']; version: number }> {
  const none = { frozenBy: () => null, version: 1 };
  if (!project) return none;
  const { text } = await readWorktreeLedger(project.repo, project.config);
  if (text === null) return none;
  const ledger = parseLedger(text, project.config.freeze.ledger, project.config, now);
  const rows = new Map(ledger.rows.filter((r) => !isExpired(r, now)).map((r) => [r.sig, r]));
  return {
    version: ledger.version,
    frozenBy: (sig) => {
      const row = rows.get(sig);
      return row ? { line: row.line, expires: formatUtc(row.expires), source: ledger.source } : null;
    },
  };
}

async function runReplay(args: string[]): Promise<number> {
  const dash = args.indexOf('--');
  const words = dash < 0 ? [] : args.slice(dash + 1);
  const { common, values } = parse(
    dash < 0 ? args : args.slice(0, dash),
    {
      runs: { type: 'string' },
      seed: { type: 'string' },
      'env-class': { type: 'string' },
      out: { type: 'string' },
      timeout: { type: 'string' },
      ttl: { type: 'string' },
      pin: { type: 'boolean' },
      base: { type: 'string' },
    },
    false,
  );
  const command = words.join(' ').trim();
  if (!command) throw new UsageError('no command: give it after --, e.g. replay --seed 1 -- pytest --junitxml={junit}');
  const runs = Number(values.runs ?? DEFAULT_RUNS);
  if (!Number.isInteger(runs) || runs < 2 || runs > MAX_RUNS)
    throw new UsageError(`--runs must be a whole number from 2 to ${MAX_RUNS}, not ${JSON.stringify(values.runs)}`);
  if (values.seed === undefined) throw new UsageError('--seed is required: replay classifies under one fixed seed');
  const seed = checkedSeed(values.seed);
  const env = envClass(values['env-class']);
  // A command that never writes where patchwarden reads would fail every run: refuse before the first.
  if (!command.includes('{junit}') && !command.includes('PATCHWARDEN_JUNIT'))
    throw new UsageError(
      `the command names no report path: put {junit} where it writes JUnit XML, e.g. replay --seed 1 -- pytest --junitxml={junit} (or read $PATCHWARDEN_JUNIT)`,
    );
  const { repo, config } = await openWithConfig(common);
  const ttlMs = durationFlag('--ttl', values.ttl ?? DEFAULT_TTL);
  const timeoutMs =
    values.timeout === undefined ? config.properties.timeout : durationFlag('--timeout', values.timeout);
  // The runs happen in this checkout: the asserting expressions are read from it (signatures v2).
  const opts = signOptions(config, false, repo.root ? await checkoutSource(repo.root) : undefined);
  const started = new Date().toISOString();
  const vars = runEnv(config, seed);
  const ci = ciRun();
  const progress = (line: string) => process.stderr.write(line + '\n');
  const tree = values.base === undefined ? null : await baseTree(repo, config, values.base, progress);
  let records: Awaited<ReturnType<typeof replay>>;
  try {
    // In the trusted tree, the asserting expressions are read from the files that ran.
    const signing = tree ? signOptions(config, false, await checkoutSource(tree.dir)) : opts;
    records = await replay({
      command,
      cwd: tree ? path.join(tree.dir, path.relative(worktreeRoot(repo), realpathSync(common.dir))) : common.dir,
      runs,
      env: vars,
      timeoutMs,
      readReport,
      signCase: (tc) => signCase(tc, signing),
      progress,
    });
  } finally {
    await tree?.remove();
  }
  if (values.out !== undefined) {
    const results: Results = {
      format: 'patchwarden-replay',
      version: 1,
      seed,
      env_class: env,
      command,
      runner: hostname(),
      started,
      ci,
      env: vars,
      ci_vars: ciVars(),
      runs: records,
    };
    writeResults(values.out, results);
  }
  return classified(
    common,
    { seed, env, ttlMs, ci, vars, project: { repo, config }, pin: Boolean(values.pin), out: values.out ?? null },
    records.map((record) => ({ record })),
  );
}

/** The trusted tree for --base: the target's oracles, the admitted owner commits and the production diff of HEAD. */
async function baseTree(
  repo: Repo,
  config: Config,
  rev: string,
  progress: (line: string) => void,
): Promise<TrustedTree> {
  const onto = await resolveCommit(repo, rev);
  const head = await resolveCommit(repo, 'HEAD');
  const base = await mergeBase(repo, onto, head);
  if (!base) throw new CannotJudge(`HEAD and ${rev} have no common history: --base needs the branch HEAD merges into`);
  const tree = await trustedTree(repo, config, { base, head, onto, now: new Date() });
  const kept = tree.kept.length ? `, admitted owner commits' ${tree.kept.join(', ')}` : '';
  progress(
    `replay: running on ${rev}'s oracles${kept} and HEAD's production diff (${tree.production.length ? tree.production.join(', ') : 'none'}); the branch's other edits are left out`,
  );
  return tree;
}

async function runMerge(args: string[]): Promise<number> {
  const { common, values, positionals } = parse(args, { ttl: { type: 'string' }, out: { type: 'string' } });
  if (!positionals.length) throw new UsageError('replay merge needs at least one results file');
  const ttlMs = durationFlag('--ttl', values.ttl ?? DEFAULT_TTL);
  const inputs = positionals.map((file) => ({ file, results: readResults(file) }));
  const merged = mergeResults(inputs);
  // The merged file is what a freeze row is bound to: its line names it.
  if (values.out !== undefined) writeResults(values.out, mergedResults(inputs, merged));
  // merge needs no repository; inside one, its ledger says what is frozen already.
  const project = await openWithConfig(common).catch((err: unknown) => {
    if (err instanceof CannotJudge && !(err instanceof UsageError)) return null;
    throw err;
  });
  return classified(
    common,
    { seed: merged.seed, env: merged.envClass, ttlMs, ci: merged.ci, project, pin: false, out: values.out ?? null },
    merged.runs,
  );
}

export async function run(args: string[]): Promise<number> {
  return args[0] === 'merge' ? runMerge(args.slice(1)) : runReplay(args);
}
