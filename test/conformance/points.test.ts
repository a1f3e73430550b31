// The conformance net for the four enforcement points: one table of
// scenarios, each sent through pre-commit (a real `git commit` with the hook
// installed, on the index), pre-push (a real push to a bare remote, with the
// hook installed in the clone), pre-receive (a real push into a bare
// repository with the server hook installed, the local hook skipped) and the
// gate (`gate --base` as CI runs it). Each cell is the expected verdict:
// `accept`, `refuse` with the rule ids, or `stop` (exit 2, the hook cannot
// judge: a staged guard file that does not parse). A cell that differs from
// its row by design carries the reason; so does a known difference left for
// later. A drift between the points shows up here as a cell that no longer
// holds.
import { chmodSync, copyFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, installPrePush, PROJECT, type Run, tempRepo, type TempRepo } from '../helpers/repo.js';
import { FIXED_JS, jsProperty, NODE_TEST, registry } from '../properties/projects.js';
import { Keys } from '../prereceive/server.js';

const POINTS = ['pre-commit', 'pre-push', 'pre-receive', 'gate'] as const;
type Point = (typeof POINTS)[number];
/** `accept`, `stop`, or `refuse` and the rule ids, sorted. */
type Verdict = string;
/** A verdict, or a verdict and why this point differs from the others by design (or is a known difference). */
type Cell = Verdict | [Verdict, string];

// The reasons, once each.
const SCAN_CAP =
  "pre-commit's tamper scan is bounded (hooks/staged-tamper.ts); above it the commit passes and pre-push scans";
const NO_PROPERTIES_AT_COMMIT = 'pre-commit runs no project code: the revert check is for pre-push and the gate';
const NO_PROPERTIES_AT_SERVER = 'pre-receive runs no project code: no properties, so no revert check';
const STOP_AT_COMMIT =
  'pre-commit stops a staged guard file that does not parse (exit 2), saying to restage it or leave it out (docs/config.md)';
const DEFAULT_BRANCH =
  "the hooks judge every branch by the config on the remote's default branch, as the server's judging branch; pre-commit by HEAD's, the gate by --base's (here release's, tamper off)";
const FIXTURES_TOUCHED =
  'known difference: pre-commit and pre-receive verify the lock only when the change touches fixtures or the lock (cheap on every commit and push); pre-push and the gate verify it at every tip, so a branch from before the lock is refused there';
const TABLE_ROWS =
  "the gate's table judges every layer: the layer that reads the broken file cannot read it either (error), where the hooks stop at the guard-file refusal";
const UNSIGNED_INDEX =
  'the owners rule and overrides judge signed commits; the index has no signature or message yet (an override is committed with --no-verify)';
const ONE_COMMIT = 'pre-commit judges the commit being made; the range rule is for pushes and the gate';

const BASELINED = '1 commit of the adoption baseline (.patchwarden/baseline) not judged';
const FALLBACK = 'until a correction lands, the rules of';
const OVERRIDDEN = 'passes the mixing and revert rules for its own changes';

const keys = new Keys();
const owner = keys.make('owner');
const OWNER = 'owner@example.com';
/** An oracle file; no registry, so the gate's property layers have nothing to run. */
const SPEC = 'The bill is never negative.\n';
const EXIT = 'import os\n\n\ndef done():\n    os._exit(0)\n';

/** A server (pre-receive installed), a plain bare mirror, and a clone with the pre-commit and pre-push hooks. */
interface Site {
  work: TempRepo;
  origin: TempRepo;
  mirror: TempRepo;
  /** Tips made during set-up that scenarios start from, by name. */
  tips: Record<string, string>;
}

interface Scenario {
  name: string;
  site: () => Site;
  /** Where the branch starts (a site's tip name; default main), and the gate's --base. */
  from?: string;
  base?: string;
  /** Files of a commit made first, without the hook: pre-commit judges only the one after it. */
  before?: Record<string, string>;
  /** Files of the commit pre-commit judges, and symbolic links (path to target). */
  files: Record<string, string>;
  links?: Record<string, string>;
  message?: string;
  /** The commit is the owner's, signed with the owner's key. */
  signed?: boolean;
  expect: Record<Point, Cell>;
  /** What a point must also say (why it accepted), by point. */
  says?: Partial<Record<Point, string>>;
}

/** One site per config, made once and shared by its scenarios. */
function lazy(make: () => Site): () => Site {
  let site: Site | undefined;
  return () => {
    site ??= make();
    return site;
  };
}

/**
 * The site: `start` holds the project before the guard; `setup` adopts it on
 * main (and anything else scenarios start from), pushed to both remotes
 * while the server is in its bootstrap state, which then ends.
 */
function makeSite(
  start: Record<string, string>,
  setup: (work: TempRepo, tips: Record<string, string>) => void,
  branches = ['main'],
): Site {
  const origin = tempRepo({ bare: true });
  copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), path.join(origin.dir, 'hooks/pre-receive'));
  chmodSync(path.join(origin.dir, 'hooks/pre-receive'), 0o755);
  const mirror = tempRepo({ bare: true });
  const work = tempRepo();
  for (const [name, r] of [
    ['origin', origin],
    ['mirror', mirror],
  ] as const)
    work.git(['remote', 'add', name, r.dir]);
  work.commit(start, 'the project');
  const tips: Record<string, string> = {};
  setup(work, tips);
  origin.git(['config', 'patchwarden.bootstrap', 'true']);
  for (const remote of ['origin', 'mirror']) work.git(['push', '-q', '--no-verify', remote, ...branches]);
  origin.git(['config', '--unset', 'patchwarden.bootstrap']);
  work.git(['fetch', '-q', '--all']);
  installPrePush(work);
  copyFileSync(path.join(PROJECT, 'hooks/pre-commit'), path.join(work.dir, '.git/hooks/pre-commit'));
  return { work, origin, mirror, tips };
}

/**
 * The plain site: the default config. Before the guard: the project, whose
 * fixtures were locked in a commit of their own (`prelock` is the commit
 * before it), and a branch `old` whose mixed commit is recorded in the
 * adoption baseline. After it: a branch `release` whose config turns the
 * tamper layer off.
 */
const plain = lazy(() =>
  makeSite(
    {
      'src/app.ts': 'export const a = 1;\n',
      'spec/rules.md': SPEC,
      'fixtures/input/case.json': '{"total": 10}\n',
      'README.md': 'app\n',
    },
    (work, tips) => {
      tips.prelock = work.head();
      const locked = work.pw(['fixtures', 'lock']);
      if (locked.code !== 0) throw new Error(`fixtures lock: ${locked.stderr}`);
      work.commit({}, 'lock the fixtures');
      work.git(['checkout', '-q', '-b', 'old']);
      tips.old = work.commit(
        { 'src/app.ts': 'export const a = 2;\n', 'spec/rules.md': `${SPEC}# two\n` },
        'old work: code and an oracle together',
      );
      work.git(['checkout', '-q', 'main']);
      work.commit(
        { '.patchwarden.yml': 'version: 1\n', '.patchwarden/baseline': `${tips.old} refs/heads/old\n` },
        'adopt patchwarden',
      );
      work.git(['checkout', '-q', '-b', 'release']);
      work.commit({ '.patchwarden.yml': 'version: 1\ntamper:\n  mode: off\n' }, 'release: no tamper layer');
      work.git(['checkout', '-q', 'main']);
    },
    // `old` stays unpushed: an open branch from before the guard.
    ['main', 'release'],
  ),
);

/** A site with an owner in owners.signers. */
const owned = lazy(() =>
  makeSite({ 'src/app.ts': 'export const a = 1;\n', 'spec/rules.md': SPEC }, (work) => {
    work.commit(
      {
        '.patchwarden.yml': 'version: 1\nowners:\n  signers: .patchwarden/allowed_signers\n',
        '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`,
      },
      'adopt patchwarden',
    );
  }),
);

/** A site under fixtures.strict: the whole fixtures zone holds locked inputs only. */
const strictFixtures = lazy(() =>
  makeSite({ 'src/app.ts': 'export const a = 1;\n', 'fixtures/input/case.json': '{"total": 10}\n' }, (work) => {
    work.write('.patchwarden.yml', 'version: 1\nfixtures:\n  strict: true\n');
    const locked = work.pw(['fixtures', 'lock']);
    if (locked.code !== 0) throw new Error(`fixtures lock: ${locked.stderr}`);
    work.commit({}, 'adopt patchwarden, fixtures strict');
  }),
);

const BROKEN = 'version: 1\nzonez:\n  src: [src/**]\n';
/** A site whose committed config stopped parsing after it was adopted (landed past the hooks). */
const broken = lazy(() =>
  makeSite({ 'src/app.ts': 'export const a = 1;\n', 'spec/rules.md': SPEC }, (work) => {
    work.commit({ '.patchwarden.yml': 'version: 1\n' }, 'adopt patchwarden');
    work.commit({ '.patchwarden.yml': BROKEN }, 'a config that does not parse');
  }),
);

const ID = 'bill.total_non_negative';
/** A site whose properties run under node --test. */
const proven = lazy(() =>
  makeSite(
    {
      'src/bill.mjs': FIXED_JS,
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
    },
    (work) => {
      work.commit(
        {
          '.patchwarden.yml': `version: 1\nproperties:\n  command: ${JSON.stringify(NODE_TEST)}\n  invariants: spec/invariants.yaml\n`,
        },
        'adopt patchwarden',
      );
    },
  ),
);

/** Production files enough to pass pre-commit's scan bound, one of them a tamper hit. */
function pastTheCap(): Record<string, string> {
  const files: Record<string, string> = { 'src/report.py': EXIT };
  for (let i = 0; i < 21; i++) files[`src/gen/m${i}.py`] = `x${i} = ${i}\n`;
  return files;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'a production change alone',
    site: plain,
    files: { 'src/app.ts': 'export const a = 3;\n' },
    expect: { 'pre-commit': 'accept', 'pre-push': 'accept', 'pre-receive': 'accept', gate: 'accept' },
  },
  {
    name: 'a malformed adoption baseline',
    site: plain,
    files: { '.patchwarden/baseline': 'not a baseline\n' },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file',
      'pre-receive': 'refuse guard-file',
      gate: 'refuse guard-file',
    },
  },
  {
    name: 'a malformed config',
    site: plain,
    files: { '.patchwarden.yml': 'version: 1\nzonez:\n  src: [src/**]\n' },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file',
      'pre-receive': 'refuse guard-file',
      gate: 'refuse guard-file',
    },
  },
  {
    name: 'a malformed fixture lock',
    site: plain,
    files: { 'fixtures/inputs.sha256': 'not a lock line\n' },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file',
      'pre-receive': 'refuse guard-file',
      gate: ['refuse error:fixtures guard-file', TABLE_ROWS],
    },
  },
  {
    // The hooks' plans stop at the guard-file refusal: no point goes on to scan with the broken lock in place.
    name: 'a malformed fixture lock committed with a tamper hit',
    site: plain,
    files: { 'fixtures/inputs.sha256': 'not a lock line\n', 'src/report.py': EXIT },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file mix',
      'pre-receive': 'refuse guard-file mix',
      gate: ['refuse error:fixtures guard-file mix tamper', TABLE_ROWS],
    },
  },
  {
    name: 'a mixed commit (production code and the registry)',
    site: plain,
    files: { 'src/app.ts': 'export const a = 4;\n', 'spec/rules.md': `${SPEC}# four\n` },
    expect: { 'pre-commit': 'refuse mix', 'pre-push': 'refuse mix', 'pre-receive': 'refuse mix', gate: 'refuse mix' },
  },
  {
    name: 'a malformed freeze ledger',
    site: plain,
    files: { 'freeze/signatures.yaml': 'version: 1\nfrozen: [\n' },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file',
      'pre-receive': 'refuse guard-file',
      gate: ['refuse error:ledger guard-file', TABLE_ROWS],
    },
  },
  {
    name: 'a range that mixes across commits (an oracle, then production code)',
    site: plain,
    before: { 'spec/rules.md': `${SPEC}# seven\n` },
    files: { 'src/app.ts': 'export const a = 7;\n' },
    expect: {
      'pre-commit': ['accept', ONE_COMMIT],
      'pre-push': 'refuse mix-range',
      'pre-receive': 'refuse mix-range',
      gate: 'refuse mix-range',
    },
  },
  {
    name: 'a symbolic link from production code into an oracle',
    site: plain,
    files: {},
    links: { 'src/rules.md': '../spec/rules.md' },
    expect: {
      'pre-commit': 'refuse symlink',
      'pre-push': 'refuse symlink',
      'pre-receive': 'refuse symlink',
      gate: 'refuse symlink',
    },
  },
  {
    name: 'a tamper hit',
    site: plain,
    files: { 'src/report.py': EXIT },
    expect: {
      'pre-commit': 'refuse tamper',
      'pre-push': 'refuse tamper',
      'pre-receive': 'refuse tamper',
      gate: 'refuse tamper',
    },
  },
  {
    name: "a tamper hit past pre-commit's scan bound",
    site: plain,
    files: pastTheCap(),
    expect: {
      'pre-commit': ['accept', SCAN_CAP],
      'pre-push': 'refuse tamper',
      'pre-receive': 'refuse tamper',
      gate: 'refuse tamper',
    },
  },
  {
    name: 'a broken fixture lock (a fixture changed, the lock not)',
    site: plain,
    files: { 'fixtures/input/case.json': '{"total": 11}\n' },
    expect: {
      'pre-commit': 'refuse fixtures',
      'pre-push': 'refuse fixtures',
      'pre-receive': 'refuse fixtures',
      gate: 'refuse fixtures',
    },
  },
  {
    name: 'an expected output beside the inputs folder, without fixtures.strict',
    site: plain,
    files: { 'fixtures/expected.json': '{"total": 10}\n' },
    expect: { 'pre-commit': 'accept', 'pre-push': 'accept', 'pre-receive': 'accept', gate: 'accept' },
  },
  {
    name: 'an expected output beside the inputs folder, under fixtures.strict',
    site: strictFixtures,
    files: { 'fixtures/expected.json': '{"total": 10}\n' },
    expect: {
      'pre-commit': 'refuse fixtures',
      'pre-push': 'refuse fixtures',
      'pre-receive': 'refuse fixtures',
      gate: 'refuse fixtures',
    },
  },
  {
    name: 'an unlocked file in the fixtures zone, under fixtures.strict',
    site: strictFixtures,
    files: { 'fixtures/notes.txt': 'where the cases came from\n' },
    expect: {
      'pre-commit': 'refuse fixtures',
      'pre-push': 'refuse fixtures',
      'pre-receive': 'refuse fixtures',
      gate: 'refuse fixtures',
    },
  },
  {
    name: 'a new commit on a branch whose mixed commit is in the adoption baseline',
    site: plain,
    from: 'old',
    files: { 'src/app.ts': 'export const a = 5;\n' },
    expect: { 'pre-commit': 'accept', 'pre-push': 'accept', 'pre-receive': 'accept', gate: 'accept' },
    says: { 'pre-push': BASELINED, 'pre-receive': BASELINED, gate: BASELINED },
  },
  {
    name: 'a new commit on a branch from before the fixture lock',
    site: plain,
    from: 'prelock',
    files: { 'src/app.ts': 'export const a = 6;\n' },
    expect: {
      'pre-commit': ['accept', FIXTURES_TOUCHED],
      'pre-push': 'refuse fixtures',
      'pre-receive': ['accept', FIXTURES_TOUCHED],
      gate: 'refuse fixtures',
    },
  },
  {
    name: 'a tamper hit on a branch of release, whose config turns the tamper layer off',
    site: plain,
    from: 'origin/release',
    base: 'origin/release',
    files: { 'src/report.py': EXIT },
    expect: {
      'pre-commit': ['accept', DEFAULT_BRANCH],
      'pre-push': 'refuse tamper',
      'pre-receive': 'refuse tamper',
      gate: ['accept', DEFAULT_BRANCH],
    },
  },
  {
    name: 'a mixed commit where the committed config does not parse',
    site: broken,
    files: { 'src/app.ts': 'export const a = 8;\n', 'spec/rules.md': `${SPEC}# eight\n` },
    expect: { 'pre-commit': 'refuse mix', 'pre-push': 'refuse mix', 'pre-receive': 'refuse mix', gate: 'refuse mix' },
    says: { 'pre-commit': FALLBACK, 'pre-push': FALLBACK, 'pre-receive': FALLBACK, gate: FALLBACK },
  },
  {
    name: 'the correction of a config that does not parse',
    site: broken,
    files: { '.patchwarden.yml': 'version: 1\n' },
    expect: { 'pre-commit': 'accept', 'pre-push': 'accept', 'pre-receive': 'accept', gate: 'accept' },
  },
  {
    name: "an owner's signed override of the mixing rule",
    site: owned,
    signed: true,
    message: 'hotfix\n\nPatchwarden-Override: production is down\n',
    files: { 'src/app.ts': 'export const a = 2;\n', 'spec/rules.md': `${SPEC}# hotfix\n` },
    expect: {
      'pre-commit': ['refuse mix', UNSIGNED_INDEX],
      'pre-push': 'accept',
      'pre-receive': 'accept',
      gate: 'accept',
    },
    says: { 'pre-push': OVERRIDDEN, 'pre-receive': OVERRIDDEN, gate: '"reason":"production is down"' },
  },
  {
    name: 'an oracle commit no owner signed',
    site: owned,
    files: { 'spec/rules.md': `${SPEC}# loosened\n` },
    expect: {
      'pre-commit': ['accept', UNSIGNED_INDEX],
      'pre-push': 'refuse owners-signature',
      'pre-receive': 'refuse owners-signature',
      gate: 'refuse owners-signature',
    },
  },
  {
    name: "a malformed allowed-signers file, in the owner's signed commit",
    site: owned,
    signed: true,
    files: { '.patchwarden/allowed_signers': `${OWNER} not-a-key\n` },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file',
      'pre-receive': 'refuse guard-file',
      gate: 'refuse guard-file',
    },
  },
  {
    name: 'a malformed invariant registry',
    site: proven,
    files: { 'spec/invariants.yaml': 'version: 1\ninvariants: [\n' },
    expect: {
      'pre-commit': ['stop', STOP_AT_COMMIT],
      'pre-push': 'refuse guard-file',
      'pre-receive': 'refuse guard-file',
      // The properties layer, which would read the registry, is not run once mixing refused.
      gate: 'refuse guard-file',
    },
  },
  {
    name: 'a production change its property does not describe',
    site: proven,
    files: { 'src/bill.mjs': `${FIXED_JS}export const currency = "EUR";\n` },
    expect: {
      'pre-commit': ['accept', NO_PROPERTIES_AT_COMMIT],
      'pre-push': 'refuse revert',
      'pre-receive': ['accept', NO_PROPERTIES_AT_SERVER],
      gate: 'refuse revert',
    },
  },
];

/** The rule ids a hook's text names (`refused [rule]`, or `[rule]` under a ref), sorted, once each. */
function verdictOf(r: Run): Verdict {
  if (r.code === 0) return 'accept';
  const said = r.stdout + r.stderr;
  const rules = [...said.matchAll(/^(?:remote: )?(?:patchwarden: refused |\s+)\[([a-z][a-z0-9.-]*)\]/gm)].map(
    (m) => m[1],
  );
  return rules.length ? `refuse ${[...new Set(rules)].sort().join(' ')}` : 'stop';
}

/** The gate's verdict from its JSON: each layer's violations' rules, and `error LAYER` for a layer that could not read its input. */
function gateVerdict(work: TempRepo, base: string): { verdict: Verdict; said: string } {
  const r = work.json(['gate', '--base', base]);
  const layers: { layer: string; status: string; violations?: { rule: string }[] }[] = r.out.layers ?? [];
  const rules = new Set(layers.flatMap((l) => (l.violations ?? []).map((v) => v.rule)));
  for (const l of layers) if (l.status === 'error') rules.add(`error:${l.layer}`);
  const verdict = r.code === 0 ? 'accept' : rules.size ? `refuse ${[...rules].sort().join(' ')}` : 'stop';
  const shown = layers.map((l) => `${l.layer}: ${l.status} ${JSON.stringify(l)}`).join('\n');
  return { verdict, said: `${shown}\noverrides: ${JSON.stringify(r.out.overrides)}\n${r.stderr}` };
}

/** Commits the scenario's files on its own branch through the real pre-commit hook, then without it if it refused. */
function commitThroughHook(site: Site, s: Scenario, branch: string): Run {
  const { work } = site;
  work.git(['checkout', '-q', '-b', branch, site.tips[s.from ?? ''] ?? s.from ?? 'origin/main']);
  if (s.before) work.commit(s.before, 'the commit before');
  for (const [file, content] of Object.entries(s.files)) work.write(file, content);
  for (const [link, target] of Object.entries(s.links ?? {})) symlinkSync(target, path.join(work.dir, link));
  work.git(['add', '-A']);
  const sign = s.signed ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${owner.file}`] : [];
  const env = s.signed ? { GIT_AUTHOR_EMAIL: OWNER, GIT_COMMITTER_EMAIL: OWNER } : {};
  const commit = (verify: boolean) =>
    work.git(
      [
        ...sign,
        'commit',
        '-q',
        ...(verify ? [] : ['--no-verify']),
        ...(s.signed ? ['-S'] : []),
        '-m',
        s.message ?? s.name,
      ],
      {
        env,
        allowFail: verify,
      },
    );
  const r = commit(true);
  if (r.code !== 0) commit(false);
  return r;
}

/** Each point's verdict on the scenario, with what it said. */
function judged(s: Scenario, n: number): Record<Point, { verdict: Verdict; said: string }> {
  const site = s.site();
  const { work } = site;
  const branch = `s${n}`;
  const hook = commitThroughHook(site, s, branch);
  const prePush = work.git(['push', 'mirror', branch], { allowFail: true });
  const preReceive = work.git(['push', '--no-verify', 'origin', branch], { allowFail: true });
  const said = (r: Run) => r.stdout + r.stderr;
  return {
    'pre-commit': { verdict: verdictOf(hook), said: said(hook) },
    'pre-push': { verdict: verdictOf(prePush), said: said(prePush) },
    'pre-receive': { verdict: verdictOf(preReceive), said: said(preReceive) },
    gate: gateVerdict(work, s.base ?? 'origin/main'),
  };
}

test.after(() => {
  cleanup();
  keys.rm();
});

SCENARIOS.forEach((s, n) => {
  test(s.name, () => {
    const got = judged(s, n);
    const wrong = POINTS.filter((p) => {
      const cell = s.expect[p];
      return got[p].verdict !== (typeof cell === 'string' ? cell : cell[0]);
    });
    // A stop is the hook's own refusal of a staged guard file, never a crash.
    const says = { ...s.says };
    for (const p of POINTS) if (got[p].verdict === 'stop') says[p] ??= 'correct it and stage it again';
    for (const [p, text] of Object.entries(says) as [Point, string][])
      if (!got[p].said.includes(text) && !wrong.includes(p)) wrong.push(p);
    assert.ok(
      !wrong.length,
      wrong
        .map(
          (p) =>
            `${p}: expected ${JSON.stringify(s.expect[p])}${says[p] ? ` saying ${says[p]}` : ''}, got ${got[p].verdict}\n${got[p].said}`,
        )
        .join('\n----\n'),
    );
  });
});

test('the table marks why each point differs from its row', () => {
  for (const s of SCENARIOS) {
    const verdicts = POINTS.map((p) => s.expect[p]);
    const plainCells = verdicts.filter((c): c is string => typeof c === 'string');
    // The unmarked cells of a row agree; a cell that differs carries its reason.
    assert.is(new Set(plainCells).size <= 1, true, `${s.name}: unmarked cells disagree: ${plainCells.join(', ')}`);
    for (const c of verdicts)
      if (typeof c !== 'string') assert.ok(c[1].length > 0, `${s.name}: a marked cell without its reason`);
  }
});

test.run();
