// Under revert.jobs: 2 each side runs fenced (fence.ts): Landlock refuses
// every write outside its own tree and temporary root. Its write rights
// leave out a file's metadata, though: chmod, utimes and extended
// attributes. Head's Go code could make a folder of the reverted run's tree
// (or its temporary root, where t.TempDir goes) unreadable while that run
// built and ran, and restore it afterwards: the tree stamps see files, not
// folders, so a base case failed that way and a patch its property does not
// describe came out describes_patch, with no trace. Now the fence's mount
// namespace makes every mount read-only but the side's own grants, so the
// chmod fails (EROFS) and the check comes out as an honest one would.
//
// The reverted run's command waits until its package folder is unreadable
// (or 30 s have passed), so the race the attack needs is won on every
// machine, and fails when it is unreadable or its TMPDIR unwritable, as its
// build and t.TempDir would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FENCE } from '../helpers/fence.js';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { GO_MOD, goConfig, goProperty, goRegistry, GOTESTSUM_MISSING, TOTAL_BODY } from '../properties/go-module.js';
import { project } from '../properties/projects.js';
import { GO_BASE, goAtOtherRun } from './other-run.js';

const ID = 'bill.total';
let runs = '';
test.before.each(() => {
  runs = mkdtempSync(path.join(tmpdir(), 'pw-chmod-'));
});
test.after.each(() => {
  cleanup();
  rmSync(runs, { recursive: true, force: true });
});

/** Head's Total is the base's; its init finds the other run's folder and makes its package folder and temporary root unreadable. */
const GO_HEAD = goAtOtherRun(
  ['tree', 'bill'],
  '\t\t\t\t_ = os.Chmod(f, 0)\n\t\t\t\t_ = os.Chmod(filepath.Join(filepath.Dir(filepath.Dir(f)), "tmp"), 0)',
);

const LEAD =
  '[ "$PATCHWARDEN_SIDE" != base ] || for i in $(seq 300); do [ -r bill ] || break; sleep 0.1; done; ' +
  'if [ "$PATCHWARDEN_SIDE" = base ] && { [ ! -r bill ] || [ ! -w "$TMPDIR" ]; }; then echo "bill or TMPDIR made unreadable" >&2; exit 99; fi; ';

testUnless(GOTESTSUM_MISSING ?? (FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides cannot be fenced'))(
  'go, revert.jobs: 2, fenced: head cannot chmod a folder of the reverted tree or its temporary root',
  () => {
    const config = goConfig('revert:\n  jobs: 2\n').replace(
      /command: (.*)\n/,
      (_, command) => `command: ${JSON.stringify(LEAD + command)}\n`,
    );
    const { repo, base, head } = project(
      {
        'go.mod': GO_MOD,
        '.patchwarden.yml': config,
        'spec/invariants.yaml': goRegistry(ID),
        'spec/properties/bill_test.go': goProperty('TestBill', ID, TOTAL_BODY),
        'bill/bill.go': GO_BASE,
      },
      { 'bill/bill.go': GO_HEAD },
    );
    const r = repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } });
    assert.is(r.out.fence, 'landlock', r.stderr);
    assert.is(r.out.status, 'does_not_describe', `${r.out.reason}\n${r.stderr}`);
  },
);

test.run();
