// What the dependency checks of deps.ts share: one linked entry's mismatch
// with the base's lock files, and how a file of the base beside it is read.

/** What one linked entry lacks, and the command that installs it from the base's locks. */
export interface Mismatch {
  problem: string;
  /** The install command, run in the entry's folder (null: none applies). */
  install: string | null;
  /** The command runs at the top of the tree instead. */
  atTop?: boolean;
}

/** Reads a file of the base in the entry's folder (null: the base has none). */
export type BaseFile = (name: string) => Promise<string | null>;

/** The first few items of a list, and how many there are in all. */
export function shown(items: string[]): string {
  return items.slice(0, 8).join(', ') + (items.length > 8 ? `, … (${items.length} in all)` : '');
}
