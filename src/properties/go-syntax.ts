// Go sources compared by Go's own parser (go/parser, go/ast), through a small
// program (go-helper.ts) built once with the project's go. The build runs in
// a module of its own in a temporary folder (GO111MODULE=on, GOFLAGS empty,
// GOWORK=off, GOTOOLCHAIN=local), so nothing of the project's module, its
// go.work or its flags takes part, and it writes nothing into the project
// tree. The binary is kept under the git directory, keyed by the program's
// digest and the go version, with its own digest beside it: a binary that
// no longer matches is built again. Without go on PATH, or when the build
// fails, every Go change counts as behaviour.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Repo } from '../git/repo.js';
import { GO_HELPER } from './go-helper.js';
import { piped } from './piped.js';
import type { SourcePair } from './python-syntax.js';

/** The environment of every go command here: the judge's own settings, never the project's. */
function goEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GO111MODULE: 'on',
    GOFLAGS: '',
    GOWORK: 'off',
    GOTOOLCHAIN: 'local',
    CGO_ENABLED: '0',
  };
  for (const k of ['GOOS', 'GOARCH', 'GOEXPERIMENT']) delete env[k];
  return env;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The helper's path, or why there is none. */
type Helper = { path: string } | { missing: string };
const helpers = new Map<string, Promise<Helper>>();

/** The helper for this repository, built at the first call of a process that needs it. */
function goHelper(repo: Repo, say?: (line: string) => void): Promise<Helper> {
  let h = helpers.get(repo.commonDir);
  if (!h) {
    h = buildHelper(repo, say);
    helpers.set(repo.commonDir, h);
  }
  return h;
}

/** One go command in an empty folder; null when go is not on PATH. */
async function go(args: string[], cwd: string) {
  try {
    return await piped('go', args, cwd, Buffer.alloc(0), goEnv());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function buildHelper(repo: Repo, say?: (line: string) => void): Promise<Helper> {
  const work = mkdtempSync(path.join(tmpdir(), 'patchwarden-go-'));
  try {
    const version = await go(['env', 'GOVERSION'], work);
    if (!version) return { missing: 'go is not on PATH' };
    if (version.code !== 0) return { missing: `go env failed: ${version.stderr.trim().split('\n').pop()}` };
    const key = sha256(`${GO_HELPER}\0${version.stdout.trim()}`).slice(0, 16);
    const dir = path.join(repo.commonDir, 'patchwarden', 'go-syntax', key);
    const bin = path.join(dir, 'helper');
    const sum = `${bin}.sha256`;
    if (existsSync(bin) && existsSync(sum) && readFileSync(sum, 'utf8') === sha256(readFileSync(bin))) {
      return { path: bin };
    }
    writeFileSync(path.join(work, 'go.mod'), 'module patchwarden.invalid/gosyntax\n\ngo 1.18\n');
    writeFileSync(path.join(work, 'main.go'), GO_HELPER);
    mkdirSync(dir, { recursive: true });
    const tmp = `${bin}.new-${process.pid}`;
    say?.(
      `building the Go syntax helper with ${version.stdout.trim()} (once per Go version; kept in the git directory)`,
    );
    const built = await go(['build', '-trimpath', '-o', tmp, '.'], work);
    if (!built) return { missing: 'go is not on PATH' };
    if (built.code !== 0) {
      rmSync(tmp, { force: true });
      return { missing: `the Go syntax helper did not build with ${version.stdout.trim()}: ${built.stderr.trim()}` };
    }
    writeFileSync(sum, sha256(readFileSync(tmp)));
    renameSync(tmp, bin);
    return { path: bin };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The helper's answer, one line per pair or source, or why it has none. */
async function ask(
  repo: Repo,
  mode: 'compare' | 'names',
  sources: Buffer[],
  lines: number,
  say?: (line: string) => void,
) {
  const helper = await goHelper(repo, say);
  if ('missing' in helper) return { failed: helper.missing };
  const input = Buffer.concat([Buffer.from(`${mode} ${sources.map((s) => s.length).join(' ')}\n`), ...sources]);
  const empty = mkdtempSync(path.join(tmpdir(), 'patchwarden-go-'));
  try {
    const { code, stdout, stderr } = await piped(helper.path, [], empty, input, goEnv());
    const out = stdout.split('\n').slice(0, -1);
    if (code !== 0) return { failed: `the Go syntax helper exited ${code}: ${stderr.trim().split('\n').pop() ?? ''}` };
    if (out.length !== lines) return { failed: `the Go syntax helper answered for ${out.length} of ${lines}` };
    return { lines: out };
  } catch (err) {
    return { failed: `the Go syntax helper did not run: ${(err as Error).message}` };
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}

/** Per pair, null when both sides parse to the same tree, else why not. */
export async function compareGo(
  repo: Repo,
  pairs: SourcePair[],
  say?: (line: string) => void,
): Promise<(string | null)[]> {
  if (!pairs.length) return [];
  const r = await ask(
    repo,
    'compare',
    pairs.flatMap((p) => [p.old, p.new]),
    pairs.length,
    say,
  );
  if ('failed' in r) return pairs.map(() => `it cannot be compared (${r.failed}), so any change counts`);
  return r.lines.map((l) => (l === '=' ? null : l));
}

/** Per source, its package name and top-level names (methods as Type.Method); null where it does not parse, or all null without the helper. */
export async function goNames(repo: Repo, sources: Buffer[]): Promise<({ pkg: string; names: string[] } | null)[]> {
  if (!sources.length) return [];
  const r = await ask(repo, 'names', sources, sources.length);
  if ('failed' in r) return sources.map(() => null);
  return r.lines.map((l) => {
    if (l.startsWith('!')) return null;
    const [pkg, ...names] = l.split(' ');
    return { pkg, names };
  });
}
