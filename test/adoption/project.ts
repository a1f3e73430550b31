// A fresh project that installs the packed tarball, as a user's would: a
// repository with a history already pushed to a bare remote beside it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { EDITOR } from '../helpers/advice.js';
import { sh, type Run } from '../helpers/repo.js';
import { packed, userEnv } from './pack.js';

const made: string[] = [];

/** Removes every project made so far (call it in test.after.each). */
export function removeProjects(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A temporary folder removed with the projects. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export class Project {
  readonly dir: string;
  readonly origin: string;
  readonly env: NodeJS.ProcessEnv;
  /** The owner's public signing key, for `init --owner-key`; `git commit -S` signs with it (the owner's oracle commits). */
  readonly ownerKey: string;
  constructor(files: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
    const top = tempDir('pw-adopt-');
    this.dir = path.join(top, 'project');
    this.origin = path.join(top, 'origin.git');
    this.env = userEnv({ GIT_EDITOR: EDITOR, ...env });
    mkdirSync(this.dir);
    this.ok('git', ['init', '-q', '--bare', '-b', 'main', this.origin], top);
    this.ok('git', ['init', '-q', '-b', 'main']);
    this.ok('git', ['remote', 'add', 'origin', this.origin]);
    const key = path.join(top, 'owner_ed25519');
    this.ok('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'owner', '-f', key], top);
    this.ownerKey = `${key}.pub`;
    for (const [k, v] of [
      ['gpg.format', 'ssh'],
      ['user.signingkey', key],
    ])
      this.ok('git', ['config', k, v]);
    // A project that already has a history on its remote, before patchwarden.
    this.write({ '.gitignore': 'node_modules/\n', ...files });
    this.ok('git', ['add', '-A']);
    this.ok('git', ['commit', '-q', '-m', 'the project so far']);
    this.ok('git', ['push', '-q', '-u', 'origin', 'main']);
  }
  write(files: Record<string, string>): this {
    for (const [f, c] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(this.dir, f)), { recursive: true });
      writeFileSync(path.join(this.dir, f), c);
    }
    return this;
  }
  run(cmd: string, args: string[], cwd = this.dir): Run {
    return sh(cmd, args, { cwd, env: this.env });
  }
  ok(cmd: string, args: string[], cwd = this.dir): Run {
    const r = this.run(cmd, args, cwd);
    assert.is(r.code, 0, `${cmd} ${args.join(' ')}\n${r.stdout}${r.stderr}`);
    return r;
  }
  npmInstall(...pkgs: string[]): void {
    this.ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', packed(), ...pkgs]);
  }
  pw(...args: string[]): Run {
    return this.run(path.join(this.dir, 'node_modules/.bin/patchwarden'), args);
  }
}
