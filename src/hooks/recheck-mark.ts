// The mark pre-commit leaves for commit-msg: which of the fixture lock and
// the ledger it checked, so commit-msg checks them again after the rest of
// the hook chain (hooks/recheck.ts). Only the mark's path is known up front,
// so a commit that staged neither starts no git process in commit-msg.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Recheck = 'fixtures' | 'ledger';
/** The mark beside the commit message git hands commit-msg (both live in this worktree's git directory). */
function markFile(gitDir: string): string {
  return path.join(gitDir, 'patchwarden', 'recheck');
}

/** pre-commit: what commit-msg must check again (nothing: the mark is removed). */
export function leaveMark(gitDir: string, kinds: Recheck[]): void {
  const file = markFile(gitDir);
  try {
    if (!kinds.length) rmSync(file, { force: true });
    else {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${kinds.join('\n')}\n`);
    }
  } catch {
    // A read-only git directory: push, the server and the gate check the lock anyway.
  }
}

/** commit-msg: what pre-commit checked, read once and removed; `messageFile` is git's COMMIT_EDITMSG. */
export function takeMark(messageFile: string): Recheck[] {
  const file = markFile(path.dirname(messageFile));
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  rmSync(file, { force: true });
  return text.split('\n').filter((k): k is Recheck => k === 'fixtures' || k === 'ledger');
}
