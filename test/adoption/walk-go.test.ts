// A Go module (go 1.19, gotestsum) walked by a new team from the packed
// tarball: the owner installs it with npm from .patchwarden/vendor/, runs
// init with their signing key and doctor, the server gets the hook, the owner
// lands a pending invariant as a `t.Run` subtest, an agent's unrelated change
// and its fix of the invariant pass pre-push and the server, a branch rebased
// onto the fixed main is judged alike by pre-push and the gate, a timing
// flake is frozen from replay's printed line, and action.yml's step judges
// the pull requests. Every step is the real tool's output.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';
import { Project, removeProjects } from './project.js';
import { installVendored, ownerSigns, runAction, said, walk } from './walk.js';

const missing =
  missingUnless('go', ['version'], ciInstalls('go is not installed')) ??
  missingUnless('gotestsum', ['--version'], ciInstalls('gotestsum is not installed'));

test.after.each(removeProjects);

const COUNT = 'bill.count_matches';
const TOTAL = 'bill.total_non_negative';
const DOUBLE = 'bill.double';
const PW = ['npx', 'patchwarden'];
const TODAY = new Date().toISOString().slice(0, 10);

/** Total is one short on the base (negative for no items); `fixed` gives the sum. */
const billGo = (fixed: boolean) => `package bill

// Total sums the items.
func Total(xs []int) int {
\ts := 0
\tfor _, x := range xs {
\t\ts += x
\t}
\treturn s${fixed ? '' : ' - 1'}
}

// Count counts the items.
func Count(xs []int) int { return len(xs) }
`;

/** The properties, each invariant a subtest of one TestBill (go fails the parent beside a failing subtest). */
const property = (ids: string[]) => `package properties

import (
\t"math/rand"
\t"os"
\t"strconv"
\t"testing"

\t"example.com/shop/bill"
)

func TestBill(t *testing.T) {
\tseed, _ := strconv.ParseInt(os.Getenv("PROP_SEED"), 10, 64)
\tr := rand.New(rand.NewSource(seed))
\tt.Run("[invariant:${COUNT}]", func(t *testing.T) {
\t\tif n := r.Intn(9); bill.Count(make([]int, n)) != n {
\t\t\tt.Fatal("Count miscounts")
\t\t}
\t})
${
  ids.includes(TOTAL)
    ? `\tt.Run("[invariant:${TOTAL}]", func(t *testing.T) {
\t\tfor _, xs := range [][]int{{}, {r.Intn(9), r.Intn(9)}} {
\t\t\tif bill.Total(xs) < 0 {
\t\t\t\tt.Fatalf("negative total for %v", xs)
\t\t\t}
\t\t}
\t})
`
    : ''
}}
`;

const row = (id: string, pending = false) =>
  `  - id: ${id}\n    description: ${id} holds\n${pending ? `    pending: {since: ${TODAY}, owner: Dana Owner, reason: empty bills total -1}\n` : ''}`;

/** The owner's property for Double, a function main does not have yet. */
const DOUBLE_TEST = `package properties

import (
\t"testing"

\t"example.com/shop/bill"
)

func TestDouble(t *testing.T) {
\tt.Run("[invariant:${DOUBLE}]", func(t *testing.T) {
\t\tif bill.Double(2) != 4 {
\t\t\tt.Fatal("Double")
\t\t}
\t})
}
`;

/** A suite test that misses its deadline every other run: a timing flake with no input. */
const FLAKE = `package bill

import (
\t"os"
\t"strconv"
\t"testing"
\t"time"
)

func TestDeadline(t *testing.T) {
\tb, _ := os.ReadFile("deadline.count")
\tn, _ := strconv.Atoi(string(b))
\t_ = os.WriteFile("deadline.count", []byte(strconv.Itoa(n+1)), 0o644)
\tstart := time.Now()
\tif n%2 == 1 {
\t\ttime.Sleep(300 * time.Millisecond)
\t}
\tif time.Since(start) > 200*time.Millisecond {
\t\tt.Fatal("the step ran past its deadline")
\t}
}
`;

testUnless(missing)(
  'go module: from the tarball to a proven fix, a rebase judged alike, a frozen flake, the Action',
  () => {
    // A module the team already has: code, a suite test, and one invariant with its property.
    const p = new Project({
      '.gitignore': 'node_modules/\n*.count\nreplay.json\n',
      'go.mod': 'module example.com/shop\n\ngo 1.19\n',
      'bill/bill.go': billGo(false),
      'bill/bill_test.go':
        'package bill\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n\tif Count(nil) != 0 {\n\t\tt.Fatal("count")\n\t}\n}\n',
      'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}`,
      'spec/properties/bill_test.go': property([COUNT]),
    });
    ownerSigns(p);

    // Install from the tarball (npm, the README's line), init with the owner's key, doctor clean.
    installVendored(p, ['npm', 'install', '--save-dev', '--no-audit', '--no-fund']);
    const init = p.ok('npx', [
      'patchwarden',
      'init',
      '--yes',
      '--owner-key',
      p.ownerKey,
      '--codeowners',
      '@acme/owners',
    ]);
    assert.match(init.stdout, /src zone: .*: 1 file of production code/);
    const config = readFileSync(path.join(p.dir, '.patchwarden.yml'), 'utf8');
    assert.match(config, /command: gotestsum --junitfile \{junit\} -- \.\/spec\/\.\.\./);
    const doctor = p.ok('npx', ['patchwarden', 'doctor']);
    assert.not.match(doctor.stdout, /^PROBLEM/m, doctor.stdout);
    assert.match(doctor.stdout, /^ok +prop-seed: /m, doctor.stdout);
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'patchwarden: config, hooks, owner']);
    p.ok('git', ['push', '-q']);
    const agent = walk(p, {
      pw: PW,
      agentInstall: [['npm', 'ci', '--no-audit', '--no-fund']],
      ciSetup: [],
      pending: {
        'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}${row(TOTAL, true)}`,
        'spec/properties/bill_test.go': property([COUNT, TOTAL]),
      },
      unrelated: {
        'README.md': '# shop\n\nBills and their totals.\n',
        'bill/count_test.go':
          'package bill\n\nimport "testing"\n\nfunc TestCountTwo(t *testing.T) {\n\tif Count([]int{1, 2}) != 2 {\n\t\tt.Fatal("count")\n\t}\n}\n',
      },
      draft: { 'bill/currency.go': 'package bill\n\n// Currency is the shop\'s currency.\nconst Currency = "EUR"\n' },
      fix: { 'bill/bill.go': billGo(true) },
      states: { [COUNT]: 'holds', [TOTAL]: 'fixed' },
      flake: {
        files: { 'bill/deadline_test.go': FLAKE },
        name: 'TestDeadline',
        failNext: (count) => ({ 'bill/deadline.count': count }),
      },
    });

    // A comment-only Go change: compared by go/parser, no property runs, pre-push and the server pass it.
    agent.ok('git', ['fetch', '-q', 'origin']);
    agent.ok('git', ['switch', '-q', '-c', 'comment', 'origin/main']);
    agent.commit(
      { 'bill/bill.go': billGo(true).replace('Total sums the items.', 'Total adds the items up.') },
      'docs: reword Total',
    );
    const comment = agent.ok('git', ['push', '-u', 'origin', 'comment']);
    assert.match(said(comment), /no behaviour change/);
    assert.not.match(said(comment), /running the properties/);
    assert.match(said(comment), /pre-receive ok/);

    // A new Go function proven: the owner's signed property and the agent's function on one branch, fixed by build.
    p.ok('git', ['fetch', '-q', 'origin']);
    p.ok('git', ['switch', '-q', '-c', 'double', 'origin/main']);
    p.write({
      'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}${row(TOTAL)}${row(DOUBLE)}`,
      'spec/properties/double_test.go': DOUBLE_TEST,
    });
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'spec: Double doubles; totals no longer pending']);
    p.ok('git', ['push', '-q', '-u', 'origin', 'double']);
    agent.ok('git', ['fetch', '-q', 'origin']);
    agent.ok('git', ['switch', '-q', '-c', 'double', '--track', 'origin/double']);
    agent.commit(
      { 'bill/bill.go': `${billGo(true)}\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n` },
      'feat: Double',
    );
    const proven = agent.run(PW[0], [...PW.slice(1), 'revert-check', '--base', 'origin/main', '--format', 'json']);
    const verdict = JSON.parse(proven.stdout);
    assert.is(verdict.status, 'describes_patch', said(proven));
    assert.equal(verdict.failing_on_revert, [DOUBLE]);
    assert.equal(verdict.states.find((x: { id: string }) => x.id === DOUBLE).by_build, ['bill.Double']);
    assert.match(said(agent.ok('git', ['push'])), /pre-receive ok/);
    const ci = runAction(p, 'double');
    assert.ok(ci.ok, said(ci));
    assert.match(ci.stdout, /bill\.double \(by build\)/, said(ci));
  },
);

test.run();
