// A temporary, detached worktree of one commit (its files those of any tree
// the caller names), in a fresh folder of its own so that two checks at once
// never share one. Adding and removing it runs no hook of the user's, and
// removal touches only this worktree's own entry.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Repo } from '../git/repo.js';
import { addWorktree, fillWorktree, removeWorktree } from '../git/worktrees.js';
import { TREE_ENV } from './runenv.js';
import { workspaceDirs } from './workspaces.js';

export interface TempTree {
  dir: string;
  /** Environment for git and commands run inside the temporary tree. */
  env: NodeJS.ProcessEnv;
  /** The `revert.link` entries linked in from the main tree. */
  linked: string[];
  remove(): Promise<void>;
}

export interface WorktreeOptions {
  /** The tree to fill it with (default: the commit's own). */
  files?: string;
  /** A folder that does not exist yet, inside a real path (default: a fresh one under the system's temporary folder). */
  into?: string;
}

export async function addTempWorktree(repo: Repo, commit: string, opts: WorktreeOptions = {}): Promise<TempTree> {
  // realpath: git records the real path, and /tmp may be a link.
  const dir = opts.into ?? realpathSync(mkdtempSync(path.join(tmpdir(), 'patchwarden-revert-')));
  let admin: string | null = null;
  const linked: string[] = [];
  const remove = async () => {
    // A link, or a folder of links: removed without following any.
    for (const l of linked.splice(0)) rmSync(path.join(dir, l), { recursive: true, force: true });
    // Should git have lost track of it, take away its folder and its entry ourselves.
    if (!(await removeWorktree(repo, dir)) && admin) rmSync(admin, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await addWorktree(repo, dir, commit);
    admin = gitDirOf(dir);
    await fillWorktree(dir, opts.files ?? 'HEAD', TREE_ENV);
  } catch (err) {
    await remove();
    throw err;
  }
  return { dir, env: TREE_ENV, linked, remove };
}

/** The worktree's entry under the common git directory, from its `.git` file. */
function gitDirOf(dir: string): string | null {
  const m = /^gitdir: (.*)$/m.exec(readFileSync(path.join(dir, '.git'), 'utf8'));
  return m ? path.resolve(dir, m[1].trim()) : null;
}

/**
 * Links each `revert.link` entry that exists in the main tree and not in the
 * temporary one. A `node_modules` folder is made a folder of links instead,
 * one per package: a workspace package is a link back into the main tree (as
 * npm, yarn and pnpm make them), and it must lead to the same package in the
 * temporary tree, or both runs would import the main tree's code. The
 * node_modules of each workspace package beside it are linked the same way
 * (pnpm installs each package's dependencies there).
 */
export function linkEntries(tree: TempTree, mainRoot: string, entries: string[]): string[] {
  const link = (entry: string) => {
    const from = path.join(mainRoot, entry);
    const to = path.join(tree.dir, entry);
    if (!exists(from) || exists(to)) return;
    mkdirSync(path.dirname(to), { recursive: true });
    if (path.basename(entry) === 'node_modules' && lstatSync(from).isDirectory())
      linkPackages(from, to, mainRoot, tree.dir);
    else symlinkSync(from, to);
    tree.linked.push(entry);
  };
  for (const entry of entries) {
    link(entry);
    if (path.basename(entry) !== 'node_modules') continue;
    const where = path.posix.dirname(entry);
    for (const ws of workspaceDirs(path.join(mainRoot, where))) link(path.posix.join(where, ws, 'node_modules'));
  }
  return tree.linked;
}

/**
 * `to`, a folder with a link for each entry of `from` (a `@scope` folder
 * likewise, and pnpm's virtual store, whose own node_modules holds links to
 * workspace packages too); links into the main tree lead into the temporary one.
 */
function linkPackages(from: string, to: string, mainRoot: string, treeRoot: string): void {
  mkdirSync(to);
  for (const d of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, d.name);
    const target = path.join(to, d.name);
    const holdsLinks =
      d.name.startsWith('@') || d.name === '.pnpm' || (d.name === 'node_modules' && path.basename(from) === '.pnpm');
    if (d.isDirectory() && holdsLinks) {
      linkPackages(source, target, mainRoot, treeRoot);
    } else if (d.isSymbolicLink()) {
      const points = path.resolve(from, readlinkSync(source));
      const inside = path.relative(mainRoot, points);
      const within = inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside);
      symlinkSync(within ? path.join(treeRoot, inside) : points, target);
    } else {
      symlinkSync(source, target);
    }
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
