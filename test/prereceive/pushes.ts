// Large pushes written as `git fast-import` streams, for the load tests and
// `npm run bench server`: a base commit on main, branches of many commits
// each, and one commit of thousands of files with odd names. A refusal can be
// planted in any of them: a tamper hit, or a commit that mixes production
// code and the spec.

/** What a planted commit does: adds `process.exit(0)` to production code, or changes src and spec together. */
export type Plant = 'tamper' | 'mix';

const COMMITTER = (t: number) => `committer Load <load@example.com> ${1700000000 + t} +0000`;

/** A path as fast-import reads it: C-style quoted, every byte outside printable ASCII in octal. */
function quoted(p: Buffer): string {
  let out = '"';
  for (const b of p)
    out +=
      b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c
        ? String.fromCharCode(b)
        : `\\${b.toString(8).padStart(3, '0')}`;
  return `${out}"`;
}

const file = (p: string | Buffer, text: string) =>
  `M 100644 inline ${quoted(Buffer.isBuffer(p) ? p : Buffer.from(p))}\ndata ${Buffer.byteLength(text)}\n${text}`;

const message = (text: string) => `data ${Buffer.byteLength(text)}\n${text}`;

/** main: the config, 50 production files, the spec, 40 tests and `extra`; mark :1. */
export function baseImport(config = 'version: 1\n', extra: Record<string, string> = {}): string {
  const lines = ['commit refs/heads/main', 'mark :1', COMMITTER(0), message('base')];
  lines.push(file('.patchwarden.yml', config), file('spec/invariants.yaml', 'version: 1\ninvariants: []\n'));
  for (let i = 0; i < 50; i++) lines.push(file(`src/m${i}.ts`, `export const v${i} = 0;\n`));
  for (let i = 0; i < 40; i++) lines.push(file(`tests/t${i}.test.ts`, `test ${i}\n`));
  for (const [p, text] of Object.entries(extra)) lines.push(file(p, text));
  return `${lines.join('\n')}\n\n`;
}

/**
 * Branches b0, b1, … off the base, each `commits` commits of production code
 * (every third with a test); `plants` puts a refusal halfway up the branches it names.
 */
export function branchesImport(count: number, commits: number, plants: Map<number, Plant> = new Map()): string {
  const lines: string[] = [];
  for (let b = 0; b < count; b++) {
    for (let c = 1; c <= commits; c++) {
      lines.push(`commit refs/heads/b${b}`, COMMITTER(b * commits + c), message(`b${b} change ${c}`));
      if (c === 1) lines.push('from :1');
      lines.push(file(`src/b${b}/m${c % 50}.ts`, `export const v = ${c};\n`));
      if (c % 3 === 0) lines.push(file(`tests/b${b}/t${c % 40}.test.ts`, `test ${c}\n`));
      if (c === commits >> 1 && plants.get(b) === 'tamper')
        lines.push(file(`src/b${b}/exit.ts`, 'export function done() {\n  process.exit(0);\n}\n'));
      if (c === commits >> 1 && plants.get(b) === 'mix')
        lines.push(file(`spec/b${b}.yaml`, 'version: 1\ninvariants: []\n'));
      lines.push('');
    }
  }
  return lines.join('\n');
}

/** The odd part of the name of file `i`: spaces, a newline, a byte that is not UTF-8, a leading dash, unicode. */
function oddName(i: number): Buffer {
  switch (i % 6) {
    case 0:
      return Buffer.from(`src/with spaces/file ${i} .ts`);
    case 1:
      return Buffer.from(`src/new\nline/f${i}\n.py`);
    case 2:
      return Buffer.concat([Buffer.from(`src/latin1/caf`), Buffer.from([0xe9, 0xff]), Buffer.from(` ${i}.ts`)]);
    case 3:
      return Buffer.from(`src/-dash/--help ${i}.js`);
    case 4:
      return Buffer.from(`src/ünï/файл ${i} 🧪.ts`);
    default:
      return Buffer.from(`-n ${i}.ts`);
  }
}

/** The name `oddFiles` gives the planted file: a newline, a dash and unicode in one. */
export const PLANTED = 'src/new\nline/-rf ü.ts';

/** One commit on branch `branch` (from the base) adding `count` files with odd names; `plant` adds a refusal. */
export function oddFilesImport(count: number, branch: string, plant?: Plant): string {
  const lines = [`commit refs/heads/${branch}`, COMMITTER(1), message(`${count} files`), 'from :1'];
  for (let i = 0; i < count; i++) {
    const name = oddName(i);
    const py = name.toString('latin1').endsWith('.py');
    lines.push(file(name, py ? `v_${i} = ${i}\n` : `export const v${i} = ${i};\n`));
  }
  if (plant === 'tamper') lines.push(file(PLANTED, 'export function done() {\n  process.exit(0);\n}\n'));
  if (plant === 'mix') lines.push(file('spec/odd\nname.yaml', 'version: 1\ninvariants: []\n'));
  return `${lines.join('\n')}\n\n`;
}
