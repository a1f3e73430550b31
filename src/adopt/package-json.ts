// The project's package.json, read for an edit and written back in its own
// indent: init adds the "prepare" entry and uninstall takes it out again.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface PackageJson {
  scripts?: Record<string, string>;
}

/** null where the project has no package.json, 'invalid' where it does not parse; else the parsed file and how to save it. */
export function editPackageJson(root: string): { pkg: PackageJson; save(): void } | null | 'invalid' {
  const file = path.join(root, 'package.json');
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  let pkg: PackageJson;
  try {
    pkg = JSON.parse(text);
  } catch {
    return 'invalid';
  }
  const indent = /^\{\n([ \t]+)/.exec(text)?.[1] ?? '  ';
  return { pkg, save: () => writeFileSync(file, `${JSON.stringify(pkg, null, indent)}\n`) };
}
