// `patchwarden init`: a starter config and the hooks, idempotently.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parse } from '../common/args.js';
import { emit } from '../common/output.js';
import { CannotJudge, UsageError } from '../common/errors.js';
import { CONFIG_FILE } from '../zones/names.js';
import type { Config } from '../config/schema.js';
import { loadConfig } from '../config/load.js';
import { parseConfig } from '../config/parse.js';
import { openRepo, worktreeRoot, type Repo } from '../git/repo.js';
import { isIgnored, isTracked, workingFiles } from '../git/files.js';
import { currentTips } from '../git/refs.js';
import { baselineText } from '../mixing/baseline.js';
import { BASELINE_FILE } from '../zones/names.js';
import { HOOKS, hookSetup, installHook, sharedHooksPath, type HookSetup } from './install.js';
import { editPackageJson } from './package-json.js';
import { installManager, wireManager } from './managers.js';
import { keepFormattersOut } from './formatters.js';
import { starterConfig } from './starter.js';
import {
  addSigner,
  type OwnerKey,
  ownerEmail,
  readOwnerKey,
  SIGNERS_FILE,
  setSignersKey,
  signingKeyCandidate,
} from './owner-key.js';
import { codeownersFile, ownerLines, teamHandleProblem, uncovered, usesSections } from './codeowners.js';
import { newLedger as ledgerText } from '../freeze/edit.js';
import { counted } from '../common/text.js';
import { zoneFindings } from './zone-check.js';
import { classifierFor } from '../config/classifier.js';

export const help = `usage: patchwarden init [--yes] [--no-chain] [--if-repo] [--baseline] [--src GLOB]... [--spec GLOB]...
                        [--fixtures GLOB]... [--owner-key PATH] [--codeowners @ORG/TEAM] [--format text|json] [-C DIR]

Writes a starter ${CONFIG_FILE} (unless one exists) whose src zone is read from
the project's metadata (pyproject.toml, setup.cfg, a package folder with
__init__.py, pnpm-workspace.yaml, yarn and npm workspaces, go.mod, Cargo
workspaces), then src/, lib/, ...; says how many files it holds, and exits 1
when it holds none while the project has files no zone claims (never under
--if-repo or with a config already there: doctor fails then); locks the
fixtures when there are some and no lock yet, and installs the pre-commit and
pre-push hooks:
  - through lefthook or the pre-commit framework when the repository uses one:
    their config gets patchwarden's commands and their install is run;
  - into husky (.husky/pre-commit, .husky/pre-push) when the repository uses husky 9;
  - else into the folder git runs hooks from (core.hooksPath, or .git/hooks),
    and, in a project with a package.json, a "prepare" script that installs
    them again on every clone's npm install.
A hook that patchwarden did not write is never overwritten: in a husky file the
guard is added before your commands; a plain git hook is kept as
<hook>.pre-patchwarden and run first (--no-chain refuses instead).
Running it twice changes nothing.

  --yes        do it without asking (needed when not on a terminal)
  --no-chain   refuse rather than chain to an existing foreign hook
  --if-repo    outside a git repository do nothing and pass (for "prepare",
               which also runs where there is no .git, such as a packed install)
  --src GLOB, --spec GLOB, --fixtures GLOB
               the zone's globs in the starter, in place of what init finds
               (each may be repeated); tests/ is left free either way
  --owner-key PATH
               the public SSH key you sign commits with (a private key's path
               leads to its .pub): added to the owners' allowed-signers file
               (${SIGNERS_FILE}, or the one owners.signers names), and
               owners.signers set. Without it, init only shows your signing
               key as a candidate and asks on a terminal; --yes alone never
               makes anyone an owner (an agent may be the one running init)
  --codeowners @ORG/TEAM
               give every oracle path no CODEOWNERS rule covers your team as
               owner: a team handle (@org/team; a GitLab group may be @group),
               never a person, an email or a placeholder: the lines are appended to the
               CODEOWNERS file the host reads (.github/CODEOWNERS when there
               is none, .gitlab/CODEOWNERS in a GitLab project)
  --baseline   adopting on a repository with history: record the tips of every
               branch and tag in ${BASELINE_FILE} (commit it with the config);
               the commits reachable from them are never judged, every later
               one is (docs/hooks.md#adopting-on-a-repository-with-history)

Where the project runs a formatter, init adds the fixtures and freeze folders
to .prettierignore and to .pre-commit-config.yaml's exclude (when it has
none), and names the lint-staged globs that reach them.

A new project also gets an empty freeze ledger of version 2, the stricter
defaults (docs/freeze.md); an existing ledger is never touched. A new config
turns ownership on (owners.required, known agents by identity and trailer):
until an owner's key is listed, every oracle commit is refused at the server
and the gate. It also sets fixtures.strict: the whole fixtures zone holds
locked inputs only (docs/fixtures.md).`;

/** The one line that gives every clone the hooks: npm runs "prepare" after each install. */
export const PREPARE = 'patchwarden init --yes --if-repo';

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(
    args,
    {
      yes: { type: 'boolean', short: 'y' },
      'no-chain': { type: 'boolean' },
      'if-repo': { type: 'boolean' },
      baseline: { type: 'boolean' },
      src: { type: 'string', multiple: true },
      spec: { type: 'string', multiple: true },
      fixtures: { type: 'string', multiple: true },
      codeowners: { type: 'string' },
      'owner-key': { type: 'string' },
    },
    false,
  );
  const ownerKey = values['owner-key'] === undefined ? null : readOwnerKey(values['owner-key']);
  const team = values.codeowners;
  let repo;
  try {
    repo = await openRepo(common.dir);
  } catch (err) {
    if (values['if-repo'] && err instanceof CannotJudge) return 0;
    throw err;
  }
  const root = worktreeRoot(repo);
  // Before anything is written: a person or a placeholder as the owner of every oracle is worse than none.
  const teamProblem = team === undefined ? null : teamHandleProblem(team, hostIsGitLab(root));
  if (teamProblem) throw new UsageError(teamProblem);
  const setup = await hookSetup(repo, root);
  const shared = sharedHooksPath(setup);
  if (shared) {
    // npm runs "prepare" on every install: it says so, and does not fail the install.
    if (values['if-repo']) {
      process.stderr.write(`patchwarden: ${shared}\n`);
      return 0;
    }
    throw new CannotJudge(shared);
  }
  const configFile = common.config ? path.resolve(common.config) : path.join(root, CONFIG_FILE);
  if (!values.yes) {
    if (!process.stdin.isTTY) throw new UsageError('init changes files; rerun with --yes');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(
      `install patchwarden hooks into ${setup.manager?.config ?? setup.installDir}${existsSync(configFile) ? '' : ` and write ${CONFIG_FILE}`}? [y/N] `,
    );
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) return 1;
  }
  const actions: string[] = [];
  const owner = ownerKey ?? (values.yes ? null : await confirmCandidate(repo));
  const fresh = !existsSync(configFile);
  if (!fresh) actions.push(`${CONFIG_FILE}: kept as it is`);
  else {
    const zones = { src: values.src, spec: values.spec, fixtures: values.fixtures };
    const text = starterConfig(root, zones, owner ? SIGNERS_FILE : null);
    // The globs are checked as the hooks will read them, before anything is written.
    const written = parseConfig(text, CONFIG_FILE);
    writeFileSync(configFile, text);
    const src = written.zones.find((z) => z.name === 'src')?.globs.join(', ');
    actions.push(`${CONFIG_FILE}: written, production code (src) is ${src} (review it, then commit it on its own)`);
    actions.push(...newLedger(root, written));
  }
  // A rerun (npm's "prepare" runs init on every install) says nothing of owners unless given a key: doctor does.
  if (fresh || owner) actions.push(...(await setUpOwner(repo, common.config, configFile, root, owner)));
  if (values.baseline) actions.push(await writeBaseline(repo, root));
  if (team !== undefined) actions.push(...(await writeCodeowners(repo, common.config, root, team)));
  actions.push(...(await lockFixtures(repo, common.config)));
  // npm's "prepare" reruns init on every install: an existing project's ignore files change only when asked.
  if (fresh || !values['if-repo']) actions.push(...(await formattersOut(repo, common.config, root)));
  actions.push(...(await ignoreInstallFolder(repo, root)));
  actions.push(...installHooks(setup, root, !values['no-chain']));
  const zoned = await srcZone(repo, common.config);
  // A config init did not write, or npm's "prepare", must not fail on it: doctor does.
  const ok = zoned.ok || !zoned.missed || !fresh || Boolean(values['if-repo']);
  const mark = zoned.ok ? '' : zoned.missed ? 'error: ' : 'warning: ';
  return emit(common.format, {
    ok,
    json: {
      style: setup.style,
      manager: setup.manager?.name ?? null,
      hooks_dir: setup.installDir,
      actions,
      src: { ok: zoned.ok, detail: zoned.detail },
    },
    text: [...actions.map((a) => `patchwarden: ${a}`), `patchwarden: ${mark}${zoned.detail}`],
  });
}

/**
 * What the src zone matches in this project, as doctor says it, and whether
 * it missed code: an empty src zone where the project has files no zone
 * claims (dotfiles and npm's package files aside), rather than no files yet.
 */
async function srcZone(
  repo: Repo,
  explicit: string | undefined,
): Promise<{ ok: boolean; missed: boolean; detail: string }> {
  let config;
  try {
    config = await loadConfig(repo, explicit);
  } catch (err) {
    if (!(err instanceof CannotJudge)) throw err;
    return { ok: false, missed: true, detail: `zones not checked: ${err.describe()}` };
  }
  const found = (await zoneFindings(repo, worktreeRoot(repo), config)).find((f) => f.check === 'zones.src');
  if (!found) return { ok: false, missed: true, detail: 'src zone: none is set' };
  if (found.ok) return { ok: true, missed: false, detail: `src zone: ${found.detail}` };
  const files = await workingFiles(repo);
  const classify = await classifierFor(repo, config);
  const own = files.filter((f) => !/(^|\/)\./.test(f) && !/^package(-lock)?\.json$/.test(f) && !classify(f));
  return {
    ok: false,
    missed: own.length > 0,
    detail: `src zone: ${found.detail}${own.length ? ` (files no zone claims: ${own.slice(0, 5).join(', ')}${own.length > 5 ? ', …' : ''})` : ''}`,
  };
}

function installHooks(setup: HookSetup, root: string, chain: boolean): string[] {
  if (setup.manager) return [wireManager(root, setup.manager), installManager(root, setup.manager)];
  const actions = HOOKS.map((hook) => installHook(setup, hook, chain, root));
  if (setup.style === 'husky' && setup.hooksPath === null)
    actions.push('husky is not set up in this clone yet: run `npx husky` (or npm install) so git runs .husky/');
  if (setup.style === 'git') actions.push(...addPrepare(root));
  return actions;
}

/** The config as init left it, or why it cannot be read: init goes on and says so. */
async function readableConfig(repo: Repo, explicit: string | undefined): Promise<Config | string> {
  try {
    return await loadConfig(repo, explicit);
  } catch (err) {
    if (!(err instanceof CannotJudge)) throw err;
    return err.describe();
  }
}

/** On a terminal, the committer's own signing key, if they say it is an owner's. */
async function confirmCandidate(repo: Repo): Promise<OwnerKey | null> {
  const candidate = await signingKeyCandidate(repo);
  if (!candidate || !process.stdin.isTTY) return null;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`make your signing key ${candidate} an owner's key? [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim()) ? readOwnerKey(candidate) : null;
}

/** The owner's key in the signers file and owners.signers set; without one, what ownership still needs. */
async function setUpOwner(
  repo: Repo,
  explicit: string | undefined,
  configFile: string,
  root: string,
  owner: OwnerKey | null,
): Promise<string[]> {
  const config = await readableConfig(repo, explicit);
  if (typeof config === 'string') return [`owners not set up: ${config}`];
  if (!owner) {
    if (config.owners.signers !== null) return [];
    const candidate = await signingKeyCandidate(repo);
    return [
      `owners: no owner's key given, so ${config.owners.required ? 'every oracle commit is refused until one is' : "the oracles are anyone's to change"}; the owner runs patchwarden init --owner-key ${candidate ?? 'PATH/TO/KEY.pub'}${candidate ? ' (your git signing key)' : ''} and commits what it writes, signed`,
    ];
  }
  const signers = config.owners.signers ?? SIGNERS_FILE;
  const added = addSigner(root, signers, await ownerEmail(repo), owner);
  const edited = config.owners.signers === null ? setSignersKey(readFileSync(configFile, 'utf8'), signers) : null;
  if (edited !== null) writeFileSync(configFile, edited);
  // Running it again with the same key changes nothing, and says nothing.
  if (!added && edited === null) return [];
  return [
    ...(added ? [added] : []),
    ...(edited !== null ? [`${CONFIG_FILE}: owners.signers set to ${signers}`] : []),
    `owners: commit ${signers}${edited !== null ? ` and ${CONFIG_FILE}` : ''} on their own, signed (git commit -S); a teammate becomes an owner when an owner appends their "EMAIL namespaces="git" KEY" line to ${signers} in a signed commit`,
  ];
}

/** The tips at adoption; an existing baseline is kept: widening it is an owner's reviewed edit, not a rerun. */
async function writeBaseline(repo: Repo, root: string): Promise<string> {
  const file = path.join(root, BASELINE_FILE);
  if (existsSync(file)) return `${BASELINE_FILE}: kept as it is`;
  const tips = await currentTips(repo);
  if (!tips.length)
    return `${BASELINE_FILE}: not written, the repository has no branch or tag yet (nothing predates the guard)`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, baselineText(tips));
  return `${BASELINE_FILE}: written with ${counted(tips.length, 'branch and tag tip')}; fetch every branch first so none is missing (review it, and commit it with the config)`;
}

/**
 * npm's install folder beside a package.json, unless git already ignores or
 * tracks it: else the README's `git add -A` commits it, the guard's binary
 * among it.
 */
async function ignoreInstallFolder(repo: Repo, root: string): Promise<string[]> {
  if (!existsSync(path.join(root, 'package.json'))) return [];
  if ((await isTracked(repo, 'node_modules')) || (await isIgnored(repo, 'node_modules/'))) return [];
  const file = path.join(root, '.gitignore');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  writeFileSync(file, `${text}${text && !text.endsWith('\n') ? '\n' : ''}node_modules/\n`);
  return [".gitignore: added node_modules/ (npm's install folder is generated; commit .gitignore with the config)"];
}

/** A fresh clone has no hooks; npm runs "prepare" on every install, so it puts them back. */
function addPrepare(root: string): string[] {
  const edit = editPackageJson(root);
  if (edit === null) return [];
  if (edit === 'invalid')
    return [`package.json does not parse; add "prepare": "${PREPARE}" to its scripts so every clone gets the hooks`];
  const { pkg } = edit;
  const prepare = pkg.scripts?.prepare;
  if (prepare?.includes('patchwarden init')) return [];
  pkg.scripts = { ...pkg.scripts, prepare: prepare ? `${prepare} && ${PREPARE}` : PREPARE };
  edit.save();
  return [`package.json: "prepare": "${pkg.scripts.prepare}" installs the hooks on every clone's npm install`];
}

/** Fixtures without a lock would stop the first push; a lock written now is reviewed with the config. */
async function lockFixtures(
  repo: Awaited<ReturnType<typeof openRepo>>,
  explicit: string | undefined,
): Promise<string[]> {
  const config = await readableConfig(repo, explicit);
  if (typeof config === 'string') return [`fixtures not locked: ${config}; fix it, then run \`patchwarden doctor\``];
  const root = worktreeRoot(repo);
  if (existsSync(path.join(root, config.fixtures.lock))) return [];
  // Under fixtures.strict the lock covers the whole fixtures zone, so files there get one too.
  const [{ lockWorktree }, { worktreeFiles }] = await Promise.all([
    import('../fixtures/command.js'),
    import('../fixtures/sources.js'),
  ]);
  if (!worktreeFiles(root, config).length && !existsSync(path.join(root, config.fixtures.inputs))) return [];
  const { forbidden, files } = await lockWorktree(repo, config);
  if (forbidden.length)
    return [
      `${config.fixtures.strict ? 'the fixtures zone' : config.fixtures.inputs}: ${forbidden.join(', ')} look like outputs, not inputs, so no lock was written; move them out (an input that only looks like one goes in fixtures.forbid_except), then run \`patchwarden fixtures lock\``,
    ];
  return [
    `${config.fixtures.lock}: written for ${counted(files, 'fixture')} (review it, and commit it with the config)`,
  ];
}

/** The formatters kept off the fixtures and freeze folders (adopt/formatters.ts). */
async function formattersOut(repo: Repo, explicit: string | undefined, root: string): Promise<string[]> {
  const config = await readableConfig(repo, explicit);
  return typeof config === 'string' ? [] : keepFormattersOut(root, config);
}

/** A new project's ledger: version 2, so the stricter defaults hold from the first row. */
function newLedger(root: string, config: Config): string[] {
  const file = path.join(root, config.freeze.ledger);
  if (existsSync(file)) return [];
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    config.freeze.ledger.endsWith('.json') ? '{\n  "version": 2,\n  "records": []\n}\n' : ledgerText(2),
  );
  return [
    `${config.freeze.ledger}: written, version 2 (rows need replay evidence, a rename needs its owner's edit; commit it with the config)`,
  ];
}

/** GitLab reads the CODEOWNERS here: a GitLab pipeline, .gitlab/CODEOWNERS, or a file with GitLab's sections. */
function hostIsGitLab(root: string): boolean {
  if (existsSync(path.join(root, '.gitlab-ci.yml'))) return true;
  const file = codeownersFile(root);
  return file !== null && (file.startsWith('.gitlab/') || usesSections(readFileSync(path.join(root, file), 'utf8')));
}

/** Every oracle path without an owner gets `owner`, in the CODEOWNERS file the host reads. */
async function writeCodeowners(
  repo: Awaited<ReturnType<typeof openRepo>>,
  explicit: string | undefined,
  root: string,
  owner: string,
): Promise<string[]> {
  const config = await loadConfig(repo, explicit);
  const fallback = existsSync(path.join(root, '.gitlab-ci.yml')) ? '.gitlab/CODEOWNERS' : '.github/CODEOWNERS';
  const { file, missing } = await uncovered(repo, root, config, fallback);
  if (!missing.length) return [`${file}: every oracle path has an owner already`];
  const target = file ?? fallback;
  const full = path.join(root, target);
  const before = existsSync(full) ? readFileSync(full, 'utf8') : '';
  const lines = ownerLines(missing, owner, usesSections(before));
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(
    full,
    `${before}${before && !before.endsWith('\n') ? '\n' : ''}${before ? '\n' : ''}${lines.join('\n')}\n`,
  );
  return [
    `${target}: ${counted(missing.length, 'oracle path')} owned by ${owner} (${missing.map((m) => m.pattern).join(', ')}); review it and commit it on its own`,
  ];
}
