// The pre-commit framework reads git's pre-push ref lines itself and hands its
// hooks only the first ref that pushes something, in PRE_COMMIT_* variables
// (standard input is already consumed). This turns those variables back into
// git's own line, so `patchwarden pre-push` judges that ref; the other refs of
// the same push are not seen here (the server hook and the CI gate judge them).
import { ZERO_ID, type Repo } from '../git/repo.js';

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
  const tip = env.PRE_COMMIT_TO_REF || (await repo.text(['rev-parse', '--verify', '--end-of-options', `${localRef}^{commit}`]));
  const base = env.PRE_COMMIT_FROM_REF || ZERO_ID;
  return { remote, lines: `${localRef} ${tip} ${remoteRef} ${base}\n` };
}
