// A linked node_modules folder against the base's lock, through the record
// its package manager keeps of what it installed: npm's
// node_modules/.package-lock.json against package-lock.json (or
// npm-shrinkwrap.json); pnpm's virtual store record (node_modules/.pnpm/
// lock.yaml, the store named by node_modules/.modules.yaml) against
// pnpm-lock.yaml; yarn classic's node_modules/.yarn-integrity and yarn
// berry's node_modules/.yarn-state.yml against yarn.lock. Yarn's
// Plug'n'Play install (.pnp.cjs) has no node_modules to link and is refused.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type BaseFile, type Mismatch, shown } from './mismatch.js';

type Manager = 'npm' | 'pnpm' | 'yarn';

interface Lock {
  manager: Manager;
  name: string;
  text: string;
  install: string;
}

/** The locks each manager reads, in the order it reads them. */
const LOCKS: Array<[Manager, string]> = [
  ['pnpm', 'pnpm-lock.yaml'],
  ['yarn', 'yarn.lock'],
  ['npm', 'npm-shrinkwrap.json'],
  ['npm', 'package-lock.json'],
];

const isBerry = (yarnLock: string) => /^__metadata:/m.test(yarnLock);

function installOf(manager: Manager, text: string): string {
  if (manager === 'pnpm') return 'pnpm install --frozen-lockfile';
  if (manager === 'yarn') return isBerry(text) ? 'yarn install --immutable' : 'yarn install --frozen-lockfile';
  return 'npm ci';
}

/** The base's lock beside the folder, of `manager` or (null) of any manager. */
async function baseLock(baseFile: BaseFile, manager: Manager | null): Promise<Lock | null> {
  for (const [m, name] of LOCKS) {
    if (manager && m !== manager) continue;
    const text = await baseFile(name);
    if (text !== null) return { manager: m, name, text, install: installOf(m, text) };
  }
  return null;
}

/** The manager whose install record the folder holds (null: none). */
function recordOf(dir: string): Manager | null {
  if (existsSync(path.join(dir, '.modules.yaml')) || existsSync(path.join(dir, '.pnpm', 'lock.yaml'))) return 'pnpm';
  if (existsSync(path.join(dir, '.yarn-state.yml')) || existsSync(path.join(dir, '.yarn-integrity'))) return 'yarn';
  if (existsSync(path.join(dir, '.package-lock.json'))) return 'npm';
  return null;
}

/** Why the node_modules folder `dir` (`entry` in the config; `folder` holds it) is not what the base locks. */
export async function nodeModulesProblems(
  entry: string,
  dir: string,
  baseFile: BaseFile,
  folder: string,
): Promise<Mismatch[]> {
  if (existsSync(path.join(folder, '.pnp.cjs')))
    return [
      {
        problem: `${entry}: yarn installed this project with Plug'n'Play (.pnp.cjs), which resolves packages through a file and a cache the revert check cannot link into its trees; set \`nodeLinker: node-modules\` in .yarnrc.yml`,
        install: 'yarn install --immutable',
      },
    ];
  const record = recordOf(dir);
  const any = await baseLock(baseFile, null);
  if (!any)
    return [
      {
        problem: `${entry}: the base has no package-lock.json, npm-shrinkwrap.json, pnpm-lock.yaml or yarn.lock beside it to check it against`,
        install: null,
      },
    ];
  if (!record)
    return [{ problem: `${entry}: it holds no record of what ${any.manager} installed`, install: any.install }];
  const lock = await baseLock(baseFile, record);
  if (!lock)
    return [
      {
        problem: `${entry}: ${record} installed it, and the base locks its dependencies with ${any.name}`,
        install: any.install,
      },
    ];
  let differ: string[];
  try {
    differ =
      record === 'npm'
        ? npmDiffer(entry, dir, lock.text)
        : record === 'pnpm'
          ? pnpmDiffer(dir, lock.text)
          : yarnDiffer(dir, lock.text);
  } catch (err) {
    return [
      {
        problem: `${entry}: its install record or the base's ${lock.name} cannot be read (${(err as Error).message})`,
        install: lock.install,
      },
    ];
  }
  return differ.length
    ? [{ problem: `${entry} holds packages the base's ${lock.name} does not: ${shown(differ)}`, install: lock.install }]
    : [];
}

interface NpmEntry {
  version?: string;
  integrity?: string;
  resolved?: string;
  link?: boolean;
}

/** npm's record lists nothing the lock does not, at the same version and integrity. */
function npmDiffer(entry: string, dir: string, lockText: string): string[] {
  const lock = (JSON.parse(lockText).packages ?? {}) as Record<string, NpmEntry>;
  const installed = (JSON.parse(readFileSync(path.join(dir, '.package-lock.json'), 'utf8')).packages ?? {}) as Record<
    string,
    NpmEntry
  >;
  const where = path.posix.dirname(entry);
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
  return differ;
}

/** pnpm's record of its install (a copy of the lock it installed) agrees with the base's lock, importer by importer and package by package. */
function pnpmDiffer(dir: string, lockText: string): string[] {
  const modulesFile = path.join(dir, '.modules.yaml');
  const modules = existsSync(modulesFile) ? (parse(readFileSync(modulesFile, 'utf8')) ?? {}) : {};
  const store = path.resolve(dir, typeof modules.virtualStoreDir === 'string' ? modules.virtualStoreDir : '.pnpm');
  const recordFile = path.join(store, 'lock.yaml');
  if (!existsSync(recordFile))
    throw new Error(`${path.relative(dir, recordFile)}, pnpm's record of what it installed, is missing`);
  const installed = parse(readFileSync(recordFile, 'utf8')) ?? {};
  const lock = parse(lockText) ?? {};
  const differ = new Set<string>();
  for (const section of ['importers', 'packages', 'snapshots']) {
    const got = (installed[section] ?? {}) as Record<string, unknown>;
    const want = (lock[section] ?? {}) as Record<string, unknown>;
    for (const key of Object.keys(got))
      if (canonical(got[key]) !== canonical(want[key]))
        differ.add(
          section === 'importers'
            ? `the importer ${key}`
            : `${key}${key in want ? ' (locked otherwise)' : ' (not in the base lock)'}`,
        );
  }
  return [...differ];
}

/** Yarn's record of its install lists nothing the lock does not resolve the same way. */
function yarnDiffer(dir: string, lockText: string): string[] {
  const state = path.join(dir, '.yarn-state.yml');
  if (existsSync(state)) {
    const resolutions = new Set(
      Object.values((parse(lockText) ?? {}) as Record<string, { resolution?: string }>).map((e) => e?.resolution),
    );
    return Object.keys(parse(readFileSync(state, 'utf8')) ?? {}).filter(
      (locator) => locator !== '__metadata' && !resolutions.has(locator),
    );
  }
  const integrity = JSON.parse(readFileSync(path.join(dir, '.yarn-integrity'), 'utf8'));
  const resolved = classicResolved(lockText);
  return Object.entries((integrity.lockfileEntries ?? {}) as Record<string, string>)
    .filter(([pattern, url]) => resolved.get(pattern) !== url)
    .map(
      ([pattern, url]) => `${pattern} (${resolved.has(pattern) ? 'locked otherwise' : `not in the base lock: ${url}`})`,
    );
}

/** pattern -> resolved URL of a yarn classic lock (`a@^1, a@~1:` blocks with a `resolved` line). */
function classicResolved(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of text.split(/\n(?=\S)/)) {
    const header = /^([^#\s].*):\s*$/m.exec(block.split('\n')[0]);
    const url = /^\s+resolved\s+"?([^"\n]+)"?\s*$/m.exec(block)?.[1];
    if (!header || !url) continue;
    for (const p of header[1].split(/,\s*/)) out.set(p.replace(/^"|"$/g, ''), url);
  }
  return out;
}

/** A value as text with its keys sorted, so two parses of one lock compare equal. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}
