// Where git looks for hooks, whether ours are there, and installing them
// without ever overwriting a hook that is not ours.
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CannotJudge } from '../common/errors.js';
import { configWithScope, gitPath, type Repo } from '../git/repo.js';
import { detectManager, type Manager } from './managers.js';

/**
 * The hooks patchwarden installs itself (plain git hooks, husky);
 * pre-merge-commit runs when git commits a merge on its own, commit-msg
 * reads the credit trailers of a commit's message.
 */
export const HOOKS = ['pre-commit', 'pre-merge-commit', 'commit-msg', 'pre-push'] as const;
export type HookName = (typeof HOOKS)[number];

/** Every hook file patchwarden writes carries this line. */
export const MARKER = 'patchwarden-managed';
/** A foreign hook that was in place is kept under this suffix and run first. */
export const CHAINED = '.pre-patchwarden';

export interface HookSetup {
  /** 'husky' when hooks run through husky 9 (`.husky/<hook>`), 'manager' through lefthook or the pre-commit framework, else 'git'. */
  style: 'husky' | 'manager' | 'git';
  /** The hook manager whose config runs the guard, for style 'manager'. */
  manager?: Manager;
  /** The folder git runs hooks from (core.hooksPath or .git/hooks), absolute. */
  gitHooksDir: string;
  /** core.hooksPath as configured, if any. */
  hooksPath: string | null;
  /** Where core.hooksPath is set: local and worktree are this repository's own; global and system are shared with others. */
  hooksPathScope: string | null;
  /** The folder our hook files go in: `.husky` or gitHooksDir. */
  installDir: string;
}

/** Reads how this repository runs hooks. */
export async function hookSetup(repo: Repo, root: string): Promise<HookSetup> {
  const scoped = await configWithScope(repo, 'core.hooksPath');
  const hooksPath = scoped?.value ?? null;
  const hooksPathScope = scoped?.scope ?? null;
  const gitHooksDir = path.resolve(root, await gitPath(repo, 'hooks'));
  const manager = detectManager(root);
  const found = { gitHooksDir, hooksPath, hooksPathScope };
  if (manager) return { style: 'manager', manager, ...found, installDir: gitHooksDir };
  const huskyDir = path.join(root, '.husky');
  const usesHusky =
    (hooksPath !== null && /^\.husky(\/_)?\/?$/.test(hooksPath)) ||
    (existsSync(huskyDir) && hooksPath === null && packageUsesHusky(root));
  return usesHusky
    ? { style: 'husky', ...found, installDir: huskyDir }
    : { style: 'git', ...found, installDir: gitHooksDir };
}

/** A core.hooksPath that other repositories share (global or system config): writing there would guard them all with this one's hooks. */
export function sharedHooksPath(setup: HookSetup): string | null {
  if (!setup.hooksPath || !setup.hooksPathScope || ['local', 'worktree'].includes(setup.hooksPathScope)) return null;
  return `core.hooksPath is ${setup.hooksPath}, set in your ${setup.hooksPathScope} git config, so other repositories run hooks from that folder too; patchwarden writes no hook there. Give this repository hooks of its own, then rerun: git config --local core.hooksPath "$(git rev-parse --path-format=absolute --git-common-dir)/hooks" && npx patchwarden init --yes`;
}

function packageUsesHusky(root: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    return Boolean(pkg.devDependencies?.husky || pkg.dependencies?.husky);
  } catch {
    return false;
  }
}

/** The shipped shim (hooks/pre-commit), found beside the built CLI. */
export function shimSource(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'hooks', 'pre-commit');
    if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
  }
  throw new CannotJudge('cannot find the hook shims shipped with patchwarden (hooks/pre-commit)');
}

/** The lines added to a husky hook file. */
export function huskyBlock(hook: HookName): string {
  return [
    `# ${MARKER}: the guard runs here and fails closed when it is missing`,
    // A linked worktree has no node_modules of its own: the main worktree's (beside the common git directory) serves.
    'pw=$(command -v patchwarden) || { main=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null) && pw="${main%/.git}/node_modules/.bin/patchwarden" && [ -x "$pw" ]; } ||',
    `  { echo "patchwarden: the ${hook} hook is installed but patchwarden is not (npm install); blocked." >&2; exit 2; }`,
    `"$pw" ${hook} "$@"`,
    '',
  ].join('\n');
}

export function isOurs(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes(MARKER);
  } catch {
    return false;
  }
}

export function isExecutable(file: string): boolean {
  try {
    return (statSync(file).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Installs one hook; returns what it did, in words. Never loses a foreign hook. */
export function installHook(setup: HookSetup, hook: HookName, chain: boolean, root: string): string {
  mkdirSync(setup.installDir, { recursive: true });
  const file = path.join(setup.installDir, hook);
  const shown = path.relative(root, file) || file;
  if (isOurs(file)) {
    if (!isExecutable(file) && setup.style === 'git') chmodSync(file, 0o755);
    return `${shown}: already installed`;
  }
  if (setup.style === 'husky') {
    // The guard goes first: formatters (lint-staged) need not run on a commit about to be refused.
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const shebang = /^#!.*\n/.exec(existing)?.[0] ?? '';
    writeFileSync(file, shebang + huskyBlock(hook) + existing.slice(shebang.length));
    return existing ? `${shown}: added the guard before your commands` : `${shown}: created`;
  }
  if (existsSync(file)) {
    if (!chain)
      throw new CannotJudge(
        `${file} is a hook patchwarden did not write; rerun without --no-chain to keep it as ${hook}${CHAINED} and run it first, or merge the two by hand`,
      );
    const kept = file + CHAINED;
    if (existsSync(kept)) throw new CannotJudge(`${kept} already exists; merge ${file} into it by hand, then rerun`);
    renameSync(file, kept);
    writeFileSync(file, shimSource(), { mode: 0o755 });
    return `${shown}: installed; your existing hook was kept as ${hook}${CHAINED} and runs first`;
  }
  writeFileSync(file, shimSource(), { mode: 0o755 });
  return `${shown}: installed`;
}
