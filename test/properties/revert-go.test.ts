// The revert check on a real Go module under gotestsum, its invariants named
// in `t.Run` subtests: go fails the parent `TestX` beside a failing subtest,
// and that parent is its children's, so a pending invariant does not refuse
// every other change; a parent failing alone fails its children. Every run
// gets GOFLAGS=-count=1 and a Go build cache no head run can leave anything in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { project } from './projects.js';

const missing =
  spawnSync('go', ['version']).status !== 0
    ? 'go is not installed'
    : spawnSync('gotestsum', ['--version']).status !== 0
      ? 'gotestsum is not installed'
      : null;
const goTest = testUnless(missing);

const A = 'bill.total_non_negative';
const B = 'bill.count_matches';
const config = (extra = '') =>
  `version: 1\nzones:\n  spec: [spec/**]\n  src: ["**/!(*_test).go"]\nproperties:\n  command: gotestsum --junitfile {junit} -- ./spec/...\n  invariants: spec/invariants.yaml\n${extra}`;
const pending = (id: string) =>
  `  - id: ${id}\n    description: ${id} holds\n    pending: {since: ${new Date().toISOString().slice(0, 10)}, owner: ann, reason: the base fails it}\n`;
const registry = (...rows: string[]) => `version: 1\ninvariants:\n${rows.join('')}`;

/** Total is off by one and Count counts one too many on the base; `fix` fixes those named. */
function billGo(fix: { total?: boolean; count?: boolean } = {}, extra = ''): string {
  return `package bill

// Total sums the items.
func Total(xs []int) int {
\ts := 0
\tfor _, x := range xs {
\t\ts += x
\t}
\treturn s${fix.total ? '' : ' - 1'}
}

// Count counts the items.
func Count(xs []int) int { return len(xs)${fix.count ? '' : ' + 1'} }
${extra}`;
}

/** Both invariants as subtests of one TestBill; `after` runs in the parent once they are done. */
function property(after = ''): string {
  return `package properties

import (
\t"os"
\t"strings"
\t"testing"

\t"example.com/shop/bill"
)

func TestBill(t *testing.T) {
\tif !strings.Contains(os.Getenv("GOFLAGS"), "-count=1") || !strings.Contains(os.Getenv("GOFLAGS"), "-mod=mod") {
\t\tt.Fatalf("GOFLAGS is %q", os.Getenv("GOFLAGS"))
\t}
\tt.Run("[invariant:${A}]", func(t *testing.T) {
\t\tfor _, xs := range [][]int{{}, {1, 2}} {
\t\t\tif bill.Total(xs) < 0 {
\t\t\t\tt.Fatalf("negative total for %v", xs)
\t\t\t}
\t\t}
\t})
\tt.Run("[invariant:${B}]", func(t *testing.T) {
\t\tif bill.Count([]int{1, 2}) != 2 {
\t\t\tt.Fatal("Count miscounts")
\t\t}
\t})
${after}}
`;
}

const base = (extra: Record<string, string> = {}) => ({
  'go.mod': 'module example.com/shop\n\ngo 1.19\n',
  '.patchwarden.yml': config(),
  'spec/invariants.yaml': registry(pending(A), pending(B)),
  'spec/properties/bill_test.go': property(),
  'bill/bill.go': billGo(),
  ...extra,
});

/** The caller's GOFLAGS, which every run keeps, with -count=1 after it. */
const env = { GOFLAGS: '-mod=mod' };

test.after.each(cleanup);

goTest('go: an agent fixes one invariant while another is pending under the same TestBill: describes_patch', () => {
  const { repo, base: b, head } = project(base(), { 'bill/bill.go': billGo({ count: true }) });
  const r = repo.json(['revert-check', '--base', b, '--head', head], { env });
  assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
  assert.is(r.code, 0);
  assert.equal(r.out.failing_on_revert, [B]);
  assert.equal(r.out.pending, [A]);
  // The first check of a repository builds the syntax helper (tens of seconds), and says so first.
  assert.match(r.stderr, /revert-check: building the Go syntax helper with go\S+ \(once per Go version/);
  const again = repo.json(['revert-check', '--base', b, '--head', head], { env });
  assert.not.match(again.stderr, /building the Go syntax helper/, 'the built helper is kept');
});

goTest('go: the gate passes that fix on a branch while the other invariant is pending', () => {
  const repo = tempRepo();
  repo.commit(base(), 'base');
  repo.git(['checkout', '-q', '-b', 'topic']);
  repo.commit({ 'bill/bill.go': billGo({ count: true }) }, 'fix Count');
  const r = repo.json(['gate', '--base', 'main'], { env });
  const layers = Object.fromEntries(r.out.layers.map((l: { layer: string }) => [l.layer, l]));
  assert.is(layers.revert.status, 'pass', JSON.stringify(layers.revert));
  assert.is(r.code, 0, JSON.stringify(r.out.layers));
});

goTest('go: a parent failing in its cleanup while its subtests pass fails their invariants (regressed)', () => {
  const cleanup = '\tt.Cleanup(func() {\n\t\tif err := bill.Close(); err != nil {\n\t\t\tt.Error(err)\n\t\t}\n\t})\n';
  const fixed = billGo({ total: true, count: true });
  const broken = fixed.replace('package bill\n', 'package bill\n\nimport "errors"\n');
  const {
    repo,
    base: b,
    head,
  } = project(
    base({
      'spec/invariants.yaml': registry(
        `  - id: ${A}\n    description: total\n`,
        `  - id: ${B}\n    description: count\n`,
      ),
      'spec/properties/bill_test.go': property(cleanup),
      'bill/bill.go': `${fixed}\n// Close releases nothing.\nfunc Close() error { return nil }\n`,
    }),
    { 'bill/bill.go': `${broken}\n// Close fails.\nfunc Close() error { return errors.New("close failed") }\n` },
  );
  const r = repo.json(['revert-check', '--base', b, '--head', head], { env });
  assert.is(r.out.status, 'regressed', `${r.out.reason}\n${r.stderr}`);
  assert.is(r.code, 1);
  const states = Object.fromEntries(r.out.states.map((s: { id: string; state: string }) => [s.id, s.state]));
  assert.equal(states, { [A]: 'regressed', [B]: 'regressed' });
  assert.match(r.out.reason, /regressed/);
});

goTest(
  'go: the build cache is seeded by the reverted run alone; what the head run writes into its cache is gone',
  () => {
    // Head's code writes a marker into the GOCACHE it runs with.
    // Head's code writes into the GOCACHE it runs with, and into the seed itself where it is told where that is.
    const poison =
      '\nimport "os"\n\nfunc init() {\n\t_ = os.WriteFile(os.Getenv("GOCACHE")+"/poison", []byte("x"), 0o644)\n\tif seed := os.Getenv("SEED"); seed != "" {\n\t\t_ = os.WriteFile(seed+"/poison", []byte("x"), 0o644)\n\t}\n}\n';
    const fixedCount = billGo({ count: true });
    const {
      repo,
      base: b,
      head,
    } = project(base(), {
      'bill/bill.go': fixedCount.replace('package bill\n', `package bill\n${poison}`),
    });
    const r = repo.json(['revert-check', '--base', b, '--head', head], { env });
    assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
    const seed = path.join(repo.dir, '.git/patchwarden/go-build');
    assert.ok(existsSync(seed) && readdirSync(seed).length > 0, 'the reverted run seeded the cache');
    assert.not.ok(existsSync(path.join(seed, 'poison')), 'nothing of the head run is in the seed');
    // The next check's head run writes into the seed itself: the seed is thrown away, the reverted run seeds it anew.
    const again = repo.json(['revert-check', '--base', b, '--head', head], { env: { ...env, SEED: seed } });
    assert.is(again.out.status, 'describes_patch', again.stderr);
    assert.match(again.stderr, /the Go build cache changed while the change ran: it is thrown away/);
    assert.ok(readdirSync(seed).length > 0, 'seeded again');
    assert.not.ok(existsSync(path.join(seed, 'poison')));
  },
);

/** A module proxy in a folder (GOPROXY=file://…) serving example.com/money v1.0.0, and go.sum lines for it. */
function moneyProxy(): { proxy: string; sum: string } {
  const dir = tempRepo().dir;
  const v = path.join(dir, 'example.com/money/@v');
  mkdirSync(v, { recursive: true });
  const mod = 'module example.com/money\n\ngo 1.19\n';
  writeFileSync(path.join(v, 'list'), 'v1.0.0\n');
  writeFileSync(path.join(v, 'v1.0.0.info'), '{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}\n');
  writeFileSync(path.join(v, 'v1.0.0.mod'), mod);
  const zip = spawnSync('python3', [
    '-c',
    'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z:\n    z.writestr("example.com/money@v1.0.0/go.mod", sys.argv[2])\n    z.writestr("example.com/money@v1.0.0/money.go", "package money\\n\\n// Cents of one euro.\\nconst Cents = 100\\n")\n',
    path.join(v, 'v1.0.0.zip'),
    mod,
  ]);
  assert.is(zip.status, 0, String(zip.stderr));
  // go.sum as go writes it: go mod tidy in a scratch module with its own cache.
  const scratch = tempRepo().dir;
  writeFileSync(
    path.join(scratch, 'go.mod'),
    'module example.com/scratch\n\ngo 1.19\n\nrequire example.com/money v1.0.0\n',
  );
  writeFileSync(path.join(scratch, 'x.go'), 'package scratch\n\nimport _ "example.com/money"\n');
  const env = {
    ...process.env,
    GOPROXY: `file://${dir}`,
    GOSUMDB: 'off',
    GOMODCACHE: path.join(scratch, 'mod'),
    GOFLAGS: '-mod=mod',
  };
  const tidy = spawnSync('go', ['mod', 'download', 'example.com/money'], { cwd: scratch, env });
  assert.is(tidy.status, 0, String(tidy.stderr));
  spawnSync('go', ['mod', 'tidy'], { cwd: scratch, env });
  spawnSync('chmod', ['-R', 'u+w', path.join(scratch, 'mod')]);
  return { proxy: dir, sum: readFileSync(path.join(scratch, 'go.sum'), 'utf8') };
}

goTest(
  'go: the modules are fetched once into a cache both runs share read-only; a run that writes there stops the check',
  () => {
    const { proxy, sum } = moneyProxy();
    const usesMoney = (body: string, count = false) =>
      billGo({ count }).replace(
        'package bill\n',
        `package bill\n\nimport "example.com/money"\n${body}\nvar _ = money.Cents\n`,
      );
    const withMoney = base({
      'go.mod': 'module example.com/shop\n\ngo 1.19\n\nrequire example.com/money v1.0.0\n',
      'go.sum': sum,
      'bill/bill.go': usesMoney(''),
    });
    const userCache = path.join(tempRepo().dir, 'mod');
    const goEnv = { ...env, GOPROXY: `file://${proxy}`, GOSUMDB: 'off', GOMODCACHE: userCache };
    // The change writes into the module cache it runs with when WRITE is set.
    const write =
      '\nimport "os"\n\nfunc init() {\n\tif os.Getenv("WRITE") != "" {\n\t\t_ = os.WriteFile(os.Getenv("GOMODCACHE")+"/poison", []byte("x"), 0o644)\n\t}\n}\n';
    const { repo, base: b, head } = project(withMoney, { 'bill/bill.go': usesMoney(write, true) });
    const r = repo.json(['revert-check', '--base', b, '--head', head], { env: goEnv });
    assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
    const shared = path.join(repo.dir, '.git/patchwarden/go-mod');
    const money = path.join(shared, 'example.com/money@v1.0.0/money.go');
    assert.ok(existsSync(money), 'fetched into the shared cache');
    assert.is(statSync(money).mode & 0o222, 0, 'read-only for the runs');
    assert.not.ok(
      existsSync(path.join(userCache, 'example.com/money@v1.0.0')),
      "the user's cache was read, not written",
    );
    // A change that writes there is seen: the check stops, and the cache is thrown away.
    const again = repo.pw(['revert-check', '--base', b, '--head', head], { env: { ...goEnv, WRITE: '1' } });
    assert.is(again.code, 2, again.stdout + again.stderr);
    assert.match(again.stdout + again.stderr, /the Go module cache the runs share .* changed while they ran/);
    assert.not.ok(existsSync(shared));
  },
);

goTest('go: a Go workspace (go.work) gets no shared module cache: the runs keep your own', () => {
  // go refuses -mod=mod in workspace mode: this property asks only for -count=1.
  const workspace = base({
    'go.work': 'go 1.19\n\nuse .\n',
    'spec/properties/bill_test.go': property().replace(' || !strings.Contains(os.Getenv("GOFLAGS"), "-mod=mod")', ''),
  });
  const { repo, base: b, head } = project(workspace, { 'bill/bill.go': billGo({ count: true }) });
  const r = repo.json(['revert-check', '--base', b, '--head', head]);
  assert.is(r.out.status, 'describes_patch', `${r.out.reason}\n${r.stderr}`);
  assert.not.ok(existsSync(path.join(repo.dir, '.git/patchwarden/go-mod')));
  assert.not.match(r.stderr, /read-only for both runs/);
});

test.run();
