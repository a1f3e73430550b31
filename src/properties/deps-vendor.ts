// A linked vendor folder against the base's lock beside it: Go's
// (vendor/modules.txt, every module it lists at a version go.sum records)
// and cargo's (`cargo vendor`: each crate's name, version and
// .cargo-checksum.json package digest as Cargo.lock records them).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { lockPackages, readToml, tableAt } from '../common/toml.js';
import { type BaseFile, type Mismatch, shown } from './mismatch.js';

type Vendor = 'go' | 'cargo';

/** Which vendor folder `dir` is (null: neither). */
export function vendorKind(dir: string): Vendor | null {
  if (existsSync(path.join(dir, 'modules.txt'))) return 'go';
  try {
    for (const d of readdirSync(dir)) if (existsSync(path.join(dir, d, '.cargo-checksum.json'))) return 'cargo';
  } catch {
    return null;
  }
  return null;
}

export async function vendorProblems(
  kind: Vendor,
  entry: string,
  dir: string,
  baseFile: BaseFile,
): Promise<Mismatch[]> {
  const lockName = kind === 'go' ? 'go.sum' : 'Cargo.lock';
  const install = kind === 'go' ? 'go mod vendor' : 'cargo vendor --locked';
  const lock = await baseFile(lockName);
  if (lock === null)
    return [{ problem: `${entry}: the base has no ${lockName} beside it to check it against`, install: null }];
  const differ = kind === 'go' ? goDiffer(dir, lock) : cargoDiffer(dir, lock);
  if ('error' in differ)
    return [{ problem: `${entry}: the base's ${lockName} is not valid TOML (${differ.error})`, install: null }];
  return differ.length
    ? [{ problem: `${entry} holds modules the base's ${lockName} does not: ${shown(differ)}`, install }]
    : [];
}

/** Each `# module version` of modules.txt (a replacement's own version where it names one) has a go.sum line. */
function goDiffer(dir: string, goSum: string): string[] {
  const summed = new Set(
    goSum.split('\n').map((l) =>
      l
        .split(' ')
        .slice(0, 2)
        .join(' ')
        .replace(/\/go\.mod$/, ''),
    ),
  );
  const differ: string[] = [];
  for (const line of readFileSync(path.join(dir, 'modules.txt'), 'utf8').split('\n')) {
    if (!line.startsWith('# ')) continue;
    const pairs = [...line.slice(2).matchAll(/(\S+) (v\S+)/g)];
    const last = pairs[pairs.length - 1];
    if (last && !summed.has(`${last[1]} ${last[2]}`)) differ.push(`${last[1]} ${last[2]}`);
  }
  return differ;
}

/** Each vendored crate is a package of Cargo.lock at its version and checksum. */
function cargoDiffer(dir: string, cargoLock: string): string[] | { error: string } {
  const packages = lockPackages(cargoLock);
  if ('error' in packages) return packages;
  const locked = new Set(packages.map((p) => `${p.name} ${p.version} ${p.checksum ?? ''}`));
  const differ: string[] = [];
  for (const d of readdirSync(dir)) {
    const sums = path.join(dir, d, '.cargo-checksum.json');
    const manifest = path.join(dir, d, 'Cargo.toml');
    if (!existsSync(sums) || !existsSync(manifest)) continue;
    const read = readToml(readFileSync(manifest, 'utf8'));
    const pkg = 'table' in read ? tableAt(read.table, 'package') : {};
    const name = typeof pkg.name === 'string' ? pkg.name : undefined;
    const version = typeof pkg.version === 'string' ? pkg.version : undefined;
    const checksum = (JSON.parse(readFileSync(sums, 'utf8')).package as string | null) ?? '';
    if (!locked.has(`${name} ${version} ${checksum}`)) differ.push(`${name ?? d} ${version ?? '?'}`);
  }
  return differ;
}
