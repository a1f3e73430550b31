// `patchwarden doctor`: would the hooks run, and are the guard's files valid?
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../common/args.js';
import { emit } from '../common/output.js';
import { CannotJudge } from '../common/errors.js';
import { loadConfig } from '../config/load.js';
import { openRepo, worktreeRoot, type Repo } from '../git/repo.js';
import { fixtureViolations, verifyFixtures } from '../fixtures/verify.js';
import { clockNow } from '../freeze/clock.js';
import { parseLedger, readWorktreeLedger } from '../freeze/ledger.js';
import { bindLedger, evidenceFolder } from '../freeze/bound.js';
import { parseRegistry } from '../properties/registry.js';
import { TYPED_IDENTITY } from '../owners/pusher.js';
import { SET_UP_OWNERS, ownersUnset } from '../owners/rule.js';
import { parseAllow } from '../tamper/allow.js';
import { ALLOW_FILE } from '../config/tamper-ids.js';
import type { Config } from '../config/schema.js';
import { CONFIG_FILE } from '../zones/names.js';
import { CHAINED, HOOKS, hookSetup, sharedHooksPath, isExecutable, isOurs, type HookSetup } from './install.js';
import { MANAGED_HOOKS, managerHookInstalled, runsRootBinary, wiredHooks, type Manager } from './managers.js';
import { counted, shellQuote } from '../common/text.js';
import { zoneFindings } from './zone-check.js';
import { harnessFindings } from './harness-check.js';
import { casesFinding, codeownersFinding, evidenceFinding } from './method-check.js';
import { seedFinding } from './seed-check.js';
import { sealedFindings } from './sealed-check.js';
import { vendorFindings } from './vendor-check.js';

export const help = `usage: patchwarden doctor [--format text|json] [--config PATH] [-C DIR]

Says whether the hooks are installed, executable and would run (naming what
stops them: HUSKY=0, a linked worktree without husky's .husky/_, core.hooksPath
pointing elsewhere, no patchwarden binary), whether the src zone matches the
project's files (and which oracle zones hold files no owner guards), whether
the test harness is in the guard zone (config version 2) with every setup
file its configs name, and
whether the config, the freeze
ledger, the fixture lock, the invariant registry and the tamper allow rows
(.patchwarden/tamper-allow.yaml) in the working tree are valid.
It also says which freeze rows carry no replay evidence (what a version 2
ledger refuses), which oracle paths no CODEOWNERS rule gives an owner (with
the lines to add), and, running properties.command once, which invariants
ran a single case, and warns when sealing is off and neither
properties.command nor a spec or runner config file names $PROP_SEED (the
gate's fresh seed would change no input). It says whether this machine can run properties.sealed: kernel
(Landlock) and, with sealing on, names the property files that mock or patch
what the sealed worker runs.
Exit 0 when all is in order, 1 when something is not.`;

export interface Finding {
  check: string;
  ok: boolean;
  /** In order, but weaker than it may look: said plainly, without failing. */
  warn?: boolean;
  detail: string;
}

export async function run(args: string[]): Promise<number> {
  const { common } = parse(args, {}, false);
  const repo = await openRepo(common.dir);
  const root = worktreeRoot(repo);
  const setup = await hookSetup(repo, root);
  // A linked worktree shares the main worktree's git directory, and its node_modules.
  const mainRoot = path.basename(repo.commonDir) === '.git' ? path.dirname(repo.commonDir) : root;
  const findings = [...hookFindings(setup, root, mainRoot), binaryFinding(root, mainRoot), ...vendorFindings(root)];
  const config = await configFinding(repo, common.config, findings);
  if (config) {
    findings.push(
      ...(await zoneFindings(repo, root, config)),
      ...(await harnessFindings(repo, root, config)),
      ...(await codeownersFinding(repo, root, config)),
      ...(await seedFinding(repo, root, config)),
      ...(await sealedFindings(repo, root, config)),
      ...(await casesFinding(repo, root, config)),
      ...(await evidenceFinding(repo, config)),
    );
    findings.push(...(await oracleFindings(repo, config)), ...strictFixturesFinding(config), ...ownersFindings(config));
  }
  const ok = findings.every((f) => f.ok);
  const text = findings.map((f) => `${!f.ok ? 'PROBLEM' : f.warn ? 'WARNING' : 'ok     '} ${f.check}: ${f.detail}`);
  return emit(common.format, { ok, json: { style: setup.style, checks: findings }, text });
}

function hookFindings(setup: HookSetup, root: string, mainRoot: string): Finding[] {
  const findings: Finding[] = [];
  const shared = sharedHooksPath(setup);
  if (shared) findings.push({ check: 'core.hooksPath', ok: false, detail: shared });
  if (setup.manager) return [...findings, ...managerFindings(setup, setup.manager, root)];
  if (setup.style === 'husky') {
    const wrappers = path.join(root, '.husky', '_');
    if (setup.hooksPath === null)
      findings.push({
        check: 'husky',
        ok: false,
        detail:
          'core.hooksPath is not set, so git does not run .husky/ (npm install sets it through husky\'s "prepare"); run `npx husky`',
      });
    else if (!existsSync(path.join(wrappers, 'h'))) {
      // A linked worktree has no node_modules of its own: the main worktree's husky writes .husky/_ here.
      const husky = [path.join(root, 'node_modules/.bin/husky'), path.join(mainRoot, 'node_modules/.bin/husky')].find(
        existsSync,
      );
      findings.push({
        check: 'husky',
        ok: false,
        detail: `${path.relative(root, wrappers)}/ is missing in this worktree (a linked worktree or a fresh clone before npm install), so git runs no hook here; run \`${husky && !husky.startsWith(root + path.sep) ? shellQuote(husky) : 'npx husky'}\``,
      });
    }
    if (process.env.HUSKY === '0')
      findings.push({
        check: 'husky',
        ok: false,
        detail: 'HUSKY=0 is set in this environment: husky skips every hook; run `unset HUSKY`',
      });
  } else if (setup.hooksPath !== null && !shared) {
    findings.push({ check: 'core.hooksPath', ok: true, detail: `git runs hooks from ${setup.hooksPath}` });
  }
  for (const hook of HOOKS) {
    const file = path.join(setup.installDir, hook);
    const shown = path.relative(root, file) || file;
    let problem: string | null = null;
    if (!existsSync(file)) problem = `${shown} does not exist; run \`patchwarden init --yes\``;
    else if (!isOurs(file))
      problem = `${shown} is not patchwarden's hook; to chain to it, run \`patchwarden init --yes\``;
    else if (setup.style === 'git' && !isExecutable(file))
      problem = `${shown} is not executable, so git skips it; run \`chmod +x ${shown}\``;
    const chained = setup.style === 'git' && existsSync(file + CHAINED) ? ` (runs ${hook}${CHAINED} first)` : '';
    findings.push({
      check: hook,
      ok: problem === null,
      detail: problem ?? `${shown} installed and would run${chained}`,
    });
  }
  return findings;
}

/** Under lefthook or the pre-commit framework: their config runs the guard, and their hooks are in git's folder. */
function managerFindings(setup: HookSetup, m: Manager, root: string): Finding[] {
  const wired = wiredHooks(root, m);
  const linked: Finding[] = runsRootBinary(root, m)
    ? [
        {
          check: m.name,
          ok: true,
          warn: true,
          detail: `${m.config} runs node_modules/.bin/patchwarden by its path from the root, which fails in a linked worktree (git worktree add: no node_modules there); use the command in docs/hooks.md (${m.name === 'lefthook' ? 'lefthook' : 'the pre-commit framework'}), which falls back to the main worktree's`,
        },
      ]
    : [];
  return [...linked, ...managerHookFindings(setup, m, root, wired)];
}

function managerHookFindings(setup: HookSetup, m: Manager, root: string, wired: Set<string>): Finding[] {
  return MANAGED_HOOKS.map((hook) => {
    const file = path.join(setup.gitHooksDir, hook);
    const shown = path.relative(root, file) || file;
    const problem = !wired.has(hook)
      ? `${m.config} does not run \`patchwarden ${hook}\`; run \`patchwarden init --yes\``
      : !managerHookInstalled(file, m)
        ? `${shown} is not ${m.name}'s hook, so ${m.config} does not run; run \`${m.install}\``
        : !isExecutable(file)
          ? `${shown} is not executable, so git skips it; run \`chmod +x ${shown}\``
          : null;
    return { check: hook, ok: problem === null, detail: problem ?? `runs through ${m.name} (${m.config})` };
  });
}

function binaryFinding(root: string, mainRoot: string): Finding {
  const pinned = process.env.PATCHWARDEN_BIN;
  if (pinned)
    return isExecutable(pinned)
      ? { check: 'binary', ok: true, detail: `${pinned} (PATCHWARDEN_BIN)` }
      : {
          check: 'binary',
          ok: false,
          detail: `PATCHWARDEN_BIN=${pinned} is not an executable file; run \`unset PATCHWARDEN_BIN\``,
        };
  const local = path.join(root, 'node_modules', '.bin', 'patchwarden');
  if (existsSync(local)) return { check: 'binary', ok: true, detail: 'node_modules/.bin/patchwarden' };
  const main = path.join(mainRoot, 'node_modules', '.bin', 'patchwarden');
  if (existsSync(main)) return { check: 'binary', ok: true, detail: `${main} (the main worktree's)` };
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .find((d) => d && isExecutable(path.join(d, 'patchwarden')));
  return onPath
    ? { check: 'binary', ok: true, detail: `${path.join(onPath, 'patchwarden')} (from PATH)` }
    : {
        check: 'binary',
        ok: false,
        detail: `patchwarden is neither in node_modules/.bin nor on PATH: the hooks would block every commit; run \`${listed(root) ? 'npm install' : 'npm install --save-dev patchwarden'}\``,
      };
}

/** Whether the project's package.json lists patchwarden (then a plain npm install brings it). */
function listed(root: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    return Boolean(pkg.devDependencies?.patchwarden || pkg.dependencies?.patchwarden);
  } catch {
    return false;
  }
}

/**
 * owners.required without a signers file is a problem; a config without the
 * key gets a note naming it; owners.agents without owners.signers trusts
 * typed identities, except on a server that authenticates pushers.
 */
function ownersFindings(config: Config): Finding[] {
  const unset = ownersUnset(config.owners);
  if (unset) return [{ check: 'owners', ok: false, detail: unset }];
  if (config.owners.signers !== null) return [];
  const findings: Finding[] = [];
  if (config.owners.agents.length)
    findings.push({
      check: 'owners',
      ok: true,
      warn: true,
      detail: `${TYPED_IDENTITY}. Locally and in CI that is always so; only the server hook on GitLab, Gitea or GitHub Enterprise Server (GL_USERNAME, GITEA_PUSHER_NAME/EMAIL, GITHUB_USER_LOGIN) also matches the authenticated pusher`,
    });
  findings.push({
    check: 'owners',
    ok: true,
    warn: true,
    detail: `no owner is set up, so the oracles are anyone's to change: ${SET_UP_OWNERS}; owners.required: true then makes a missing owner a refusal`,
  });
  return findings;
}

/** A config from before fixtures.strict: a note naming the key, never a problem (it judges as before). */
function strictFixturesFinding(config: Config): Finding[] {
  if (!config.present || config.fixtures.strict) return [];
  return [
    {
      check: 'fixtures',
      ok: true,
      warn: true,
      detail: `fixtures.strict is not set, so the lock covers ${config.fixtures.inputs} alone: an output-shaped file elsewhere in the fixtures zone (fixtures/expected.json) or an unlocked one there passes; an owner sets \`strict: true\` under \`fixtures:\` in ${CONFIG_FILE}, runs \`patchwarden fixtures lock\` and commits both, signed`,
    },
  ];
}

async function configFinding(repo: Repo, explicit: string | undefined, findings: Finding[]): Promise<Config | null> {
  try {
    const config = await loadConfig(repo, explicit);
    findings.push({
      check: 'config',
      ok: true,
      detail: config.present
        ? `${config.source} is valid`
        : `no ${config.source}: defaults apply (patchwarden init writes one)`,
    });
    return config;
  } catch (err) {
    if (!(err instanceof CannotJudge)) throw err;
    findings.push({
      check: 'config',
      ok: false,
      detail: `${err.describe()}; fix it, or go back to the committed one: \`git checkout -- ${explicit ?? CONFIG_FILE}\``,
    });
    return null;
  }
}

/** The oracle files in the working tree, each checked by its own layer's code. */
async function oracleFindings(repo: Repo, config: Config): Promise<Finding[]> {
  const root = worktreeRoot(repo);
  const checks: [string, () => Promise<string>][] = [
    [
      'ledger',
      async () => {
        const { text } = await readWorktreeLedger(repo, config);
        if (text === null) return `no ${config.freeze.ledger} (no freezes)`;
        // Each row's evidence file is re-read as the gate reads it (freeze/bound.ts).
        const parsed = parseLedger(text, config.freeze.ledger, config, clockNow());
        const { problems } = await bindLedger(repo, config, parsed, { kind: 'worktree' });
        if (problems.length)
          throw new CannotJudge(
            `${counted(problems.length, 'broken row')}; first: ${problems[0].message}; fix each row that \`patchwarden freeze check\` names, or run \`git checkout -- ${problems[0].rule === 'ledger-evidence' ? `${config.freeze.ledger} ${evidenceFolder(config)}` : config.freeze.ledger}\``,
          );
        return `${config.freeze.ledger} is valid`;
      },
    ],
    [
      'fixtures',
      async () => {
        const report = await verifyFixtures(repo, config, { kind: 'worktree' });
        const off = fixtureViolations(report, config, 'the working tree');
        if (off.length)
          throw new CannotJudge(
            `${off.map((v) => v.message).join('; ')}; when the change is intended, run \`patchwarden fixtures lock\``,
          );
        return `${config.fixtures.lock} agrees with ${config.fixtures.inputs}`;
      },
    ],
    [
      'registry',
      async () => {
        const file = path.join(root, config.properties.invariants);
        if (!existsSync(file)) {
          if (config.properties.command)
            throw new CannotJudge(
              `properties.command is set but ${config.properties.invariants} does not exist; write the registry (docs/revert-check.md), or comment out properties.command: \`$EDITOR ${CONFIG_FILE}\``,
            );
          return `no ${config.properties.invariants} (no properties configured)`;
        }
        const registry = parseRegistry(readFileSync(file, 'utf8'), config.properties.invariants);
        // The gate refuses to judge a registry that nothing runs.
        if (!config.properties.command)
          throw new CannotJudge(
            `${config.properties.invariants} lists invariants but properties.command is not set, so nothing checks them; set it: \`$EDITOR ${CONFIG_FILE}\``,
          );
        return `${config.properties.invariants} is valid (${counted(registry.invariants.length, 'invariant')})`;
      },
    ],
    [
      'tamper-allow',
      async () => {
        const file = path.join(root, ALLOW_FILE);
        if (!existsSync(file)) return `no ${ALLOW_FILE} (no tamper hits allowed)`;
        return `${ALLOW_FILE} is valid (${counted(parseAllow(readFileSync(file, 'utf8'), ALLOW_FILE).length, 'row')})`;
      },
    ],
  ];
  const files: Record<string, string> = {
    ledger: config.freeze.ledger,
    fixtures: config.fixtures.lock,
    registry: config.properties.invariants,
  };
  const findings: Finding[] = [];
  for (const [check, run] of checks) {
    try {
      findings.push({ check, ok: true, detail: await run() });
    } catch (err) {
      if (!(err instanceof CannotJudge)) throw err;
      // Every problem ends with a command that fixes it.
      const said = err.describe();
      findings.push({
        check,
        ok: false,
        detail: said.endsWith('`')
          ? said
          : `${said}; fix it, or go back to the committed one: \`git checkout -- ${files[check]}\``,
      });
    }
  }
  return findings;
}
