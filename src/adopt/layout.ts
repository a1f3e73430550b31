// Where a project keeps its production code, read from its own metadata
// rather than guessed from folder names: Python packaging (pyproject's
// setuptools, flit and poetry tables, setup.cfg, a package folder with
// __init__.py), pnpm, yarn and npm workspaces, go.mod and Cargo workspaces.
// Each answer is a list of globs for the `src` zone; tests stay outside it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expandPattern, isDir, workspacePatterns } from '../properties/workspaces.js';

/** Folders that usually hold production code, tried when the metadata names none. */
const SOURCE_DIRS = ['src', 'lib', 'app', 'pkg', 'internal', 'cmd'];
/** Folders that are never a project's production package. */
const NOT_PACKAGES = new Set([
  'tests',
  'test',
  'testing',
  'spec',
  'fixtures',
  'freeze',
  'docs',
  'doc',
  'examples',
  'scripts',
  'benchmarks',
  'build',
  'dist',
  'node_modules',
  'venv',
  '.venv',
]);

/** A Go module's production code: `!(spec|…)` alone would also leave out `specs/` and `freezer/`. */
export const GO_SOURCES = ['@(!(*_test)).go', '{!(spec|fixtures|freeze),spec?*,fixtures?*,freeze?*}/**/!(*_test).go'];

const read = (root: string, file: string): string | null => {
  try {
    return readFileSync(path.join(root, file), 'utf8');
  } catch {
    return null;
  }
};

/**
 * The `key = value` lines of one TOML table (`[name]`), values as written; a
 * value that spans lines (an array) is joined up to its closing bracket.
 * Enough for the packaging keys read here; not a TOML parser.
 */
export function tomlTable(text: string, name: string): Map<string, string> {
  const out = new Map<string, string>();
  let inside = false;
  let key: string | null = null;
  let value = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').trim();
    if (key !== null) {
      value += ' ' + line;
      if (depth(value) <= 0) {
        out.set(key, value);
        key = null;
      }
      continue;
    }
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      inside = header[1] === name;
      continue;
    }
    if (!inside) continue;
    const kv = /^([A-Za-z0-9_."-]+)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    const k = kv[1].replace(/"/g, '');
    if (depth(kv[2]) > 0) {
      key = k;
      value = kv[2];
    } else out.set(k, kv[2]);
  }
  return out;
}

const depth = (s: string) => (s.match(/[[{]/g)?.length ?? 0) - (s.match(/[\]}]/g)?.length ?? 0);
/** The quoted strings of a TOML value (`["a", "b"]`, `"a"`). */
const strings = (v: string | undefined) => [...(v ?? '').matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2]);

/** A dotted Python package name as a folder under `base`. */
const pyFolder = (base: string, name: string) => path.posix.join(base, name.split('.')[0]);

function pythonPackages(root: string): string[] {
  const pyproject = read(root, 'pyproject.toml') ?? '';
  const found: string[] = [];
  // setuptools: packages = [...], or packages.find where = [...]
  const setuptools = tomlTable(pyproject, 'tool.setuptools');
  const where = strings(tomlTable(pyproject, 'tool.setuptools.packages.find').get('where'));
  const base = where[0] ?? strings(setuptools.get('package-dir'))[0] ?? '';
  found.push(...strings(setuptools.get('packages')).map((p) => pyFolder(base, p)));
  if (where.length && !found.length) found.push(...where.flatMap((w) => packageFolders(root, w)));
  // flit: [tool.flit.module] name = "x"
  const flit = strings(tomlTable(pyproject, 'tool.flit.module').get('name'))[0];
  if (flit) found.push(...located(root, flit));
  // poetry: packages = [{ include = "x", from = "src" }]
  const poetry = tomlTable(pyproject, 'tool.poetry');
  for (const m of (poetry.get('packages') ?? '').matchAll(/\{([^}]*)\}/g)) {
    const include = /include\s*=\s*["']([^"']+)["']/.exec(m[1])?.[1];
    const from = /from\s*=\s*["']([^"']+)["']/.exec(m[1])?.[1] ?? '';
    if (include) found.push(pyFolder(from, include));
  }
  // setup.cfg: [options] packages = a, b (or find:) with package_dir = =src
  const cfg = read(root, 'setup.cfg') ?? '';
  const options = /^\[options\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(cfg)?.[1] ?? '';
  const cfgDir = /^package_dir\s*=\s*(?:\n\s+)?=\s*(\S+)/m.exec(options)?.[1] ?? '';
  const cfgPackages = /^packages\s*=\s*((?:.*)(?:\n[ \t]+.*)*)/m.exec(options)?.[1] ?? '';
  if (/find:/.test(cfgPackages)) found.push(...packageFolders(root, cfgDir));
  else
    found.push(
      ...cfgPackages
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((p) => pyFolder(cfgDir, p)),
    );
  // [project] name, when a folder of that name (or src/name) holds the code.
  const name = strings(tomlTable(pyproject, 'project').get('name'))[0] ?? strings(poetry.get('name'))[0];
  if (!found.length && name) found.push(...located(root, name.replace(/-/g, '_')));
  // Else any top-level package folder (an __init__.py), flat or under src/.
  if (!found.length) found.push(...packageFolders(root, ''), ...packageFolders(root, 'src').map(() => 'src'));
  return [...new Set(found)].filter((f) => isDir(path.join(root, f)));
}

/** `name` as a folder at the root or under src/, where it exists. */
function located(root: string, name: string): string[] {
  return [name, `src/${name}`].filter((d) => isDir(path.join(root, d)));
}

/** The folders under `base` that are Python packages (hold an __init__.py), tests and tooling left out. */
function packageFolders(root: string, base: string): string[] {
  try {
    return readdirSync(path.join(root, base), { withFileTypes: true })
      .filter(
        (e) =>
          e.isDirectory() &&
          !e.name.startsWith('.') &&
          !NOT_PACKAGES.has(e.name) &&
          existsSync(path.join(root, base, e.name, '__init__.py')),
      )
      .map((e) => path.posix.join(base, e.name));
  } catch {
    return [];
  }
}

/** pnpm-workspace.yaml's packages, else yarn's and npm's `workspaces`: each workspace's src/ (or lib/), else the workspace. */
function jsWorkspaces(root: string): string[] {
  return workspaceGlobs(root, workspacePatterns(root).patterns);
}

/** Cargo: `[workspace] members = [...]`, each member's src/; a single crate's src/. */
function cargoCrates(root: string): string[] {
  const cargo = read(root, 'Cargo.toml');
  if (cargo === null) return [];
  const members = strings(tomlTable(cargo, 'workspace').get('members'));
  if (members.length) return workspaceGlobs(root, members);
  return isDir(path.join(root, 'src')) ? ['src'] : [];
}

/** Each workspace pattern (`packages/*`, `crates/core`) as the folders that hold its code. */
function workspaceGlobs(root: string, patterns: string[]): string[] {
  return patterns
    .filter((w) => !w.startsWith('!'))
    .map((w) => w.replace(/^\.\//, '').replace(/\/+$/, ''))
    .map((w) => {
      const dirs = expandPattern(root, w);
      const inner = ['src', 'lib'].find((d) => dirs.some((x) => isDir(path.join(root, x, d))));
      return inner ? `${w}/${inner}` : w;
    });
}

/**
 * The `src` zone's globs for the project at `root`, from its metadata; the
 * usual source folders when it has none; null when nothing is found (the
 * caller then writes a placeholder `doctor` will refuse).
 */
export function sourceGlobs(root: string): string[] | null {
  // Go: every .go file but the tests, wherever the packages are, but under the oracle zones' folders.
  if (existsSync(path.join(root, 'go.mod'))) return GO_SOURCES;
  const folders = [...jsWorkspaces(root), ...cargoCrates(root)];
  const python =
    ['pyproject.toml', 'setup.cfg', 'setup.py'].some((f) => existsSync(path.join(root, f))) ||
    packageFolders(root, '').length
      ? pythonPackages(root)
      : [];
  folders.push(...python);
  if (!folders.length) folders.push(...SOURCE_DIRS.filter((d) => isDir(path.join(root, d))));
  return folders.length ? [...new Set(folders)].map((f) => `${f}/**`) : null;
}
