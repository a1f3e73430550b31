// Real git repositories in temporary folders, and the built CLI run against
// them as a user would run it.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built CLI; PATCHWARDEN_BUILD_DIR points at another build. */
export const DIST = path.resolve(PROJECT, process.env.PATCHWARDEN_BUILD_DIR ?? 'dist');
export const CLI = path.join(DIST, 'main.js');
/** A folder with only `patchwarden` in it, for PATH (outside the build, which is swapped whole). */
export const BIN = path.join(PROJECT, 'node_modules/.cache/patchwarden-test-bin', path.basename(DIST));

/** An environment free of the caller's git identity and config. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('GIT_') && !k.startsWith('PATCHWARDEN_') && k !== 'HUSKY') env[k] = v;
  return {
    ...env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
    PATH: `${BIN}:${process.env.PATH}`,
    ...extra,
  };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function sh(cmd: string, args: string[], opts: SpawnSyncOptions = {}): Run {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: cleanEnv(), ...opts, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status ?? 128, stdout: String(r.stdout), stderr: String(r.stderr) };
}

export class TempRepo {
  readonly dir: string;
  env: NodeJS.ProcessEnv;
  constructor(dir: string, env: NodeJS.ProcessEnv = {}) {
    this.dir = dir;
    this.env = cleanEnv(env);
  }
  /** Runs git; throws with its stderr unless `allowFail`. */
  git(args: string[], opts: { input?: string; allowFail?: boolean; env?: NodeJS.ProcessEnv } = {}): Run {
    const r = sh('git', args, { cwd: this.dir, input: opts.input, env: { ...this.env, ...opts.env } });
    if (r.code !== 0 && !opts.allowFail) throw new Error(`git ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r;
  }
  /** Runs the built CLI in this repository. */
  pw(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Run {
    return sh(process.execPath, [CLI, ...args], {
      cwd: this.dir,
      input: opts.input,
      env: { ...this.env, ...opts.env },
    });
  }
  /** Parses the JSON object the CLI prints with --format json. */
  json(
    args: string[],
    opts: { input?: string; env?: NodeJS.ProcessEnv } = {},
  ): { code: number; out: Record<string, any>; stderr: string } {
    const r = this.pw([...args, '--format', 'json'], opts);
    let out: Record<string, any>;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
    }
    return { code: r.code, out, stderr: r.stderr };
  }
  write(file: string, content: string | Buffer): this {
    const p = path.join(this.dir, file);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
    return this;
  }
  /** Writes the files, stages them all and commits (hooks skipped). */
  commit(files: Record<string, string | Buffer>, message = 'change'): string {
    for (const [f, c] of Object.entries(files)) this.write(f, c);
    this.git(['add', '-A']);
    this.git(['commit', '-q', '--no-verify', '--allow-empty', '-m', message]);
    return this.head();
  }
  head(): string {
    return this.git(['rev-parse', 'HEAD']).stdout.trim();
  }
  rm(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const made: TempRepo[] = [];

/** A fresh repository on branch main; removed by `cleanup()`. */
export function tempRepo(opts: { bare?: boolean; env?: NodeJS.ProcessEnv } = {}): TempRepo {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-test-'));
  const repo = new TempRepo(dir, opts.env);
  repo.git(['init', '-q', '-b', 'main', ...(opts.bare ? ['--bare'] : [])]);
  made.push(repo);
  return repo;
}

/** Installs the shipped pre-push hook in a work tree, as `init` would with plain git hooks. */
export function installPrePush(repo: TempRepo): void {
  const hook = path.join(repo.dir, '.git/hooks/pre-push');
  copyFileSync(path.join(PROJECT, 'hooks/pre-push'), hook);
  chmodSync(hook, 0o755);
}

export function cleanup(): void {
  for (const r of made.splice(0)) r.rm();
}

/**
 * Makes sure `patchwarden` is on PATH for hooks run by real git. Test files
 * run in parallel and a hook may be running the shim right now: it is
 * written beside and renamed into place, never truncated where it stands.
 */
export function ensureBin(): void {
  const shim = path.join(BIN, 'patchwarden');
  const body = `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`;
  if (existsSync(shim) && readFileSync(shim, 'utf8') === body) return;
  mkdirSync(BIN, { recursive: true });
  const tmp = `${shim}.${process.pid}`;
  writeFileSync(tmp, body, { mode: 0o755 });
  renameSync(tmp, shim);
}
ensureBin();
