// Whether the `git commit` that runs the pre-commit hook amends HEAD. Git tells
// the hook nothing about it: no argument and no variable, and the
// prepare-commit-msg hook, which runs after pre-commit, hears `commit HEAD` for
// `--amend` only without -m/-F, and the same for `-C HEAD`. So the hook reads
// the command line of the git process that started it (Linux's /proc), as git
// itself would parse it.
import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { aliasOf } from '../git/repo.js';

/** Whether the git process that started this hook is a `git commit --amend` (an alias of commit counts). */
export async function amendingCommit(dir: string): Promise<boolean> {
  const argv = gitAncestor();
  let sub = argv && subcommand(argv);
  if (sub && sub.name !== 'commit') {
    // git expands an alias inside the same process: `git ci --amend` with alias.ci = commit.
    const words = ((await aliasOf(dir, sub.name)) ?? '').split(/\s+/);
    sub = words[0] === 'commit' ? { name: 'commit', args: [...words.slice(1), ...sub.args] } : null;
  }
  return sub ? amends(sub.args) : false;
}

/** The nearest git process above this one, as its argv; null when none is found or /proc is absent. */
export function gitAncestor(): string[] | null {
  let pid = process.ppid;
  for (let hop = 0; hop < 16 && pid > 1; hop++) {
    let argv: string[];
    let stat: string;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    if (argv[argv.length - 1] === '') argv.pop();
    // By name, or by the program itself: `exec -a other git commit --amend` renames argv[0].
    if (/^git(-[a-z-]+)?$/.test(path.basename(argv[0] ?? '')) || path.basename(exe(pid)) === 'git') return argv;
    // stat is "pid (comm) state ppid ...", and comm may hold spaces and parentheses.
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return null;
}

function exe(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
}

/** git's own options that take the next word as their value. */
const GIT_VALUE = new Set([
  '-c',
  '-C',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--shallow-file',
  '--exec-path',
  '--attr-source',
]);

/** The subcommand and its arguments of a git argv (`git -C x commit --amend`, or `git-commit --amend`). */
export function subcommand(argv: string[]): { name: string; args: string[] } | null {
  const dashed = path.basename(argv[0]).match(/^git-(.+)$/);
  if (dashed) return { name: dashed[1], args: argv.slice(1) };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-')) return { name: a, args: argv.slice(i + 1) };
    if (a === '--') return null;
    if (GIT_VALUE.has(a)) i++;
  }
  return null;
}

/**
 * `git commit`'s long options (git 2.39), hidden ones too: true where the
 * value may be the next word. test/hooks/amend-args.test.ts holds it to
 * `git commit --git-completion-helper-all` of the git installed.
 */
export const LONG: Record<string, boolean> = {
  quiet: false,
  verbose: false,
  file: true,
  author: true,
  date: true,
  message: true,
  'reedit-message': true,
  'reuse-message': true,
  fixup: true,
  squash: true,
  'reset-author': false,
  trailer: true,
  signoff: false,
  template: true,
  edit: false,
  cleanup: true,
  status: false,
  'gpg-sign': false,
  all: false,
  include: false,
  interactive: false,
  patch: false,
  only: false,
  verify: false,
  'dry-run': false,
  short: false,
  branch: false,
  'ahead-behind': false,
  porcelain: false,
  long: false,
  null: false,
  amend: false,
  'post-rewrite': false,
  'untracked-files': false,
  'pathspec-from-file': true,
  'pathspec-file-nul': false,
  'allow-empty': false,
  'allow-empty-message': false,
};
/** Short options whose value is the rest of the word or the next word; and those whose optional value can only be attached. */
const SHORT_VALUE = 'mFcCt';
const SHORT_OPTIONAL = 'Su';

/** Whether `git commit ARGS` amends: the last of --amend and --no-amend (abbreviated as git allows) wins. */
export function amends(args: string[]): boolean {
  let amend = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a.startsWith('--')) {
      const [word, value] = [a.slice(2).split('=')[0], a.includes('=')];
      const opt = longOption(word);
      if (!opt) continue;
      if (opt.name === 'amend') amend = !opt.negated;
      if (LONG[opt.name] && !opt.negated && !value) i++;
    } else if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        if (SHORT_OPTIONAL.includes(a[j])) break;
        if (SHORT_VALUE.includes(a[j])) {
          if (j === a.length - 1) i++;
          break;
        }
      }
    }
  }
  return amend;
}

/** A long option as git resolves it: exact, negated with no-, or a unique prefix of either. */
function longOption(word: string): { name: string; negated: boolean } | null {
  if (Object.hasOwn(LONG, word)) return { name: word, negated: false };
  if (word.startsWith('no-') && Object.hasOwn(LONG, word.slice(3))) return { name: word.slice(3), negated: true };
  const hits = Object.keys(LONG).flatMap((name) => [
    ...(name.startsWith(word) ? [{ name, negated: false }] : []),
    ...(`no-${name}`.startsWith(word) ? [{ name, negated: true }] : []),
  ]);
  return hits.length === 1 ? hits[0] : null;
}
