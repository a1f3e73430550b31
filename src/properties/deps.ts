// The installed dependencies a run links in from the main tree
// (`revert.link`) must be what the base's lock files say. A patch that adds
// or changes a dependency brings code that runs before any property (a
// `.pth` file, an install script, a module the tests import), while the
// judged tree is the base's everywhere outside the src zone. Each kind of
// entry is checked against the lock its package manager writes, through the
// record that manager keeps of what it installed (deps-node.ts: npm, pnpm,
// yarn; deps-python.ts: a virtual environment; deps-vendor.ts: Go's and
// cargo's vendor folders). Any other linked entry cannot be checked, so it
// is refused. Each refusal names the install command of the lock that is
// there, run where the entry lives.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { shellQuote } from '../common/text.js';
import { nodeModulesProblems } from './deps-node.js';
import { venvProblems } from './deps-python.js';
import { vendorKind, vendorProblems } from './deps-vendor.js';
import type { BaseFile, Mismatch } from './mismatch.js';

export interface DependencyProblems {
  problems: string[];
  /** The project's own install commands, each as run from the top of the tree. */
  installs: string[];
}

/** Why the linked entries do not match the base's lock files (no problems: they do). */
export async function dependencyProblems(
  repo: Repo,
  mainRoot: string,
  base: string,
  entries: string[],
): Promise<DependencyProblems> {
  const problems: string[] = [];
  const installs = new Set<string>();
  for (const entry of entries) {
    const dir = path.join(mainRoot, entry);
    const where = path.posix.dirname(entry);
    // Plug'n'Play leaves no node_modules to link, and must still be named.
    const pnp = path.basename(entry) === 'node_modules' && existsSync(path.join(mainRoot, where, '.pnp.cjs'));
    if (!existsSync(dir) && !pnp) continue;
    const at = (name: string) => (where === '.' ? name : `${where}/${name}`);
    const baseFile: BaseFile = async (name) => (await readFileAt(repo, base, at(name)))?.toString('utf8') ?? null;
    const found = await check(repo, base, entry, dir, baseFile, path.join(mainRoot, where));
    for (const m of found) {
      problems.push(m.problem);
      if (m.install) installs.add(where === '.' || m.atTop ? m.install : `(cd ${shellQuote(where)} && ${m.install})`);
    }
  }
  return { problems, installs: [...installs] };
}

async function check(
  repo: Repo,
  base: string,
  entry: string,
  dir: string,
  baseFile: BaseFile,
  folder: string,
): Promise<Mismatch[]> {
  if (path.basename(entry) === 'node_modules') return nodeModulesProblems(entry, dir, baseFile, folder);
  if (existsSync(path.join(dir, 'pyvenv.cfg'))) return venvProblems(repo, base, entry, dir);
  const vendor = vendorKind(dir);
  if (vendor) return vendorProblems(vendor, entry, dir, baseFile);
  return [
    {
      problem: `${entry} is neither a node_modules folder, a Python virtual environment nor a Go or cargo vendor folder, so nothing tells whether it matches the base's lock files`,
      install: null,
    },
  ];
}
