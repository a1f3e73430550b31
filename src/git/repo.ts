// Finding the repository a command runs in, worktree or bare.
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { CannotJudge } from '../common/errors.js';
import { runGit, splitNul, type RunOptions, type RunResult } from './run.js';

export interface Repo {
  /** The working tree's top folder; null in a bare repository. */
  root: string | null;
  /** This worktree's git directory (absolute). */
  gitDir: string;
  /** The git directory shared by all worktrees (absolute). */
  commonDir: string;
  /** Where git commands run: the root, or the git directory when bare. */
  cwd: string;
  run(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** Runs git and returns its stdout as text without the final newline. */
  text(args: string[], opts?: RunOptions): Promise<string>;
}

/**
 * What `git rev-parse` prints about the repository. --show-cdup rather than
 * --show-toplevel: some git versions refuse the latter in a bare repository.
 * Callers may append revisions to the same call: one process is all a hook
 * can afford.
 */
export const REPO_FLAGS = [
  '--is-bare-repository',
  '--is-inside-work-tree',
  '--absolute-git-dir',
  '--git-common-dir',
  '--show-cdup',
];

export async function openRepo(dir: string): Promise<Repo> {
  let out: string;
  try {
    out = (await runGit(dir, ['rev-parse', ...REPO_FLAGS])).stdout.toString('utf8');
  } catch (err) {
    throw notARepo(dir, err);
  }
  return repoFrom(dir, out.split('\n'));
}

/**
 * The same, read from disk when `dir` is a plain top folder (plainTop), so
 * that a command which starts git anyway starts one process fewer.
 */
export async function repoAt(dir: string): Promise<Repo> {
  const top = plainTop(dir);
  if (!top) return openRepo(dir);
  const gitDir = path.join(top, '.git');
  return makeRepo(top, gitDir, gitDir);
}

/** Variables that point git at another repository or work tree, or add to its config. */
const ELSEWHERE = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
];

/**
 * `dir` resolved, when git would name it the top of its working tree from
 * what is read here: it holds a `.git` folder with a HEAD and objects, no
 * variable points git elsewhere, and the repository's config says nothing of
 * a work tree or of being bare (git reads neither from an included file).
 * Null: ask git (`openRepo`). Spares a command that reads only files on disk
 * starting git.
 */
export function plainTop(dir: string): string | null {
  if (ELSEWHERE.some((name) => process.env[name] !== undefined)) return null;
  try {
    const real = realpathSync.native(dir);
    const gitDir = path.join(real, '.git');
    if (!lstatSync(gitDir).isDirectory() || !lstatSync(path.join(gitDir, 'HEAD')).isFile()) return null;
    if (!lstatSync(path.join(gitDir, 'objects')).isDirectory()) return null;
    return saysPlain(readFileSync(path.join(gitDir, 'config'), 'utf8')) ? real : null;
  } catch {
    return null;
  }
}

/**
 * Whether a repository's config sets no work tree and does not say it is bare:
 * no key named worktree or worktreeConfig, no bare but `bare = false`, judged by
 * the key (in whatever section: a stray one only costs asking git), so a
 * remote URL holding "bare" does not. A line continued onto the next is not read.
 */
function saysPlain(config: string): boolean {
  for (const raw of config.split('\n')) {
    if (/\\\s*$/.test(raw)) return false;
    // A section header may hold the first key on its own line: `[core] bare = true`.
    const line = raw.replace(/^\s*\[[^\]]*\]/, '').trim();
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    const key = m?.[1].toLowerCase();
    if (key === 'worktree' || key === 'worktreeconfig') return false;
    if (key === 'bare' && !/^"?(false|no|off|0)"?\s*(?:[#;].*)?$/i.test(m![2] ?? '')) return false;
  }
  return true;
}

export function notARepo(dir: string, err: unknown): CannotJudge {
  return new CannotJudge(`not a git repository: ${dir} (${(err as Error).message.replace(/^.*?failed: /, '')})`);
}

/** The repository from the first lines of `rev-parse REPO_FLAGS` run in `dir`. */
export function repoFrom(dir: string, lines: string[]): Repo {
  const [bare, inside, gitDir, common, cdup] = lines;
  const real = realpathSync.native(dir);
  const root = bare !== 'true' && inside === 'true' ? path.resolve(real, cdup) : null;
  return makeRepo(root, gitDir, path.resolve(real, common));
}

function makeRepo(root: string | null, gitDir: string, commonDir: string): Repo {
  const cwd = root ?? gitDir;
  const run = (args: string[], opts?: RunOptions) => runGit(cwd, args, opts);
  return {
    root,
    gitDir,
    commonDir,
    cwd,
    run,
    text: async (args, opts) => (await run(args, opts)).stdout.toString('utf8').replace(/\n$/, ''),
  };
}

/** The repository's root, or a clear error for a bare one. */
export function worktreeRoot(repo: Repo): string {
  if (!repo.root) throw new CannotJudge('this command needs a working tree; this is a bare repository');
  return repo.root;
}

/** The commit a revision names, or null when it names none. */
export async function commitOrNull(repo: Repo, rev: string): Promise<string | null> {
  const r = await repo.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    okCodes: [1, 128],
  });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

/** Resolves a revision to a commit id, or explains that it does not exist. */
export async function resolveCommit(repo: Repo, rev: string): Promise<string> {
  const r = await repo.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    okCodes: [1],
  });
  const id = r.stdout.toString('utf8').trim();
  if (r.code !== 0 || !id) throw new CannotJudge(`no such commit: ${rev}`);
  return id;
}

/**
 * The commit each of `revs` names, in order, null where it names none, from
 * one git process. cat-file reads names a line each, so a name holding a line
 * break (or a carriage return, which it would drop) is resolved the long way.
 */
export async function commitsOrNull(repo: Repo, revs: string[]): Promise<(string | null)[]> {
  if (revs.some((r) => /[\r\n]/.test(r))) return Promise.all(revs.map((r) => commitOrNull(repo, r)));
  if (!revs.length) return [];
  const out = await repo.text(['cat-file', '--batch-check=%(objectname)'], {
    input: revs.map((r) => `${r}^{commit}\n`).join(''),
  });
  // A name it cannot resolve is answered "NAME missing" (or "ambiguous").
  const lines = out.split('\n');
  return revs.map((_, i) => (/^[0-9a-f]{40,64}$/.test(lines[i] ?? '') ? lines[i] : null));
}

/** The commit each of `revs` names, in order, from one git process; an error naming the first that names none. */
export async function resolveCommits(repo: Repo, revs: string[]): Promise<string[]> {
  const ids = await commitsOrNull(repo, revs);
  const missing = ids.indexOf(null);
  if (missing >= 0) throw new CannotJudge(`no such commit: ${revs[missing]}`);
  return ids as string[];
}

/**
 * The commit a revision names and its first parent (null for a root commit),
 * from one git process; or an explanation that the revision names no commit.
 */
export async function commitAndParent(repo: Repo, rev: string): Promise<{ id: string; parent: string | null }> {
  const [id, parent] = await commitsOrNull(repo, [rev, `${rev}^{commit}^`]);
  if (!id) throw new CannotJudge(`no such commit: ${rev}`);
  return { id, parent };
}

/** The best common ancestor of two commits, or null when they share no history. */
export async function mergeBase(repo: Repo, a: string, b: string): Promise<string | null> {
  const r = await repo.run(['merge-base', a, b], { okCodes: [1] });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

/** Whether commit `a` is `b` or one of its ancestors; false when either is absent. */
export async function isAncestor(repo: Repo, a: string, b: string): Promise<boolean> {
  return (await repo.run(['merge-base', '--is-ancestor', a, b], { okCodes: [1, 128] })).code === 0;
}

/** git's all-zero object id (either hash format): a ref being created or deleted, or no commit at all. */
export const isZeroId = (oid: string) => /^0+$/.test(oid);
export const ZERO_ID = '0'.repeat(40);

/** The empty tree's id in this repository's hash format. */
export async function emptyTree(repo: Repo): Promise<string> {
  return repo.text(['hash-object', '-t', 'tree', '--stdin']);
}

/** A git config value, or null when it is not set. */
export async function configValue(repo: Repo, key: string): Promise<string | null> {
  const r = await repo.run(['config', '--get', key], { okCodes: [1] });
  return r.stdout.toString('utf8').trim() || null;
}

/**
 * Every config key that `pattern` (git's extended regexp) matches, lowercased,
 * with its value; a key set with no value reads as `true`, as git reads it.
 */
export async function configMatching(repo: Repo, pattern: string): Promise<Map<string, string>> {
  const r = await repo.run(['config', '-z', '--get-regexp', pattern], { okCodes: [1] });
  return new Map(
    splitNul(r.stdout).map((e) => {
      const nl = e.indexOf('\n');
      return nl < 0 ? [e.toLowerCase(), 'true'] : [e.slice(0, nl).toLowerCase(), e.slice(nl + 1)];
    }),
  );
}

/** What `alias.NAME` expands to in the repository at `dir`, or null when it is not set. */
export async function aliasOf(dir: string, name: string): Promise<string | null> {
  const r = await runGit(dir, ['config', '--get', `alias.${name}`], { okCodes: [1] });
  return r.stdout.toString('utf8').trim() || null;
}

/** A git config value and the scope that sets it (system, global, local, worktree, command), or null when it is not set. */
export async function configWithScope(repo: Repo, key: string): Promise<{ scope: string; value: string } | null> {
  const r = await repo.run(['config', '--show-scope', '--get', key], { okCodes: [1] });
  const line = r.stdout.toString('utf8').trim();
  const tab = line.indexOf('\t');
  return tab < 0 ? null : { scope: line.slice(0, tab), value: line.slice(tab + 1) };
}

/** A boolean git config value, read the way git reads it. */
export async function configBool(repo: Repo, key: string): Promise<boolean> {
  const r = await repo.run(['config', '--type=bool', '--get', key], { okCodes: [1] });
  return r.stdout.toString('utf8').trim() === 'true';
}

/** Where git keeps `name` in this repository's git directory (`hooks`, `info/exclude`), as git resolves it (relative to `cwd`, or absolute). */
export async function gitPath(repo: Repo, name: string): Promise<string> {
  return repo.text(['rev-parse', '--git-path', name]);
}

/**
 * Who git says commits or authors here (`Name <email>`, without the date:
 * config, GIT_COMMITTER_* and GIT_AUTHOR_* alike), or null when git cannot
 * tell (no email set and none to guess).
 */
export async function identity(repo: Repo, who: 'author' | 'committer'): Promise<string | null> {
  const r = await repo.run(['var', who === 'author' ? 'GIT_AUTHOR_IDENT' : 'GIT_COMMITTER_IDENT'], { okCodes: [128] });
  return r.code === 0
    ? r.stdout
        .toString('utf8')
        .trim()
        .replace(/ \d+ [-+]\d{4}$/, '')
    : null;
}

/**
 * Git's variables as `git var -l` prints them, one `NAME=value` a line: the
 * config first, then GIT_AUTHOR_IDENT, GIT_COMMITTER_IDENT and the rest.
 */
export async function gitVars(repo: Repo): Promise<string[]> {
  return (await repo.text(['var', '-l'])).split('\n');
}
