// Under revert.jobs: 2 the head run and the reverted run go at once, each in
// a temporary tree of its own under the system's temporary folder. Go and
// Rust runs have no runtime guard, so production code in head's test binary
// could find the other tree and rewrite its production file, or add a file
// to its Go package, or write an ignored go.work or target/, the other
// side's temporary root (its GOCACHE) or the git directory: the reverted run
// then failed the property on the changed code, and a patch its property
// does not describe (the property passes with and without it) came out
// describes_patch. The sides run at once only where the kernel has Landlock,
// each side's command fenced (fence.ts): the write fails, and the check
// comes out as an honest one would. Elsewhere they run in turn, the base
// first (base-first.test.ts). The reverted run's command plays the build
// that would read the poisoned path: it fails when the mark is there.
//
// The reverted run's command waits until the file the attack writes is
// there (or 30 s have passed) before it builds, so the race the attack
// needs is won on every machine; the patch cannot choose that command, but
// on a loaded machine the attacker has time enough without it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { GO_MOD, goConfig, goProperty, goRegistry, GOTESTSUM_MISSING, TOTAL_BODY } from '../properties/go-module.js';
import { project } from '../properties/projects.js';
import { CARGO_MISSING, crate, RUST_COMMAND, rustConfig, rustProperty } from '../properties/rust-crate.js';
import { FENCE } from '../helpers/fence.js';
import { GO_BASE, goAtOtherRun } from './other-run.js';

/** Where the kernel has no Landlock the fenced half of a test cannot run. */
const fenced = (missing: string | null) =>
  testUnless(missing ?? (FENCE ? null : 'no Landlock ABI 2 on this kernel: the sides cannot be fenced'));

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

/** The reverted run's command fails (as the build reading it would) when `file` holds the mark. */
const poisoned = (file: string) =>
  `if [ "$PATCHWARDEN_SIDE" = base ] && grep -qs ${MARK} ${file}; then echo "${file} poisoned" >&2; exit 99; fi; `;

type Check = { code: number; out: Record<string, any>; stderr: string };

/** Fenced: the write failed, and the reverted run ran on the base's own code (head's Total is the base's). */
function prevented(r: Check): void {
  assert.is(r.out.fence, 'landlock', r.stderr);
  assert.is(r.out.status, 'does_not_describe', `${r.out.reason}\n${r.stderr}`);
}

/**
 * Head's Total is the base's; its init finds the other run's folder and
 * writes each of `writes` (paths in that folder: its tree, its temporary
 * root) there, and a file into the git directory its own tree's .git names.
 */
const goHead = (writes: [string, string][]) =>
  goAtOtherRun(
    ['tree', 'bill', 'bill.go'],
    `\t\t\t\tother := filepath.Dir(filepath.Dir(filepath.Dir(f)))
${writes.map(([rel, content]) => `\t\t\t\t_ = os.WriteFile(filepath.Join(other, ${JSON.stringify(rel)}), []byte(${JSON.stringify(content)}), 0o644)`).join('\n')}
\t\t\t\tif git, err := os.ReadFile(filepath.Join(own, "tree", ".git")); err == nil {
\t\t\t\t\tcommon := filepath.Dir(filepath.Dir(strings.TrimSpace(strings.TrimPrefix(string(git), "gitdir:"))))
\t\t\t\t\t_ = os.WriteFile(filepath.Join(common, "${GIT_MARK}"), []byte("${MARK}"), 0o644)
\t\t\t\t}`,
  );

/** The file head's code writes into the git directory. */
const GIT_MARK = 'pw-poisoned';

/** Each way to change what the reverted run builds: its production file rewritten, a file added to its package. */
const GO_WRITES: [string, string][] = [
  ['bill.go', `package bill\n\n// ${MARK}\nfunc Total(xs []int) int { return -1 }\n`],
  ['zz.go', `package bill\n\n// ${MARK}\nfunc init() { panic("broken") }\n`],
];

/** The Go project whose head writes `writes` into the other run's folder, the reverted run's command led by `lead`. */
function goProject(writes: [string, string][], lead: string) {
  const config = goConfig('revert:\n  jobs: 2\n').replace(
    /command: (.*)\n/,
    (_, command) => `command: ${JSON.stringify(lead + command)}\n`,
  );
  return project(
    {
      '.gitignore': 'go.work\n',
      'go.mod': GO_MOD,
      '.patchwarden.yml': config,
      'spec/invariants.yaml': goRegistry(ID),
      'spec/properties/bill_test.go': goProperty('TestBill', ID, TOTAL_BODY),
      'bill/bill.go': GO_BASE,
    },
    { 'bill/bill.go': goHead(writes) },
  );
}

for (const [file, content] of GO_WRITES) {
  const writes: [string, string][] = [[`tree/bill/${file}`, content]];
  fenced(GOTESTSUM_MISSING)(`go, revert.jobs: 2, fenced: head cannot write bill/${file} in the reverted tree`, () => {
    const { repo, base, head } = goProject(writes, waitFor(`bill/${file}`) + poisoned(`bill/${file}`));
    prevented(repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } }));
  });
}

// An ignored go.work at the other tree's root, a file in the other run's
// GOCACHE, one in the git directory: on a build without the fence all three
// writes land and the reverted run is poisoned.
fenced(GOTESTSUM_MISSING)(
  'go, revert.jobs: 2, fenced: head cannot write an ignored go.work, the other GOCACHE or the git directory',
  () => {
    const work = `go 1.21\n\nuse ./nowhere // ${MARK}\n`;
    const { repo, base, head } = goProject(
      [
        ['tmp/go-build/poison', MARK],
        ['tree/go.work', work],
      ],
      waitFor('go.work') + poisoned('go.work') + poisoned('"$GOCACHE/poison"'),
    );
    prevented(repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } }));
    assert.not.ok(existsSync(path.join(repo.dir, '.git', GIT_MARK)), 'nothing written into the git directory');
  },
);

const RUST_BASE = 'pub fn total(xs: &[i64]) -> i64 {\n    xs.iter().sum()\n}\n';
/** Head's total is the base's; called by the property, it first writes `rel` of the other run's tree (its lib.rs breaks total). */
const rustHead = (rel: string) => `pub fn total(xs: &[i64]) -> i64 {
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
            let f = f.parent().and_then(|p| p.parent()).unwrap().join("${rel}");
            let _ = std::fs::create_dir_all(f.parent().unwrap());
            let _ = std::fs::write(f, "// ${MARK}\\npub fn total(_: &[i64]) -> i64 {\\n    -1\\n}\\n");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    xs.iter().sum()
}
`;

/** The crate whose head writes `rel` of the other run's tree, the reverted run's command led by `lead`. */
function rustProject(rel: string, lead: string) {
  const config = rustConfig('revert:\n  jobs: 2\n').replace(
    /command: .*\n/,
    () => `command: ${JSON.stringify(lead + RUST_COMMAND)}\n`,
  );
  return project(
    {
      ...crate(RUST_BASE, rustProperty(ID, ['sums', 'assert_eq!(shop::total(&[1, 2]), 3);']), ID),
      '.patchwarden.yml': config,
    },
    { 'src/lib.rs': rustHead(rel) },
  );
}

fenced(CARGO_MISSING)('rust, revert.jobs: 2, fenced: head cannot rewrite the reverted tree’s production file', () => {
  const { repo, base, head } = rustProject('src/lib.rs', waitFor('src/lib.rs') + poisoned('src/lib.rs'));
  prevented(repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } }));
});

// target/, ignored by git.
fenced(CARGO_MISSING)(
  'rust, revert.jobs: 2, fenced: head cannot write into the reverted tree’s ignored target/',
  () => {
    const { repo, base, head } = rustProject(
      'target/debug/poison',
      waitFor('target/debug/poison') + poisoned('target/debug/poison'),
    );
    prevented(repo.json(['revert-check', '--base', base, '--head', head], { env: { TMPDIR: runs } }));
  },
);

test.run();
