// The workspace packages a JavaScript project declares: pnpm-workspace.yaml's
// `packages`, else package.json's `workspaces` (npm and yarn: a list, or
// `{ "packages": [...] }`), each pattern expanded over the folders on disk.
// `init` zones their code; the revert check links each one's node_modules.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { globMatcher } from '../zones/glob.js';

const read = (root: string, file: string): string | null => {
  try {
    return readFileSync(path.join(root, file), 'utf8');
  } catch {
    return null;
  }
};

export const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The workspace patterns as written (`!` ones exclude), and the file that declares them (null: none). */
export function workspacePatterns(root: string): { file: string | null; patterns: string[] } {
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const pnpm = read(root, 'pnpm-workspace.yaml');
  if (pnpm !== null) {
    try {
      return { file: 'pnpm-workspace.yaml', patterns: strings(parse(pnpm)?.packages) };
    } catch {
      return { file: 'pnpm-workspace.yaml', patterns: [] };
    }
  }
  try {
    const w = JSON.parse(read(root, 'package.json') ?? '').workspaces;
    const patterns = strings(Array.isArray(w) ? w : w?.packages);
    return { file: patterns.length ? 'package.json' : null, patterns };
  } catch {
    return { file: null, patterns: [] };
  }
}

/** The workspace packages' folders (relative, with a package.json), the excluded ones left out. */
export function workspaceDirs(root: string): string[] {
  const { patterns } = workspacePatterns(root);
  const clean = (p: string) => p.replace(/^\.\//, '').replace(/\/+$/, '');
  const excluded = globMatcher(patterns.filter((p) => p.startsWith('!')).map((p) => clean(p.slice(1))));
  const dirs = patterns
    .filter((p) => !p.startsWith('!'))
    .flatMap((p) => expandPattern(root, clean(p)))
    .filter((d) => d !== '' && !excluded(d) && read(root, `${d}/package.json`) !== null);
  return [...new Set(dirs)];
}

/** The folders a pattern names: `*` within one name, `**` at any depth (dot folders and node_modules left out). */
export function expandPattern(root: string, pattern: string): string[] {
  let dirs = [''];
  for (const seg of pattern.split('/')) {
    if (seg === '**') {
      dirs = dirs.flatMap((d) => [d, ...below(root, d)]);
      continue;
    }
    dirs = seg.includes('*')
      ? dirs.flatMap((d) => {
          const re = new RegExp(
            `^${seg
              .split('*')
              .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
              .join('.*')}$`,
          );
          return children(root, d).filter((c) => re.test(path.posix.basename(c)));
        })
      : dirs.map((d) => path.posix.join(d, seg));
  }
  return [...new Set(dirs)].filter((d) => isDir(path.join(root, d)));
}

function children(root: string, dir: string): string[] {
  try {
    return readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      .map((e) => path.posix.join(dir, e.name));
  } catch {
    return [];
  }
}

/** Every folder below `dir`, a few levels deep at most (a workspace is never deeper). */
function below(root: string, dir: string, depth = 4): string[] {
  if (!depth) return [];
  return children(root, dir).flatMap((c) => [c, ...below(root, c, depth - 1)]);
}
