// A bare "server" repository with patchwarden's pre-receive hook copied in,
// and a clone to push from, both real git in temporary folders.
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT, sh, tempRepo, type Run, type TempRepo } from '../helpers/repo.js';

export interface Server {
  bare: TempRepo;
  work: TempRepo;
  /** `git push origin ARGS` from the clone; never throws. */
  push(...args: string[]): Run;
  /** The server's value of a ref, or null when it has none. */
  ref(name: string): string | null;
}

export function server(): Server {
  const bare = tempRepo({ bare: true });
  copyFileSync(path.join(PROJECT, 'hooks/pre-receive'), path.join(bare.dir, 'hooks/pre-receive'));
  chmodSync(path.join(bare.dir, 'hooks/pre-receive'), 0o755);
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', bare.dir]);
  return {
    bare,
    work,
    push: (...args) => work.git(['push', 'origin', ...args], { allowFail: true }),
    ref: (name) => {
      const r = bare.git(['rev-parse', '--verify', '--quiet', name], { allowFail: true });
      return r.code === 0 ? r.stdout.trim() : null;
    },
  };
}

export const CONFIG = 'version: 1\n';

/** The server starts with a config on main (pushed in the bootstrap state, which then ends). */
export function guardedServer(config = CONFIG, files: Record<string, string> = {}): Server {
  const s = server();
  s.bare.git(['config', 'patchwarden.bootstrap', 'true']);
  s.work.commit(
    {
      '.patchwarden.yml': config,
      'src/app.ts': 'export const a = 1;\n',
      'spec/invariants.yaml': 'version: 1\ninvariants: []\n',
      'README.md': 'hi\n',
      ...files,
    },
    'start',
  );
  const r = s.push('main');
  if (r.code !== 0) throw new Error(`first push failed: ${r.stderr}`);
  s.bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  return s;
}

/** SSH keys made by ssh-keygen, for signing commits the way an owner would. */
export class Keys {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'pw-keys-'));
  make(name: string): { file: string; pub: string } {
    const file = path.join(this.dir, name);
    const r = sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
    if (r.code !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
    return { file, pub: readFileSync(`${file}.pub`, 'utf8').trim() };
  }
  rm(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Writes, stages and commits, with extra git options (signing) and identity. */
export function commitAs(
  repo: TempRepo,
  files: Record<string, string>,
  message: string,
  opts: { sign?: string; email?: string } = {},
): string {
  for (const [f, c] of Object.entries(files)) repo.write(f, c);
  repo.git(['add', '-A']);
  const sign = opts.sign ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${opts.sign}`] : [];
  const env = opts.email ? { GIT_AUTHOR_EMAIL: opts.email, GIT_COMMITTER_EMAIL: opts.email } : {};
  repo.git([...sign, 'commit', '-q', '--no-verify', '--allow-empty', ...(opts.sign ? ['-S'] : []), '-m', message], {
    env,
  });
  return repo.head();
}
