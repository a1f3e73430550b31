// The pre-commit framework reads git's pre-push ref lines itself and hands its
// hooks only the first ref that pushes something, in PRE_COMMIT_* variables
// (standard input is already consumed). This turns those variables back into
// git's own line, so `patchwarden pre-push` judges that ref; the other refs of
// the same push are not seen here (the server hook and the CI gate judge them).
import { resolveCommit, ZERO_ID, type Repo } from '../git/repo.js';
import { gitAncestor, subcommand } from './amend.js';

export interface FrameworkPush {
  remote: string;
  lines: string;
}

/** The pushed ref as the framework describes it, or null when it did not start this hook. */
export async function frameworkPush(repo: Repo, env: NodeJS.ProcessEnv = process.env): Promise<FrameworkPush | null> {
  const remote = env.PRE_COMMIT_REMOTE_NAME;
  const localRef = env.PRE_COMMIT_LOCAL_BRANCH;
  const remoteRef = env.PRE_COMMIT_REMOTE_BRANCH;
  if (!remote || !localRef || !remoteRef) return null;
  // A push that starts a history on the remote comes without from/to refs (the framework's "all files").
  const tip = env.PRE_COMMIT_TO_REF || (await resolveCommit(repo, localRef));
  const base = env.PRE_COMMIT_FROM_REF || ZERO_ID;
  return { remote, lines: `${localRef} ${tip} ${remoteRef} ${base}\n` };
}

/** `git push` options whose value may be the next word. */
const VALUED = new Set(['--repo', '--receive-pack', '--exec', '--push-option', '-o']);

/**
 * Whether the `git push` that started this hook pushes one ref (then the
 * framework's one ref is the whole push); null where its command line cannot
 * be read (no /proc). Read as git parses it: --all, --mirror, --tags and
 * --follow-tags, or more than one refspec after the remote, push several.
 */
export function pushesOneRef(argv: string[] | null = gitAncestor()): boolean | null {
  const sub = argv && subcommand(argv);
  if (sub?.name !== 'push') return null;
  const words: string[] = [];
  for (let i = 0; i < sub.args.length; i++) {
    const a = sub.args[i];
    if (a === '--') {
      words.push(...sub.args.slice(i + 1));
      break;
    }
    if (/^--(all|mirror|tags|follow-tags|branches)$/.test(a)) return false;
    if (VALUED.has(a)) {
      i++;
      continue;
    }
    if (!a.startsWith('-')) words.push(a);
  }
  return words.length <= 2;
}
