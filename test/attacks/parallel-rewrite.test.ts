// Under revert.jobs: 2 the head run and the reverted run go at once, each in
// a temporary tree of its own under the system's temporary folder. Go and
// Rust runs have no runtime guard, so production code in head's test binary
// could find the other tree and rewrite its production file, or add a file
// to its Go package: the reverted run then failed the property on the
// changed code, and a patch its property does not describe (the property
// passes with and without it) came out describes_patch. Now every tracked
// file of a run's tree is stamped, and its bytes checked against git's,
// before the command starts, and a file changed, or added where .gitignore
// does not ignore it, by the time it ended refuses the run, naming the file
// (tree-stamps.ts): the reverted run cannot be judged, revert_broken.
//
// The reverted run's command waits until the file the attack writes is
// there (or 30 s have passed) before it builds, so the race the attack
// needs is won on every machine; the patch cannot choose that command, but
// on a loaded machine the attacker has time enough without it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { GO_MOD, goConfig, goProperty, goRegistry, GOTESTSUM_MISSING, TOTAL_BODY } from '../properties/go-module.js';
import { project } from '../properties/projects.js';
import { CARGO_MISSING, crate, RUST_COMMAND, rustConfig, rustProperty } from '../properties/rust-crate.js';

const ID = 'bill.total';
const MARK = 'REWRITTEN';
/** The reverted run waits for its file `file` to be rewritten before its command goes on. */
const waitFor = (file: string) =>
  `[ "$PATCHWARDEN_SIDE" != base ] || for i in $(seq 300); do grep -qs ${MARK} ${file} && break; sleep 0.1; done; `;
/** The check's own temporary folder (its TMPDIR): the attack finds this check's trees there, and no other's. */
let runs = '';
test.before.each(() => {
  runs = mkdtempSync(path.join(tmpdir(), 'pw-parallel-'));
});
test.after.each(() => {
  cleanup();
  rmSync(runs, { recursive: true, force: true });
});

/** Refused, naming the rewritten file: never describes_patch. */
function refused(r: { code: number; out: Record<string, any>; stderr: string }, file: string): void {
  assert.is.not(r.out.status, 'describes_patch', r.stderr);
  assert.is(r.code, 1, `${r.out.status}: ${r.out.reason}\n${r.stderr}`);
  assert.is(r.out.status, 'revert_broken', r.out.reason);
  assert.ok(
    r.out.reason.includes(`files of the run's tree changed or were added while both sides ran at once (${file})`),
    r.out.reason,
  );
}

const GO_BASE =
  'package bill\n\n// Total sums the items.\nfunc Total(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n';
/** Head's Total is the base's; its init finds the other run's tree and writes \`file\` there, which breaks Total. */
const goHead = (file: string, content: string) => `package bill

import (
\t"os"
\t"path/filepath"
\t"strings"
\t"time"
)

func init() {
\town := filepath.Dir(os.Getenv("TMPDIR"))
\tfor i := 0; i < 300; i++ {
\t\tfound, _ := filepath.Glob(filepath.Join(filepath.Dir(own), "patchwarden-run-*", "tree", "bill", "bill.go"))
\t\tfor _, f := range found {
\t\t\tif !strings.HasPrefix(f, own+string(filepath.Separator)) {
\t\t\t\t_ = os.WriteFile(filepath.Join(filepath.Dir(f), "${file}"), []byte(${JSON.stringify(content)}), 0o644)
\t\t\t\treturn
\t\t\t}
\t\t}
\t\ttime.Sleep(100 * time.Millisecond)
\t}
}

${GO_BASE.replace('package bill\n\n', '')}`;

/** Each way to change what the reverted run builds: its production file rewritten, a file added to its package. */
const GO_WRITES: [string, string][] = [
  ['bill.go', `package bill\n\n// ${MARK}\nfunc Total(xs []int) int { return -1 }\n`],
  ['zz.go', `package bill\n\n// ${MARK}\nfunc init() { panic("broken") }\n`],
];
for (const [file, content] of GO_WRITES)
  testUnless(GOTESTSUM_MISSING)(`go, revert.jobs: 2: head writes bill/${file} in the reverted tree`, () => {
    const config = goConfig('revert:\n  jobs: 2\n').replace(
      /command: (.*)\n/,
      (_, command) => `command: ${JSON.stringify(waitFor(`bill/${file}`) + command)}\n`,
    );
    const { repo, base, head } = project(
      {
        'go.mod': GO_MOD,
        '.patchwarden.yml': config,
        'spec/invariants.yaml': goRegistry(ID),
        'spec/properties/bill_test.go': goProperty('TestBill', ID, TOTAL_BODY),
        'bill/bill.go': GO_BASE,
      },
      { 'bill/bill.go': goHead(file, content) },
    );
    const r = repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } });
    refused(r, `bill/${file}`);
  });

const RUST_BASE = 'pub fn total(xs: &[i64]) -> i64 {\n    xs.iter().sum()\n}\n';
/** Head's total is the base's; called by the property, it first breaks total in the other run's tree. */
const RUST_HEAD = `pub fn total(xs: &[i64]) -> i64 {
    let own = std::path::PathBuf::from(std::env::var("TMPDIR").unwrap_or_default());
    let own = own.parent().map(|p| p.to_path_buf()).unwrap_or_default();
    for _ in 0..300 {
        let others: Vec<_> = std::fs::read_dir(own.parent().unwrap_or(&own))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p != &own && p.file_name().map_or(false, |n| n.to_string_lossy().starts_with("patchwarden-run-")))
            .map(|p| p.join("tree/src/lib.rs"))
            .filter(|p| p.exists())
            .collect();
        if let Some(f) = others.first() {
            let _ = std::fs::write(f, "// ${MARK}\\npub fn total(_: &[i64]) -> i64 {\\n    -1\\n}\\n");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    xs.iter().sum()
}
`;

testUnless(CARGO_MISSING)('rust, revert.jobs: 2: head rewrites the reverted tree’s production file', () => {
  const config = rustConfig('revert:\n  jobs: 2\n').replace(
    /command: .*\n/,
    () => `command: ${JSON.stringify(waitFor('src/lib.rs') + RUST_COMMAND)}\n`,
  );
  const { repo, base, head } = project(
    {
      ...crate(RUST_BASE, rustProperty(ID, ['sums', 'assert_eq!(shop::total(&[1, 2]), 3);']), ID),
      '.patchwarden.yml': config,
    },
    { 'src/lib.rs': RUST_HEAD },
  );
  refused(repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } }), 'src/lib.rs');
});

test.run();
