// A git server as an adversary meets it: a bare repository with the hook
// installed by scripts/install-server-hook.sh (judging branch main), a config
// on main pushed in the bootstrap state that then ends, and a clone with the
// pre-push hook installed. Each enforcement point that reads a range can be
// asked: the server (push), pre-push (localPush), check --range and gate.
import path from 'node:path';
import * as assert from 'uvu/assert';
import { PROJECT, sh, tempRepo, type Run, type TempRepo, installPrePush } from '../helpers/repo.js';

export const INSTALL = path.join(PROJECT, 'scripts/install-server-hook.sh');

export const START = {
  'src/bill.py': 'def total(items):\n    return sum(items)\n',
  'spec/test_bill.py': 'def test_total():\n    assert total([1, 2]) == 3\n',
  'README.md': 'bill\n',
};

export interface Site {
  bare: TempRepo;
  work: TempRepo;
  /** `git push origin ARGS` with the pre-push hook skipped: only the server judges. */
  push(args: string[], env?: NodeJS.ProcessEnv): Run;
  /** `git push origin ARGS` with the clone's pre-push hook running (the server judges too). */
  localPush(args: string[]): Run;
  /** The server's value of a ref, or null. */
  ref(name: string): string | null;
  /** Every ref on the server, for "nothing moved". */
  refs(): string;
  /** `patchwarden check --range RANGE` and `gate --base BASE` in the clone. */
  check(range: string): Run;
  gate(base: string): Run;
}

export function site(config = 'version: 1\n', files: Record<string, string | Buffer> = {}): Site {
  const bare = tempRepo({ bare: true });
  const installed = sh('sh', [INSTALL, '--branch', 'main', '--bootstrap', bare.dir]);
  assert.is(installed.code, 0, installed.stderr);
  const work = tempRepo();
  work.git(['remote', 'add', 'origin', bare.dir]);
  work.commit({ '.patchwarden.yml': config, ...START, ...files }, 'start');
  const first = work.git(['push', 'origin', 'main'], { allowFail: true });
  assert.is(first.code, 0, first.stderr);
  bare.git(['config', '--unset', 'patchwarden.bootstrap']);
  installPrePush(work);
  return {
    bare,
    work,
    push: (args, env = {}) => work.git(['push', '--no-verify', 'origin', ...args], { allowFail: true, env }),
    localPush: (args) => work.git(['push', 'origin', ...args], { allowFail: true }),
    ref: (name) => {
      const r = bare.git(['rev-parse', '--verify', '--quiet', name], { allowFail: true });
      return r.code === 0 ? r.stdout.trim() : null;
    },
    refs: () => bare.git(['for-each-ref', '--format=%(objectname) %(refname)']).stdout,
    check: (range) => work.pw(['check', '--range', range]),
    gate: (base) => work.pw(['gate', '--base', base]),
  };
}

/** A commit made with plumbing: `tree` with these parents, as an adversary writes it. */
export function commitTree(
  repo: TempRepo,
  tree: string,
  parents: string[],
  message: string,
  env: NodeJS.ProcessEnv = {},
): string {
  return repo.git(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message], { env }).stdout.trim();
}

/** A refusal: non-zero exit and each of the texts in its output. */
export function refused(r: Run, ...texts: string[]): void {
  assert.is.not(r.code, 0, `expected a refusal:\n${r.stdout}${r.stderr}`);
  for (const t of texts) assert.match(r.stdout + r.stderr, t);
}
