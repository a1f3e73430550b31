// A linked Python virtual environment (a folder with pyvenv.cfg) against
// the base's uv.lock, poetry.lock and requirements*.txt pins beside it: every
// installed distribution (but the installers every environment has) must be
// pinned there at its version.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { shellQuote } from '../common/text.js';
import { listTree, readFileAt } from '../git/objects.js';
import type { Repo } from '../git/repo.js';
import { lockPackages } from '../common/toml.js';
import { type Mismatch, shown } from './mismatch.js';

/** name -> versions pinned by the base's Python lock files in `prefix` (a folder and its slash, or ''), and those files' names. */
async function pythonPins(
  repo: Repo,
  base: string,
  prefix: string,
): Promise<{ pins: Map<string, Set<string>>; files: string[]; unreadable: string[] }> {
  const files = (await listTree(repo, base, prefix || undefined))
    .map((e) => e.path.slice(prefix.length))
    .filter((p) => /^(uv\.lock|poetry\.lock|requirements[^/]*\.txt)$/.test(p));
  const pins = new Map<string, Set<string>>();
  const pin = (name: string, version: string) => {
    const key = normal(name);
    if (!pins.has(key)) pins.set(key, new Set());
    pins.get(key)!.add(version);
  };
  const unreadable: string[] = [];
  for (const f of files) {
    const text = (await readFileAt(repo, base, prefix + f))!.toString('utf8');
    if (f.endsWith('.lock')) {
      const packages = lockPackages(text);
      if ('error' in packages) unreadable.push(`${prefix}${f} (${packages.error})`);
      else for (const p of packages) pin(p.name, p.version);
    } else {
      for (const line of text.split('\n')) {
        const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([^\s;\\#]+)/.exec(line);
        if (m) pin(m[1], m[2]);
      }
    }
  }
  return { pins, files, unreadable };
}

/** The command that installs the environment (`venv`, in its folder) from the base's lock files there. */
function installOf(venv: string, files: string[]): string {
  if (files.includes('uv.lock')) return 'uv sync --locked';
  if (files.includes('poetry.lock')) return 'poetry install';
  const dir = shellQuote(venv);
  return `python3 -m venv --clear ${dir} && ${dir}/bin/pip install ${files.map((f) => `-r ${shellQuote(f)}`).join(' ')}`;
}

/** The environment `entry` against the Python lock files beside it in the base. */
export async function venvProblems(repo: Repo, base: string, entry: string, dir: string): Promise<Mismatch[]> {
  // The locks beside it, else those at the top of the tree (where they were always read), whose command runs there.
  const where = path.posix.dirname(entry);
  let found = await pythonPins(repo, base, where === '.' ? '' : `${where}/`);
  const top = !found.files.length && where !== '.';
  if (top) found = await pythonPins(repo, base, '');
  const { pins, files, unreadable } = found;
  if (!files.length)
    return [
      {
        problem: `${entry}: the base has no uv.lock, poetry.lock or requirements*.txt to check it against`,
        install: null,
      },
    ];
  if (unreadable.length)
    return [{ problem: `${entry}: the base's ${unreadable.join(', ')} is not valid TOML`, install: null }];
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
  return differ.length
    ? [
        {
          problem: `${entry} holds distributions the base's ${files.join(', ')} do not: ${shown(differ)}`,
          install: installOf(top ? entry : path.posix.basename(entry), files),
          atTop: top,
        },
      ]
    : [];
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
