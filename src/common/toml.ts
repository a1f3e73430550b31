// Reading a TOML file the project owns (pyproject.toml, Cargo.toml) or a lock
// a tool wrote (uv.lock, poetry.lock, Cargo.lock), through smol-toml.
import { parse } from 'smol-toml';

export type TomlTable = Record<string, unknown>;

/** `text` as a table, or an error message naming the first problem and its line. */
export function readToml(text: string): { table: TomlTable } | { error: string } {
  try {
    return { table: parse(text) as TomlTable };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
  }
}

/** The table at a dotted path (`tool.setuptools.packages.find`), or an empty one. */
export function tableAt(root: TomlTable, dotted: string): TomlTable {
  let at: unknown = root;
  for (const key of dotted.split('.')) at = isTable(at) ? at[key] : undefined;
  return isTable(at) ? at : {};
}

/** The strings of a value that is a string or an array of them; anything else gives none. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The `[[package]]` entries of a lock (uv, poetry, Cargo) as name, version and checksum. */
export function lockPackages(text: string): { name: string; version: string; checksum?: string }[] | { error: string } {
  const read = readToml(text);
  if ('error' in read) return read;
  const packages = Array.isArray(read.table.package) ? read.table.package : [];
  return packages
    .filter(isTable)
    .flatMap((p) =>
      typeof p.name === 'string' && typeof p.version === 'string'
        ? [{ name: p.name, version: p.version, ...(typeof p.checksum === 'string' ? { checksum: p.checksum } : {}) }]
        : [],
    );
}

const isTable = (v: unknown): v is TomlTable =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
