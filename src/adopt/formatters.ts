// Keeping the project's formatters off the locked bytes. A formatter run by
// the commit hooks (prettier through lint-staged, a pre-commit framework
// hook) restages what it rewrites after the guard passed the index, so a
// fixture or an evidence file no longer matches its digest. init adds the
// fixtures and freeze folders to the ignore lists it can edit, and names the
// lint-staged globs that reach them (their keys are the globs: narrowing one
// is the team's call). commit-msg checks the lock again either way
// (hooks/recheck.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar } from 'yaml';
import micromatch from 'micromatch';
import type { Config } from '../config/schema.js';
import { editYaml } from './managers.js';

const PRETTIER_CONFIGS = [
  '.prettierrc',
  '.prettierrc.json',
  '.prettierrc.yaml',
  '.prettierrc.yml',
  '.prettierrc.json5',
  '.prettierrc.js',
  '.prettierrc.cjs',
  '.prettierrc.mjs',
  '.prettierrc.toml',
  'prettier.config.js',
  'prettier.config.cjs',
  'prettier.config.mjs',
  'prettier.config.ts',
];
const LINT_STAGED_FILES = ['.lintstagedrc', '.lintstagedrc.json'];
/** Names a formatter is run on in the locked folders: a glob reaching none of them leaves those folders alone. */
const SAMPLES = ['x.json', 'x.yaml', 'x.yml', 'x.md', 'x.txt', 'x.csv', 'x.js', 'x.ts', 'x.py', 'x.go'];

/** The folders whose bytes are locked: the fixtures and freeze zones' literal folders, the inputs folder, the ledger's. */
export function lockedFolders(config: Config): string[] {
  const literal = (glob: string) => {
    const cut = glob.search(/[*?[\]{}()!+@\\]/);
    const text = cut < 0 ? glob : glob.slice(0, cut);
    return text.slice(0, Math.max(0, text.lastIndexOf('/')));
  };
  const globs = config.zones.filter((z) => z.name === 'fixtures' || z.name === 'freeze').flatMap((z) => z.globs);
  const all = [
    ...globs.map(literal),
    config.fixtures.inputs.replace(/\/+$/, ''),
    path.posix.dirname(config.freeze.ledger),
  ].filter((f) => f && f !== '.');
  const unique = [...new Set(all)];
  return unique.filter((f) => !unique.some((o) => o !== f && f.startsWith(`${o}/`))).sort();
}

/** What init did or names, in words; nothing where the project runs no formatter it knows. */
export function keepFormattersOut(root: string, config: Config): string[] {
  const folders = lockedFolders(config);
  if (!folders.length) return [];
  const prettier = usesPrettier(root);
  return [
    ...(prettier ? prettierIgnore(root, folders) : []),
    ...preCommitExclude(root, folders),
    ...lintStagedReach(root, folders, prettier),
  ];
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function usesPrettier(root: string): boolean {
  if ([...PRETTIER_CONFIGS, '.prettierignore'].some((f) => existsSync(path.join(root, f)))) return true;
  const pkg = readJson(path.join(root, 'package.json')) as {
    prettier?: unknown;
    dependencies?: object;
    devDependencies?: object;
  } | null;
  return Boolean(
    pkg && (pkg.prettier || 'prettier' in (pkg.devDependencies ?? {}) || 'prettier' in (pkg.dependencies ?? {})),
  );
}

function prettierIgnore(root: string, folders: string[]): string[] {
  const file = path.join(root, '.prettierignore');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const lines = new Set(
    text.split('\n').map((l) =>
      l
        .trim()
        .replace(/^\//, '')
        .replace(/\/(\*\*)?$/, ''),
    ),
  );
  const missing = folders.filter((f) => !lines.has(f));
  if (!missing.length) return [];
  const added = missing.map((f) => `/${f}/`);
  writeFileSync(
    file,
    `${text}${text && !text.endsWith('\n') ? '\n' : ''}# patchwarden: locked bytes, never reformatted\n${added.join('\n')}\n`,
  );
  return [
    `.prettierignore: added ${added.join(', ')} (a formatter must not rewrite locked fixtures or freeze evidence)`,
  ];
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The pre-commit framework's top-level `exclude` (a regex over every hook's files), where it has none yet. */
function preCommitExclude(root: string, folders: string[]): string[] {
  const file = path.join(root, '.pre-commit-config.yaml');
  if (!existsSync(file)) return [];
  const pattern = `^(${folders.map(escapeRegex).join('|')})/`;
  let said: string[] = [];
  editYaml(file, (doc) => {
    if (!isMap(doc.contents)) return;
    const current = doc.get('exclude');
    if (current === undefined) {
      doc.set('exclude', pattern);
      said = [
        `.pre-commit-config.yaml: exclude: ${pattern} (its hooks leave locked fixtures and freeze evidence alone)`,
      ];
    } else if (!(isScalar(current) ? current.value : current)?.toString().includes(pattern))
      said = [
        `.pre-commit-config.yaml has its own exclude: add ${pattern} to it, so no hook rewrites locked fixtures or freeze evidence`,
      ];
  });
  return said;
}

/** lint-staged's globs that reach a locked folder with a command .prettierignore does not cover, named. */
function lintStagedReach(root: string, folders: string[], prettier: boolean): string[] {
  const found = lintStagedConfig(root);
  if (!found) return [];
  const out: string[] = [];
  for (const [glob, command] of Object.entries(found.config)) {
    const commands = (Array.isArray(command) ? command : [command]).map(String);
    if (prettier && commands.every((c) => /^(npx\s+)?prettier\b/.test(c))) continue;
    // lint-staged matches a glob without a slash against the file's base name, anywhere.
    const reached = folders.filter((f) =>
      SAMPLES.some((s) => micromatch.isMatch(`${f}/${s}`, glob, { dot: true, matchBase: !glob.includes('/') })),
    );
    if (reached.length)
      out.push(
        `${found.file}: "${glob}" (${commands.join(', ')}) reaches ${reached.map((f) => `${f}/`).join(', ')}: narrow it so it leaves the locked folders out, or their fixtures and evidence stop the commit once rewritten`,
      );
  }
  return out;
}

function lintStagedConfig(root: string): { file: string; config: Record<string, unknown> } | null {
  const pkg = readJson(path.join(root, 'package.json'));
  const inPkg = pkg?.['lint-staged'];
  if (inPkg && typeof inPkg === 'object')
    return { file: 'package.json lint-staged', config: inPkg as Record<string, unknown> };
  for (const f of LINT_STAGED_FILES) {
    const config = readJson(path.join(root, f));
    if (config) return { file: f, config };
  }
  return null;
}
