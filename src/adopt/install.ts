// Where git looks for hooks, whether ours are there, and installing them
// without ever overwriting a hook that is not ours.
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CannotJudge } from '../common/errors.js';
import type { Repo } from '../git/repo.js';
import { detectManager, type Manager } from './managers.js';

export const HOOKS = ['pre-commit', 'pre-push'] as const;
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
  /** The folder our hook files go in: `.husky` or gitHooksDir. */
  installDir: string;
}

/** Reads how this repository runs hooks. */
export async function hookSetup(repo: Repo, root: string): Promise<HookSetup> {
  const hooksPath = (await repo.run(['config', '--get', 'core.hooksPath'], { okCodes: [1] })).stdout.toString('utf8').trim() || null;
  const gitHooksDir = path.resolve(root, await repo.text(['rev-parse', '--git-path', 'hooks']));
  const manager = detectManager(root);
  if (manager) return { style: 'manager', manager, gitHooksDir, hooksPath, installDir: gitHooksDir };
  const huskyDir = path.join(root, '.husky');
  const usesHusky = (hooksPath !== null && /^\.husky(\/_)?\/?$/.test(hooksPath)) || (existsSync(huskyDir) && hooksPath === null && packageUsesHusky(root));
  return usesHusky ? { style: 'husky', gitHooksDir, hooksPath, installDir: huskyDir } : { style: 'git', gitHooksDir, hooksPath, installDir: gitHooksDir };
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
    `command -v patchwarden >/dev/null 2>&1 || { echo "patchwarden: the ${hook} hook is installed but patchwarden is not (npm install); blocked." >&2; exit 2; }`,
    `patchwarden ${hook} "$@"`,
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
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const sep = existing && !existing.endsWith('\n') ? '\n' : '';
    writeFileSync(file, existing + sep + huskyBlock(hook));
    return existing ? `${shown}: added the guard after your commands` : `${shown}: created`;
  }
  if (existsSync(file)) {
    if (!chain) throw new CannotJudge(`${file} is a hook patchwarden did not write; rerun without --no-chain to keep it as ${hook}${CHAINED} and run it first, or merge the two by hand`);
    const kept = file + CHAINED;
    if (existsSync(kept)) throw new CannotJudge(`${kept} already exists; merge ${file} into it by hand, then rerun`);
    renameSync(file, kept);
    writeFileSync(file, shimSource(), { mode: 0o755 });
    return `${shown}: installed; your existing hook was kept as ${hook}${CHAINED} and runs first`;
  }
  writeFileSync(file, shimSource(), { mode: 0o755 });
  return `${shown}: installed`;
}
