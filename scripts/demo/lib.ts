// The demo's few tools: throwaway repositories and shell steps that must turn
// out as shown, or the demo stops with a non-zero exit.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = mkdtempSync(path.join(tmpdir(), 'patchwarden-demo-bin-'));
writeFileSync(path.join(bin, 'patchwarden'), `#!/bin/sh\nexec "${process.execPath}" "${project}/dist/main.js" "$@"\n`, {
  mode: 0o755,
});
const made: string[] = [bin];

const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${bin}:${process.env.PATH}`,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Demo Human',
  GIT_AUTHOR_EMAIL: 'human@example.com',
  GIT_COMMITTER_NAME: 'Demo Human',
  GIT_COMMITTER_EMAIL: 'human@example.com',
  HUSKY: '',
};

// Colours only for a person at a terminal; a pipe or a log gets plain text.
const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const paint = (code: string, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);

export function section(title: string): void {
  console.log(`\n${paint('1', `== ${title}`)}`);
}

export function say(text: string): void {
  console.log(`   ${text}`);
}

export class DemoRepo {
  constructor(readonly dir: string) {}

  /** Writes files (relative paths) into the repository, showing each one as it is written. */
  write(files: Record<string, string>): void {
    for (const [f, c] of Object.entries(files)) {
      console.log(paint('36', `# edit ${f}:`));
      console.log(c.trimEnd().replace(/^/gm, '  | '));
      mkdirSync(path.dirname(path.join(this.dir, f)), { recursive: true });
      writeFileSync(path.join(this.dir, f), c);
    }
  }

  /** Runs a shell line, shows it and its output (stdout and stderr in the order written), and checks its exit code. */
  run(line: string, expect = 0): string {
    console.log(paint('36', `$ ${line}`));
    const r = spawnSync('sh', ['-c', `exec 2>&1\n${line}`], { cwd: this.dir, env, encoding: 'utf8' });
    const out = r.stdout.trimEnd();
    if (out) console.log(out.replace(/^/gm, '  '));
    const code = r.status ?? 128;
    console.log(
      code === expect
        ? paint('32', `  -> exit ${code}, as expected`)
        : paint('31', `  -> exit ${code}, expected ${expect}`),
    );
    if (code !== expect) throw new Error(`demo step did not turn out as shown: ${line}`);
    return r.stdout;
  }
}

/** A fresh repository: the files in a first commit, then the guard installed and its config (and its new, empty ledger) committed on their own. */
export function newRepo(files: Record<string, string>): DemoRepo {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchwarden-demo-'));
  made.push(dir);
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env });
  const repo = new DemoRepo(dir);
  repo.write(files);
  // The project's owner signs oracle commits with an SSH key (ssh-keygen is part of OpenSSH).
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'owner', '-f', '.git/owner_ed25519'], {
    cwd: dir,
  });
  execFileSync('git', ['config', 'gpg.format', 'ssh'], { cwd: dir });
  execFileSync('git', ['config', 'user.signingkey', path.join(dir, '.git/owner_ed25519')], { cwd: dir });
  repo.run(
    'git add -A && git commit -q -m "start" && patchwarden init --yes --owner-key .git/owner_ed25519.pub && git add .patchwarden.yml .patchwarden freeze && git commit -q -S -m "guard config" && git log --oneline',
  );
  return repo;
}

export function cleanup(): void {
  for (const d of made) rmSync(d, { recursive: true, force: true });
}
