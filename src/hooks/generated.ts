// npm's install folder staged by `git add -A` in a project whose .gitignore
// does not list it: thousands of generated files, the guard's own binary
// among them. Refused when the project does not already track it.
import { counted, shellQuote } from '../common/text.js';
import type { Violation } from '../common/verdict.js';
import type { RawChange } from '../git/raw-diff.js';
import { tracksAnyAt } from '../git/files.js';
import type { Repo } from '../git/repo.js';

const INSTALL_DIR = /^(.*?(?:^|\/)node_modules)\//;

/** The node_modules folders this commit adds files to, when HEAD tracks none of them. */
export async function stagedInstallFolders(repo: Repo, changes: RawChange[]): Promise<Violation[]> {
  const added = changes.filter((c) => c.status === 'A' && INSTALL_DIR.test(c.path));
  if (!added.length) return [];
  const folders = [...new Set(added.map((c) => INSTALL_DIR.exec(c.path)![1]))];
  // A project that commits its node_modules on purpose already tracks some of it.
  if (await tracksAnyAt(repo, 'HEAD', folders)) return [];
  const quoted = folders.map(shellQuote).join(' ');
  return [
    {
      rule: 'node_modules',
      paths: folders,
      message: `${counted(added.length, 'file')} of ${folders.join(', ')} ${added.length === 1 ? 'is' : 'are'} staged: npm's install folder is generated (the guard's own binary among it) and does not belong in the repository`,
      fix: `git rm -r -q --cached -- ${quoted} && printf '%s\\n' ${folders.map((f) => shellQuote(`${f}/`)).join(' ')} >> .gitignore && git add .gitignore`,
      detail: folders.map((path) => ({ path, note: 'generated' })),
    },
  ];
}
