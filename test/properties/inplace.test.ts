// revert.mode: in-place. The check runs in the working tree itself under a
// snapshot ref; it restores every byte when it ends or is interrupted, and
// after kill -9 at any point `patchwarden recover` does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import {
  BUGGY_JS,
  config,
  fingerprint,
  FIXED_JS,
  jsProperty,
  NODE_TEST,
  project,
  registry,
  startPw,
  waitForFile,
} from './projects.js';

const ID = 'bill.total_non_negative';
const REF = 'refs/patchwarden/snapshot';
// The command marks where it is (head or reverted tree) and can stop there to be killed.
// With PW_BREAK the reverted run puts a folder where putting head back must remove a file, so the check ends in an error.
const STOPPABLE = `phase=head; grep -q -- '- 1' src/bill.mjs && phase=revert; if [ "$PW_BREAK$phase" = 1revert ]; then rm -f src/legacy.mjs; mkdir -p src/legacy.mjs/in; echo x > src/legacy.mjs/in/f; fi; if [ "$PW_STOP" = "$phase" ]; then echo $$ > "$PW_MARK.tmp"; mv "$PW_MARK.tmp" "$PW_MARK"; sleep 60; fi; ${NODE_TEST}`;
const IN_PLACE = 'revert:\n  mode: in-place\n';

// The patch also adds a file outside the src zone, which both runs take from the base side (absent).
function inPlaceProject(
  extraBase: Record<string, string> = {},
  head: Record<string, string | null> = { 'src/bill.mjs': FIXED_JS, 'docs/patch-notes.md': 'outside src\n' },
) {
  const p = project(
    {
      '.patchwarden.yml': config(STOPPABLE, IN_PLACE),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': jsProperty(ID),
      'src/bill.mjs': BUGGY_JS,
      'src/legacy.mjs': 'export const legacy = true;\n',
      ...extraBase,
    },
    { 'src/legacy.mjs': null, 'src/added.mjs': 'export const added = 1;\n', ...head },
    { clean: true },
  );
  // More of the user's own state: an untracked symlink and script, and an
  // ignored file sitting where the revert will write the base's src/legacy.mjs.
  symlinkSync('scratch.txt', path.join(p.repo.dir, 'link-to-scratch'));
  p.repo.write('tool.sh', '#!/bin/sh\necho tool\n');
  chmodSync(path.join(p.repo.dir, 'tool.sh'), 0o755);
  p.repo.write('.git/info/exclude', 'src/legacy.mjs\n');
  p.repo.write('src/legacy.mjs', 'my own ignored bytes\n');
  return p;
}

/**
 * Work in progress that would change the verdict were it run: an unstaged edit
 * that breaks the fix, a staged edit (edited again after staging), a staged new
 * file, staged deletions (one kept on disk), and untracked files, one a
 * failing property.
 */
function workInProgress(repo: TempRepo): void {
  repo.write('src/bill.mjs', BUGGY_JS + '// unfinished\n');
  repo.write('docs/notes.md', 'staged notes\n');
  repo.git(['add', 'docs/notes.md']);
  repo.write('docs/notes.md', 'staged notes, edited again\n');
  repo.write('docs/new.md', 'a staged new file\n');
  repo.git(['add', 'docs/new.md']);
  repo.git(['rm', '-q', '--cached', 'pytest.ini']);
  repo.git(['rm', '-q', 'src/added.mjs']); // staged deletion, gone from disk too
  repo.write(
    'spec/properties/wip.test.mjs',
    "import { test } from 'node:test';\ntest('unfinished [invariant:bill.total_non_negative]', () => { throw new Error('wip'); });\n",
  );
  repo.write('wip/deep/notes.txt', 'untracked, in new folders\n');
}

const hasRef = (repo: TempRepo) => repo.git(['rev-parse', '--verify', '--quiet', REF], { allowFail: true }).code === 0;

test.after.each(cleanup);

test('in-place: describes_patch, and every byte is back afterwards', () => {
  const { repo, base, head } = inPlaceProject();
  const before = fingerprint(repo);
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.is(r.out.mode, 'in-place');
  assert.match(r.stderr, /working tree restored/);
  assert.equal(fingerprint(repo), before);
  assert.not.ok(hasRef(repo), 'the snapshot ref is gone');
});

test('in-place: does_not_describe is refused and the tree is restored', () => {
  const { repo, base, head } = inPlaceProject(
    { 'src/bill.mjs': FIXED_JS },
    { 'src/bill.mjs': FIXED_JS + 'export const x = 1;\n' },
  );
  const before = fingerprint(repo);
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'does_not_describe');
  assert.equal(fingerprint(repo), before);
});

test('in-place: work in progress is set aside, both runs see the committed tree, and every byte comes back', () => {
  const { repo, base, head } = inPlaceProject();
  workInProgress(repo);
  const before = fingerprint(repo);
  const status = repo.git(['status', '--porcelain']).stdout;
  const r = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch', 'the unfinished edit and the failing untracked property were not run');
  assert.equal(r.out.outside_src, ['docs/patch-notes.md']);
  assert.match(r.stderr, /setting aside \d+ uncommitted change/);
  assert.equal(fingerprint(repo), before);
  assert.is(repo.git(['status', '--porcelain']).stdout, status);
  assert.not.ok(hasRef(repo));
  assert.not.ok(existsSync(path.join(repo.dir, '.git/patchwarden')), 'no scratch left in the git directory');
});

test('in-place: SIGTERM during the reverted run restores the tree itself', async () => {
  const mark = path.join(mkdtempSync(path.join(tmpdir(), 'pw-mark-')), 'stop');
  const { repo, base, head } = inPlaceProject();
  workInProgress(repo);
  try {
    const before = fingerprint(repo);
    const run = startPw(repo, ['revert-check', '--base', base, '--head', head], { PW_STOP: 'revert', PW_MARK: mark });
    assert.ok(await waitForFile(mark, run.done));
    assert.is(readFileSync(path.join(repo.dir, 'src/bill.mjs'), 'utf8'), BUGGY_JS, 'the tree is reverted in place');
    process.kill(run.pid, 'SIGTERM');
    const r = await run.done;
    assert.is(r.code, 143, r.stderr);
    assert.equal(fingerprint(repo), before);
    assert.not.ok(hasRef(repo));
  } finally {
    rmSync(path.dirname(mark), { recursive: true, force: true });
  }
});

for (const phase of ['head', 'revert'] as const) {
  test(`in-place: kill -9 during the ${phase} run, then recover brings every byte back`, async () => {
    const mark = path.join(mkdtempSync(path.join(tmpdir(), 'pw-mark-')), 'stop');
    const { repo, base, head } = inPlaceProject();
    workInProgress(repo);
    try {
      const before = fingerprint(repo);
      const run = startPw(repo, ['revert-check', '--base', base, '--head', head], { PW_STOP: phase, PW_MARK: mark });
      if (phase === 'head') {
        assert.ok(await waitForFile(mark, run.done));
        assert.is(
          readFileSync(path.join(repo.dir, 'src/bill.mjs'), 'utf8'),
          FIXED_JS,
          'the head run sees the committed fix, not the unfinished edit',
        );
        assert.not.ok(existsSync(path.join(repo.dir, 'wip/deep/notes.txt')), 'untracked files are set aside');
      }
      assert.ok(await waitForFile(mark, run.done), 'the command reached its stop');
      const group = Number(readFileSync(mark, 'utf8'));
      process.kill(run.pid, 'SIGKILL');
      await run.done;
      // The property command ends with patchwarden in a PID namespace or under the subreaper; under the process group alone it is orphaned.
      if (ownCommand(group, mark)) process.kill(-group, 'SIGKILL');
      assert.ok(hasRef(repo), 'the snapshot survived the kill');
      if (phase === 'revert') {
        assert.is(readFileSync(path.join(repo.dir, 'src/bill.mjs'), 'utf8'), BUGGY_JS);
        assert.is(
          readFileSync(path.join(repo.dir, 'src/legacy.mjs'), 'utf8'),
          'export const legacy = true;\n',
          'the base file was written over the ignored one',
        );
      }
      const again = repo.json(['revert-check', '--base', base, '--head', head]);
      assert.is(again.code, 2);
      assert.match(again.out.error, /was killed before it restored the working tree; run `patchwarden recover` first/);
      const rec = repo.pw(['recover']);
      assert.is(rec.code, 0, rec.stderr);
      assert.match(rec.stdout, /recovered the working tree/);
      if (phase === 'revert') {
        assert.match(rec.stdout, /src\/bill\.mjs/);
        assert.match(rec.stdout, /src\/legacy\.mjs/);
      }
      assert.equal(fingerprint(repo), before);
      assert.not.ok(hasRef(repo));
      const twice = repo.json(['recover']);
      assert.is(twice.code, 0);
      assert.is(twice.out.recovered, false);
    } finally {
      rmSync(path.dirname(mark), { recursive: true, force: true });
    }
  });
}

// Kills at the moment a phase starts, wherever in it the kill lands.
for (const line of [
  'snapshot of the working tree',
  'setting aside',
  'outside the production diff from the base side',
  'running the properties on head',
  'reverting the production paths',
  'restoring the working tree',
]) {
  test(`in-place: kill -9 as "${line}" starts, then recover`, async () => {
    const { repo, base, head } = inPlaceProject();
    workInProgress(repo);
    const before = fingerprint(repo);
    const run = startPw(repo, ['revert-check', '--base', base, '--head', head]);
    await run.waitFor(line);
    try {
      process.kill(run.pid, 'SIGKILL');
    } catch {
      /* it may have finished */
    }
    await run.done;
    const rec = repo.json(['recover']);
    assert.is(rec.code, 0, rec.stderr);
    assert.equal(fingerprint(repo), before);
    assert.not.ok(hasRef(repo));
    assert.not.ok(
      existsSync(path.join(repo.dir, '.git/patchwarden')),
      'recover leaves no scratch in the git directory',
    );
  });
}

test('in-place: an error half-way (head cannot be put back) restores work in progress before exit 2', () => {
  const { repo, base, head } = inPlaceProject();
  workInProgress(repo);
  const before = fingerprint(repo);
  const r = repo.json(['revert-check', '--base', base, '--head', head], { env: { PW_BREAK: '1' } });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /working tree restored/);
  assert.equal(fingerprint(repo), before);
  assert.not.ok(hasRef(repo));
  assert.not.ok(existsSync(path.join(repo.dir, '.git/patchwarden')));
});

test('recover while the check that took the snapshot still runs: refused without --force; SIGINT then restores work in progress', async () => {
  const mark = path.join(mkdtempSync(path.join(tmpdir(), 'pw-mark-')), 'stop');
  const { repo, base, head } = inPlaceProject();
  workInProgress(repo);
  try {
    const before = fingerprint(repo);
    const run = startPw(repo, ['revert-check', '--base', base, '--head', head], { PW_STOP: 'revert', PW_MARK: mark });
    assert.ok(await waitForFile(mark, run.done));
    const rec = repo.json(['recover']);
    assert.is(rec.code, 1);
    assert.match(repo.pw(['recover']).stdout, /is still running/);
    process.kill(run.pid, 'SIGINT');
    assert.is((await run.done).code, 130);
    assert.equal(fingerprint(repo), before);
  } finally {
    rmSync(path.dirname(mark), { recursive: true, force: true });
  }
});

test('recover with no snapshot says there is nothing to do', () => {
  const { repo } = inPlaceProject();
  const r = repo.pw(['recover']);
  assert.is(r.code, 0);
  assert.match(r.stdout, /nothing to recover/);
});

/** Whether `pid` is this test's property command (in a PID namespace, the number it wrote is the namespace's own). */
function ownCommand(pid: number, mark: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`PW_MARK=${mark}`);
  } catch {
    return false;
  }
}

test.run();
