// Runs git plumbing. Output stays bytes until the caller splits it: paths are
// read NUL-separated (-z), so spaces, newlines and quotes survive.
import { spawn, spawnSync } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { CannotJudge } from '../common/errors.js';

export interface RunOptions {
  input?: Buffer | string;
  env?: NodeJS.ProcessEnv;
  /** Exit codes that are answers rather than failures (e.g. 1 for "no"). */
  okCodes?: number[];
  /** Takes stdout chunk by chunk instead of keeping it (the result's stdout is then empty). */
  onStdout?: (chunk: Buffer) => void;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Settings that would change plumbing output are pinned for every call. */
const pinned = [
  '-c',
  'core.quotePath=false',
  '-c',
  'diff.noprefix=false',
  '-c',
  'color.ui=false',
  '-c',
  'advice.graftFileDeprecated=false',
];

/**
 * Every process reads the real objects: a replace ref (refs/replace/*) or an
 * info/grafts file would let whoever can write them show the guard a decoy
 * history or tree in place of the one being judged.
 */
const realObjects = { GIT_NO_REPLACE_OBJECTS: '1', GIT_GRAFT_FILE: '/dev/null' };

/**
 * Into a pipe git flushes after every record (each commit of a walk, each
 * answer of a --stdin batch): 50,000 small writes cost both processes more
 * than the walk itself. Every call here hands git its whole input at once,
 * so none waits on an answer, and git's output can be fully buffered.
 */
const buffered = { GIT_FLUSH: '0' };

/** For commands that write refs or worktrees: the user's hooks (reference-transaction, post-checkout) must not run for the guard's own bookkeeping. */
export const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

export function runGit(cwd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...pinned, ...args], {
      cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...buffered, ...opts.env, ...realObjects },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', opts.onStdout ?? ((b: Buffer) => out.push(b)));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new CannotJudge(`cannot run git: ${e.message}`)));
    child.stdin.on('error', () => {
      /* git may exit before reading all input; its exit code tells */
    });
    child.on('close', (code) => {
      try {
        resolve(settle(args, opts, Buffer.concat(out), Buffer.concat(err).toString('utf8'), code));
      } catch (e) {
        reject(e);
      }
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * The same, blocking, for the pre-commit hook's two calls: node spends less
 * on a blocking spawn than on an asynchronous one (no streams to set up), and
 * on every commit that is worth more than running the two at once. No input;
 * the output is kept whole.
 */
export function runGitSync(cwd: string, args: string[], opts: Pick<RunOptions, 'env' | 'okCodes'> = {}): RunResult {
  const r = spawnSync('git', [...pinned, ...args], {
    cwd,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...buffered, ...opts.env, ...realObjects },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 2 ** 31,
  });
  if (r.error) throw new CannotJudge(`cannot run git: ${r.error.message}`);
  return settle(args, opts, r.stdout, r.stderr.toString('utf8'), r.status);
}

/** The result, or a CannotJudge unless git exited 0 or with one of `okCodes` (a signal never counts). */
function settle(
  args: string[],
  opts: Pick<RunOptions, 'okCodes'>,
  stdout: Buffer,
  stderr: string,
  code: number | null,
): RunResult {
  if (code === 0 || (code !== null && opts.okCodes?.includes(code))) return { stdout, stderr, code };
  throw new CannotJudge(`git ${args.join(' ')} failed: ${stderr.trim() || `exit ${code}`}`);
}

/** Splits NUL-separated output, dropping the trailing empty field. */
export function splitNul(buf: Buffer): string[] {
  const parts = buf.toString('utf8').split('\0');
  if (parts.length && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * A stdout taker for runGit that hands over NUL-separated fields as they
 * arrive, so a long output is read while git is still writing it. A field
 * split across chunks (or a character split across them) is joined first.
 */
export function nulFields(onField: (field: string) => void): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  return (chunk) => {
    const text = rest + decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\0'); end !== -1; end = text.indexOf('\0', start)) {
      onField(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
  };
}
