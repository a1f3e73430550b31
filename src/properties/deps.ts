// The installed dependencies a run links in from the main tree
// (`revert.link`) must be what the base's lock files say. A patch that adds
// or changes a dependency brings code that runs before any property (a
// `.pth` file, an install script, a module the tests import), while the
// judged tree is the base's everywhere outside the src zone. Checked: a
// `node_modules` folder against the base's package-lock.json (npm's record
// of what it installed, node_modules/.package-lock.json, must list nothing
// the lock does not, at the same version and integrity), and a Python
// virtual environment against the base's uv.lock, poetry.lock and
// requirements*.txt pins (every installed distribution pinned there at its
// version). Any other linked entry cannot be checked, so it is refused.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { listTree, readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';

interface NpmEntry {
  version?: string;
  integrity?: string;
  resolved?: string;
  link?: boolean;
}

/** Why the linked entries do not match the base's lock files (empty: they do). */
export async function dependencyProblems(
  repo: Repo,
  mainRoot: string,
  base: string,
  entries: string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const entry of entries) {
    const dir = path.join(mainRoot, entry);
    if (!existsSync(dir)) continue;
    if (path.basename(entry) === 'node_modules') problems.push(...(await npmProblems(repo, base, entry, dir)));
    else if (existsSync(path.join(dir, 'pyvenv.cfg'))) problems.push(...(await venvProblems(repo, base, entry, dir)));
    else
      problems.push(
        `${entry} is neither a node_modules folder nor a Python virtual environment, so nothing tells whether it matches the base's lock files`,
      );
  }
  return problems;
}

async function npmProblems(repo: Repo, base: string, entry: string, dir: string): Promise<string[]> {
  const where = path.posix.dirname(entry);
  const lockName = (f: string) => (where === '.' ? f : `${where}/${f}`);
  const lockText =
    (await readFileAt(repo, base, lockName('npm-shrinkwrap.json'))) ??
    (await readFileAt(repo, base, lockName('package-lock.json')));
  if (!lockText) return [`${entry}: the base has no ${lockName('package-lock.json')} to check it against`];
  const installedFile = path.join(dir, '.package-lock.json');
  if (!existsSync(installedFile))
    return [`${entry}: it holds no .package-lock.json, npm's record of what it installed (install it with npm ci)`];
  let lock: Record<string, NpmEntry>;
  let installed: Record<string, NpmEntry>;
  try {
    lock = (JSON.parse(lockText.toString('utf8')).packages ?? {}) as Record<string, NpmEntry>;
    installed = (JSON.parse(readFileSync(installedFile, 'utf8')).packages ?? {}) as Record<string, NpmEntry>;
  } catch (err) {
    return [`${entry}: its lock or install record cannot be read (${(err as Error).message})`];
  }
  const prefix = where === '.' ? '' : `${where}/`;
  const differ: string[] = [];
  for (const [key, got] of Object.entries(installed)) {
    const want = lock[key.startsWith(prefix) ? key.slice(prefix.length) : key] ?? lock[key];
    const same =
      want &&
      want.version === got.version &&
      (!want.integrity || !got.integrity || want.integrity === got.integrity) &&
      (!got.link || want.resolved === got.resolved);
    if (!same)
      differ.push(
        `${key.replace(/^.*node_modules\//, '')}@${got.version ?? got.resolved ?? '?'}${want ? ` (the base locks ${want.version ?? want.resolved})` : ' (not in the base lock)'}`,
      );
  }
  return differ.length ? [`${entry} holds packages the base's lock does not: ${shown(differ)}`] : [];
}

/** name -> versions pinned by the base's Python lock files. */
async function pythonPins(repo: Repo, base: string): Promise<Map<string, Set<string>> | null> {
  const files = (await listTree(repo, base))
    .map((e) => e.path)
    .filter((p) => /^(uv\.lock|poetry\.lock|requirements[^/]*\.txt)$/.test(p));
  if (!files.length) return null;
  const pins = new Map<string, Set<string>>();
  const pin = (name: string, version: string) => {
    const key = normal(name);
    if (!pins.has(key)) pins.set(key, new Set());
    pins.get(key)!.add(version);
  };
  for (const f of files) {
    const text = (await readFileAt(repo, base, f))!.toString('utf8');
    if (f.endsWith('.lock')) {
      for (const block of text.split(/^\[\[package\]\]\s*$/m).slice(1)) {
        const name = /^name\s*=\s*"([^"]+)"/m.exec(block)?.[1];
        const version = /^version\s*=\s*"([^"]+)"/m.exec(block)?.[1];
        if (name && version) pin(name, version);
      }
    } else {
      for (const line of text.split('\n')) {
        const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([^\s;\\#]+)/.exec(line);
        if (m) pin(m[1], m[2]);
      }
    }
  }
  return pins;
}

async function venvProblems(repo: Repo, base: string, entry: string, dir: string): Promise<string[]> {
  const pins = await pythonPins(repo, base);
  if (!pins) return [`${entry}: the base has no uv.lock, poetry.lock or requirements*.txt to check it against`];
  const differ: string[] = [];
  for (const meta of distributions(dir)) {
    const text = readFileSync(meta, 'utf8');
    const name = /^Name:\s*(.+)$/m.exec(text)?.[1].trim();
    const version = /^Version:\s*(.+)$/m.exec(text)?.[1].trim();
    if (!name || !version || TOOLS.has(normal(name))) continue;
    const want = pins.get(normal(name));
    if (!want?.has(version))
      differ.push(
        `${name} ${version}${want ? ` (the base pins ${[...want].join(', ')})` : ' (not pinned at the base)'}`,
      );
  }
  return differ.length ? [`${entry} holds distributions the base's lock files do not: ${shown(differ)}`] : [];
}

/** Installers every virtual environment has, which no lock lists. */
const TOOLS = new Set(['pip', 'setuptools', 'wheel']);

function normal(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The METADATA file of every distribution in the environment's site-packages. */
function distributions(venv: string): string[] {
  const out: string[] = [];
  for (const lib of ['lib', 'lib64', 'Lib']) {
    const libDir = path.join(venv, lib);
    if (!existsSync(libDir)) continue;
    for (const py of lib === 'Lib' ? ['.'] : readdirSync(libDir).filter((d) => d.startsWith('python'))) {
      const site = path.join(libDir, py, 'site-packages');
      if (!existsSync(site)) continue;
      for (const d of readdirSync(site))
        if (d.endsWith('.dist-info') && existsSync(path.join(site, d, 'METADATA')))
          out.push(realpathSync(path.join(site, d, 'METADATA')));
    }
  }
  return [...new Set(out)];
}

function shown(items: string[]): string {
  return items.slice(0, 8).join(', ') + (items.length > 8 ? `, … (${items.length} in all)` : '');
}
