// The setup files a harness config names, read without running it: they are
// harness too (config/harness.ts). Loaded by doctor, init and the gate's
// head-only run, never by the hooks' classifier.
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Shared files whose test sections may name setup files too: read for their names, never zoned by them. */
export const SHARED_CONFIGS = ['**/package.json', '**/vite.config.*'];

/** The setup files a config names, or why they cannot be read without running it. */
export type SetupFiles = { files: string[] } | { unreadable: string };

const SETUP_KEYS = ['setupFiles', 'setupFilesAfterEach', 'setupFilesAfterEnv', 'globalSetup', 'require', 'file'];

/**
 * The setup files the config at `file` names (jest setupFiles,
 * setupFilesAfterEach and setupFilesAfterEnv; vitest setupFiles and
 * globalSetup; mocha require and file), as repository paths. JSON and YAML
 * are parsed; in a script each key's value must be a string or an array of
 * strings. A name that is no path (`ts-node/register`) is left out; `exists`
 * tells which of the rest are files of the tree.
 */
export function setupFilesOf(file: string, text: string, exists: (p: string) => boolean): SetupFiles {
  const base = path.posix.basename(file);
  let named: string[];
  if (base === 'pytest.ini') named = [];
  else if (/\.(json|ya?ml)$/.test(base)) {
    const data = parsed(text, base.endsWith('.json'));
    if (data === undefined) return { unreadable: `${file} does not parse` };
    const pkg = data as { jest?: unknown; mocha?: unknown } | null;
    named = base === 'package.json' ? [...valuesOf(pkg?.jest), ...valuesOf(pkg?.mocha)] : valuesOf(data);
  } else {
    const values = scriptValues(text);
    if (typeof values === 'string')
      return { unreadable: `${file} gives ${values} a value that is not a string or a list of strings` };
    named = values;
  }
  const dir = path.posix.dirname(file);
  const files = named
    .filter((n) => n.startsWith('.') || n.startsWith('<rootDir>') || /\.[cm]?[jt]sx?$/.test(n))
    .map((n) => path.posix.normalize(path.posix.join(dir, n.replace(/^<rootDir>\/?/, ''))))
    .filter((p) => !p.startsWith('../') && exists(p));
  return { files: [...new Set(files)] };
}

function parsed(text: string, json: boolean): unknown {
  try {
    return json ? JSON.parse(text) : parseYaml(text);
  } catch {
    return undefined;
  }
}

/** The setup keys' string values in parsed data, at any depth (vitest's `test` section, jest's projects). */
function valuesOf(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (SETUP_KEYS.includes(k)) out.push(...[v].flat().filter((s): s is string => typeof s === 'string'));
    else out.push(...valuesOf(v));
  }
  return out;
}

const STRING = `(?:'[^'\\n]*'|"[^"\\n]*"|\`[^\`$\\n]*\`)`;

/**
 * The setup keys' values in a script, or the first key whose value is not a
 * string or an array of strings (a variable, a call, a spread): only running
 * the config would tell then.
 */
function scriptValues(text: string): string[] | string {
  const key = new RegExp(`(?:^|[\\s{,])['"]?(${SETUP_KEYS.join('|')})['"]?\\s*:\\s*`, 'g');
  const value = new RegExp(`^(?:${STRING}|\\[\\s*(?:${STRING}\\s*,?\\s*)*\\])`);
  const out: string[] = [];
  for (const m of text.matchAll(key)) {
    const v = value.exec(text.slice(m.index + m[0].length));
    if (!v) return m[1];
    out.push(...(v[0].match(new RegExp(STRING, 'g')) ?? []).map((s) => s.slice(1, -1)));
  }
  return out;
}
