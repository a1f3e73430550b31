// The server's pre-receive hook: local hooks can be skipped with --no-verify,
// the server's cannot. The hook is installed the way docs/server.md adopts it
// (name the judging branch, bootstrap until its config is pushed, then end
// the bootstrap); the mixed commit is refused and the server's branch stays
// where it was.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newRepo, say, section } from './lib.js';

const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default function server(): void {
  section('server: the pre-receive hook holds where --no-verify cannot reach');
  const bare = path.join(mkdtempSync(path.join(tmpdir(), 'patchwarden-demo-server-')), 'server.git');
  try {
    const repo = newRepo({
      'src/bill.py': 'def total(items):\n    return sum(items)\n',
      'spec/test_bill.py': 'from src.bill import total\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
    });
    say(
      'a bare repository on the "server", with patchwarden\'s pre-receive hook installed; main judges, and is bootstrapped until its config arrives:',
    );
    repo.run(
      `git init -q --bare -b main '${bare}' && sh '${project}/scripts/install-server-hook.sh' --branch main --bootstrap '${bare}'`,
    );
    repo.run(`git remote add origin '${bare}' && git push -q origin main`);
    say('the config is on main now, so the administrator ends the bootstrap:');
    repo.run(`git -C '${bare}' config --unset patchwarden.bootstrap`);
    say('an agent skips the local hooks and pushes a commit that mixes code and spec:');
    repo.write({
      'src/bill.py': 'def total(items):\n    return max(0, sum(items))\n',
      'spec/test_bill.py': 'from src.bill import total\n\ndef test_total():\n    assert total([1, 2]) >= 0\n',
    });
    repo.run('git add -A && git commit -q --no-verify -m "fix total"');
    repo.run('git push --no-verify origin main', 1);
    say('the server kept its branch where it was:');
    repo.run(
      'test "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse HEAD~1)" && echo "server main is still $(git rev-parse --short HEAD~1)"',
    );
  } finally {
    rmSync(path.dirname(bare), { recursive: true, force: true });
  }
}
