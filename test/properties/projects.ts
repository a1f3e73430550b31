// Sample projects for the revert check, under real pytest and node's own test
// runner, and a fingerprint of everything a check must leave as it was.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { CLI, tempRepo, type TempRepo } from '../helpers/repo.js';

/** pytest without caches, so in-place runs write nothing into the tree. */
export const PYTEST =
  'PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml={junit}';
export const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination={junit} spec/properties/';

export function config(command: string, extra = ''): string {
  return `version: 1\nproperties:\n  command: ${JSON.stringify(command)}\n  invariants: spec/invariants.yaml\n${extra}`;
}

export function registry(...ids: string[]): string {
  return `version: 1\ninvariants:\n${ids.map((id) => `  - id: ${id}\n    description: ${id} holds\n`).join('')}`;
}

export const BUGGY_PY = 'def total(xs):\n    return sum(xs) - 1\n';
export const FIXED_PY = 'def total(xs):\n    return sum(xs)\n';
/** An attack on the property run: production code finds the property's test function through gc and swaps its code. */
export const GC_SWAP_PY = `import gc


def _passes(*args, **kwargs):
    return None


for _o in gc.get_objects():
    if getattr(_o, "__name__", "") == "test_total_non_negative" and hasattr(_o, "__code__"):
        _o.__code__ = _passes.__code__


def total(xs):
    return sum(xs) - 1
`;
export const BUGGY_JS = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n';
export const FIXED_JS = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';

/** A pytest property keyed by record_property (or by a name token when `token`). */
export function pyProperty(id = 'bill.total_non_negative', opts: { token?: boolean; module?: string } = {}): string {
  const mod = opts.module ?? 'bill';
  if (opts.token) {
    // pytest ids carry the token: parametrize with it as the id.
    return `import pytest\nfrom ${mod} import total\n\n@pytest.mark.parametrize('xs', [[], [1, 2]], ids=['[invariant:${id}]-empty', '[invariant:${id}]-two'])\ndef test_total(xs):\n    assert total(xs) >= 0\n`;
  }
  return `from ${mod} import total\n\ndef test_total_non_negative(record_property):\n    record_property("invariant", "${id}")\n    for xs in ([], [1, 2], [0, 5]):\n        assert total(xs) >= 0\n`;
}

export function jsProperty(id = 'bill.total_non_negative', mod = 'bill.mjs'): string {
  return `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/${mod}';\n\ntest('total is never negative [invariant:${id}]', () => {\n  for (const xs of [[], [1, 2], [0, 5]]) assert.ok(total(xs) >= 0);\n});\n`;
}

/**
 * A repository whose base commit holds the registry, the property and `src`,
 * then a head commit with `head` files (null deletes); plus untracked, ignored
 * and (unless `clean`) staged and unstaged state that the check must not
 * disturb. Returns the repo, base and head.
 */
export function project(
  base: Record<string, string | Buffer>,
  head: Record<string, string | Buffer | null>,
  opts: { clean?: boolean } = {},
): { repo: TempRepo; base: string; head: string } {
  const repo = tempRepo();
  const b = repo.commit(
    {
      '.gitignore': 'build/\n__pycache__/\n*.pyc\n.pytest_cache/\n',
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'docs/notes.md': 'notes\n',
      ...base,
    },
    'base',
  );
  const files = Object.fromEntries(Object.entries(head).filter(([, v]) => v !== null)) as Record<
    string,
    string | Buffer
  >;
  for (const [f, v] of Object.entries(head)) if (v === null) repo.git(['rm', '-q', '--', f]);
  const h = repo.commit(files, 'patch');
  // State the check must leave alone: untracked, ignored, and a staged change.
  repo.write('scratch.txt', 'untracked bytes\n');
  repo.write('build/cache.bin', Buffer.from([0, 1, 2, 255]));
  if (opts.clean) return { repo, base: b, head: h }; // in-place mode wants tracked files as committed
  repo.write('docs/notes.md', 'notes, edited and staged\n');
  repo.git(['add', 'docs/notes.md']);
  repo.write('docs/notes.md', 'notes, edited again, unstaged\n');
  return { repo, base: b, head: h };
}

/** Every file under the repository (with .git/index, refs, hooks), stash and worktree lists. */
export function fingerprint(repo: TempRepo): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const rel = path.relative(repo.dir, full);
      if (rel === '.git/objects') continue; // a snapshot adds objects, never refs or files
      if (rel === '.git/patchwarden/revert-cache') continue; // the reverted run's result, kept for the next check
      const st = lstatSync(full);
      if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(full)}`;
      else if (st.isDirectory()) walk(full);
      else
        out[rel] = `${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
    }
  };
  walk(repo.dir);
  out['(stash)'] = repo.git(['stash', 'list']).stdout;
  out['(worktrees)'] = repo.git(['worktree', 'list', '--porcelain']).stdout;
  out['(refs)'] = repo.git(['for-each-ref']).stdout;
  return out;
}

export interface Started {
  pid: number;
  /** Resolves once stderr has shown `text`. */
  waitFor(text: string): Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts the built CLI without waiting, watching its stderr. */
export function startPw(repo: TempRepo, args: string[], env: NodeJS.ProcessEnv = {}): Started {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: repo.dir,
    env: { ...repo.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (b: Buffer) => {
    stdout += b;
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b;
    for (const w of waiters.splice(0)) stderr.includes(w.text) ? w.resolve() : waiters.push(w);
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      child.on('close', (code, signal) => {
        for (const w of waiters.splice(0)) w.resolve(); // it ended: nothing more will come
        resolve({ code, signal, stdout, stderr });
      });
    },
  );
  return {
    pid: child.pid!,
    waitFor: (text) =>
      new Promise((resolve) => {
        if (stderr.includes(text)) resolve();
        else waiters.push({ text, resolve });
      }),
    done,
  };
}

/** Waits until a file exists (a step of a test command marks where it is). */
export async function waitForFile(file: string, until: Promise<unknown>): Promise<boolean> {
  let ended = false;
  until.then(() => {
    ended = true;
  });
  while (!existsSync(file)) {
    if (ended) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
