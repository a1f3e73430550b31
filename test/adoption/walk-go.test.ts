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
import { sh } from '../helpers/repo.js';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';
import { Project, removeProjects } from './project.js';
import { agentClone, guardServer, installVendored, ownerSigns, revertVerdict, runAction, said } from './walk.js';

const missing =
  missingUnless('go', ['version'], ciInstalls('go is not installed')) ??
  missingUnless('gotestsum', ['--version'], ciInstalls('gotestsum is not installed'));

test.after.each(removeProjects);

const COUNT = 'bill.count_matches';
const TOTAL = 'bill.total_non_negative';
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

type Candidate = { name: string; freeze_candidate: { command: string; fixture: string } | null };

const GITHUB = {
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: '4242',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'acme/shop',
  GITHUB_RUN_ATTEMPT: '1',
};

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
    guardServer(p);

    // The owner lands a pending invariant: its subtest fails on main, TestBill with it.
    p.write({
      'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}${row(TOTAL, true)}`,
      'spec/properties/bill_test.go': property([COUNT, TOTAL]),
    });
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'spec: totals are never negative (pending)']);
    assert.match(said(p.ok('git', ['push'])), /pre-receive ok/);

    // An agent's clone: npm ci runs "prepare", which installs the hooks.
    const agent = agentClone(p, ['npm', 'ci', '--no-audit', '--no-fund']);
    assert.match(readFileSync(path.join(agent.dir, '.git/hooks/pre-push'), 'utf8'), /patchwarden-managed/);

    // An unrelated change (a suite test and the README) passes pre-push and the server while TOTAL is pending.
    agent.ok('git', ['switch', '-q', '-c', 'docs']);
    agent.commit(
      {
        'README.md': '# shop\n\nBills and their totals.\n',
        'bill/count_test.go':
          'package bill\n\nimport "testing"\n\nfunc TestCountTwo(t *testing.T) {\n\tif Count([]int{1, 2}) != 2 {\n\t\tt.Fatal("count")\n\t}\n}\n',
      },
      'docs: what the shop does',
    );
    assert.match(said(agent.ok('git', ['push', '-u', 'origin', 'docs'])), /pre-receive ok/);

    // A branch the agent pushes as a draft while main is red (hooks skipped), before the fix lands.
    agent.ok('git', ['switch', '-q', '-c', 'currency', 'origin/main']);
    agent.commit(
      { 'bill/currency.go': 'package bill\n\n// Currency is the shop\'s currency.\nconst Currency = "EUR"\n' },
      'feat: a currency',
    );
    agent.ok('git', ['push', '-q', '--no-verify', '-u', 'origin', 'currency']);

    // The agent's fix of the pending invariant: pre-push proves it (fixed), the server takes it.
    agent.ok('git', ['switch', '-q', '-c', 'fix-total', 'origin/main']);
    agent.commit({ 'bill/bill.go': billGo(true) }, 'fix: an empty bill totals 0');
    const checked = agent.pw('revert-check', '--base', 'origin/main', '--format', 'json');
    const verdict = JSON.parse(checked.stdout);
    assert.is(verdict.status, 'describes_patch', said(checked));
    assert.equal(
      Object.fromEntries(verdict.states.map((s: { id: string; state: string }) => [s.id, s.state])),
      { [COUNT]: 'holds', [TOTAL]: 'fixed' },
      said(checked),
    );
    const fixPush = agent.ok('git', ['push', '-u', 'origin', 'fix-total']);
    assert.match(said(fixPush), /pre-receive ok/);

    // CI: action.yml's step on the fix's pull request, the judge from the base's lock (the vendored tarball).
    const ci = runAction(p, 'fix-total');
    assert.ok(ci.ok, said(ci));
    assert.is(ci.code, 0, said(ci));

    // The owner merges it; the agent rebases the currency branch onto the fixed main and pushes as the docs say.
    p.ok('git', ['fetch', '-q', 'origin']);
    p.ok('git', ['merge', '-q', '--ff-only', 'origin/fix-total']);
    p.ok('git', ['push', '-q', 'origin', 'main']);
    agent.ok('git', ['switch', '-q', 'currency']);
    agent.ok('git', ['pull', '-q', '--rebase', 'origin', 'main']);
    const rebased = agent.run('git', ['push', '--force-with-lease']);
    assert.is.not(rebased.code, 0, said(rebased));
    assert.is(revertVerdict(rebased), 'does_not_describe', said(rebased));
    // The gate, as the Action runs it on that pull request, says the same.
    agent.ok('git', ['push', '-q', '--no-verify', '--force-with-lease']);
    const gate = runAction(p, 'currency');
    assert.not.ok(gate.ok, said(gate));
    assert.match(gate.stdout, /does_not_describe/, said(gate));

    // A timing flake in the suite: replay in CI prints the freeze line; the owner runs it as printed.
    p.ok('git', ['pull', '-q', '--ff-only']);
    p.write({ 'bill/deadline_test.go': FLAKE });
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'test: the step keeps its deadline']);
    p.ok('git', ['push', '-q']);
    const suite = /^ {2}command: (.*)$/m.exec(config.split('\nsuite:\n')[1])?.[1] as string;
    const replay = sh(
      'npx',
      [
        'patchwarden',
        'replay',
        '--runs',
        '4',
        '--seed',
        '20261205',
        '--out',
        'replay.json',
        '--format',
        'json',
        '--',
        suite,
      ],
      { cwd: p.dir, env: { ...p.env, ...GITHUB } },
    );
    const cases = JSON.parse(replay.stdout).cases as Candidate[];
    const flake = cases.find((c) => c.name.includes('TestDeadline'));
    assert.ok(flake?.freeze_candidate, said(replay));
    assert.is(flake.freeze_candidate.fixture, 'none');
    const line = flake.freeze_candidate.command;
    const frozen = sh('sh', ['-c', line], {
      cwd: p.dir,
      env: {
        ...p.env,
        PATH: `${path.join(p.dir, 'node_modules/.bin')}:${p.env.PATH}`,
        OWNER: 'Dana Owner',
        REASON: 'the step sleeps past its deadline on a loaded runner',
      },
    });
    assert.is(frozen.code, 0, `${line}\n${said(frozen)}`);
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'freeze: the deadline flake, from its replay']);
    assert.match(said(p.ok('git', ['push'])), /pre-receive ok/);
    const list = JSON.parse(p.ok('npx', ['patchwarden', 'freeze', 'list', '--format', 'json']).stdout);
    assert.equal([list.records[0].fixture, list.records[0].runs, list.records[0].fails], ['none', '4', '2']);
  },
);

test.run();
