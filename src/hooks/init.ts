// `patchwarden init`: a starter config and the hooks, idempotently.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parse } from '../cli/args.js';
import { emit } from '../cli/output.js';
import { UsageError } from '../common/errors.js';
import { CONFIG_FILE } from '../config/schema.js';
import { openRepo, worktreeRoot } from '../git/repo.js';
import { HOOKS, hookSetup, installHook } from './install.js';
import { starterConfig } from './starter.js';

export const help = `usage: patchwarden init [--yes] [--no-chain] [--format text|json] [-C DIR]

Writes a starter ${CONFIG_FILE} from the layout it finds (unless one exists)
and installs the pre-commit and pre-push hooks:
  - into husky (.husky/pre-commit, .husky/pre-push) when the repository uses husky 9;
  - else into the folder git runs hooks from (core.hooksPath, or .git/hooks).
A hook that patchwarden did not write is never overwritten: in a husky file the
guard is added after your commands; a plain git hook is kept as
<hook>.pre-patchwarden and run first (--no-chain refuses instead).
Running it twice changes nothing.

  --yes        do it without asking (needed when not on a terminal)
  --no-chain   refuse rather than chain to an existing foreign hook`;

export async function run(args: string[]): Promise<number> {
  const { common, values } = parse(args, { yes: { type: 'boolean', short: 'y' }, 'no-chain': { type: 'boolean' } }, false);
  const repo = await openRepo(common.dir);
  const root = worktreeRoot(repo);
  const setup = await hookSetup(repo, root);
  const configFile = common.config ? path.resolve(common.config) : path.join(root, CONFIG_FILE);
  if (!values.yes) {
    if (!process.stdin.isTTY) throw new UsageError('init changes files; rerun with --yes');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question(`install patchwarden hooks into ${setup.installDir}${existsSync(configFile) ? '' : ` and write ${CONFIG_FILE}`}? [y/N] `);
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) return 1;
  }
  const actions: string[] = [];
  if (existsSync(configFile)) actions.push(`${CONFIG_FILE}: kept as it is`);
  else {
    writeFileSync(configFile, starterConfig(root));
    actions.push(`${CONFIG_FILE}: written (review it, then commit it on its own)`);
  }
  for (const hook of HOOKS) actions.push(installHook(setup, hook, !values['no-chain'], root));
  if (setup.style === 'husky' && setup.hooksPath === null) actions.push('husky is not set up in this clone yet: run `npx husky` (or npm install) so git runs .husky/');
  return emit(common.format, { ok: true, json: { style: setup.style, hooks_dir: setup.installDir, actions }, text: actions.map((a) => `patchwarden: ${a}`) });
}
