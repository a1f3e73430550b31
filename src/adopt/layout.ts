// Where a project keeps its production code, read from its own metadata
// rather than guessed from folder names: Python packaging (pyproject's
// setuptools, flit and poetry tables, setup.cfg, a package folder with
// __init__.py), pnpm, yarn and npm workspaces, go.mod, Cargo workspaces,
// and Maven and Gradle builds (each module's src/main: src/test is tests).
// Each answer is a list of globs for the `src` zone; tests stay outside it.
import { type Dirent, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readToml, stringsOf, tableAt, type TomlTable } from '../common/toml.js';
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

const readText = (root: string, file: string): string | null => {
  try {
    return readFileSync(path.join(root, file), 'utf8');
  } catch {
    return null;
  }
};

/** A TOML file of the project as a table; one that is missing or does not parse names nothing (the usual folders are tried instead). */
const readTable = (root: string, file: string): TomlTable => {
  const read = readToml(readText(root, file) ?? '');
  return 'table' in read ? read.table : {};
};

/** A dotted Python package name as a folder under `base`. */
const pyFolder = (base: string, name: string) => path.posix.join(base, name.split('.')[0]);

function pythonPackages(root: string): string[] {
  const pyproject = readTable(root, 'pyproject.toml');
  const found: string[] = [];
  // setuptools: packages = [...], or packages.find where = [...]
  const setuptools = tableAt(pyproject, 'tool.setuptools');
  const where = stringsOf(tableAt(pyproject, 'tool.setuptools.packages.find').where);
  const packageDir = tableAt(pyproject, 'tool.setuptools.package-dir');
  const base = where[0] ?? stringsOf(packageDir[''])[0] ?? '';
  found.push(...stringsOf(setuptools.packages).map((p) => pyFolder(base, p)));
  if (where.length && !found.length) found.push(...where.flatMap((w) => packageFolders(root, w)));
  // flit: [tool.flit.module] name = "x"
  const flit = stringsOf(tableAt(pyproject, 'tool.flit.module').name)[0];
  if (flit) found.push(...located(root, flit));
  // poetry: packages = [{ include = "x", from = "src" }]
  const poetry = tableAt(pyproject, 'tool.poetry');
  for (const p of Array.isArray(poetry.packages) ? (poetry.packages as TomlTable[]) : []) {
    const include = stringsOf(p?.include)[0];
    if (include) found.push(pyFolder(stringsOf(p?.from)[0] ?? '', include));
  }
  // setup.cfg: [options] packages = a, b (or find:) with package_dir = =src
  const cfg = readText(root, 'setup.cfg') ?? '';
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
  const name = stringsOf(tableAt(pyproject, 'project').name)[0] ?? stringsOf(poetry.name)[0];
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
  if (!existsSync(path.join(root, 'Cargo.toml'))) return [];
  const members = stringsOf(tableAt(readTable(root, 'Cargo.toml'), 'workspace').members);
  if (members.length) return workspaceGlobs(root, members);
  return isDir(path.join(root, 'src')) ? ['src'] : [];
}

/** What marks a Maven or Gradle build at the root. */
const JVM_BUILDS = ['pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];

/**
 * Maven and Gradle: each module's `src/main` (the root's and modules' down
 * to three folders deep), where their convention keeps production code;
 * `src/test` beside it is the suite.
 */
function jvmModules(root: string): string[] {
  if (!JVM_BUILDS.some((f) => existsSync(path.join(root, f)))) return [];
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (isDir(path.join(root, dir, 'src/main'))) found.push(path.posix.join(dir, 'src/main'));
    if (depth === 3) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries)
      if (e.isDirectory() && !e.name.startsWith('.') && !NOT_JVM_MODULES.has(e.name))
        visit(path.posix.join(dir, e.name), depth + 1);
  };
  visit('', 0);
  return found;
}

/** Folders a JVM module never sits in: the build's own output, installs, and every module's own src. */
const NOT_JVM_MODULES = new Set([...NOT_PACKAGES, 'src', 'target', 'out', 'bin', 'gradle']);

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
  const folders = [...jsWorkspaces(root), ...cargoCrates(root), ...jvmModules(root)];
  const python =
    ['pyproject.toml', 'setup.cfg', 'setup.py'].some((f) => existsSync(path.join(root, f))) ||
    packageFolders(root, '').length
      ? pythonPackages(root)
      : [];
  folders.push(...python);
  if (!folders.length) folders.push(...SOURCE_DIRS.filter((d) => isDir(path.join(root, d))));
  return folders.length ? [...new Set(folders)].map((f) => `${f}/**`) : null;
}
