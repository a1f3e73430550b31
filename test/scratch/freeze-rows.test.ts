// A freeze row proposed by scratch's replays and promoted by the owner: the
// branch adds a test that misses its deadline every other run; scratch, on
// remote runners, runs the suite and replays it, and proposes the row bound
// to its results file; the owner fills the cause and owner, and promote
// writes the row with freeze add --from-replay into its one commit. A row
// left unfilled is not promoted. Real pytest.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { DEADLINE_FLAKE, GITHUB_RUN } from '../helpers/flake.js';
import { config, PYTEST, pyProperty, registry } from '../properties/projects.js';

const t = testUnless(pytestMissing);
test.after.each(cleanup);

const SUITE = 'python3 -B -m pytest -q -p no:cacheprovider spec --junitxml={junit}';

t(
  'a flake the replays show becomes a proposed row; promote writes it, bound to its evidence, once the owner fills it',
  () => {
    const repo = tempRepo();
    repo.commit(
      {
        '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n*.count\nproposal.*\n',
        'pytest.ini': '[pytest]\npythonpath = src\n',
        '.patchwarden.yml': config(PYTEST, `suite:\n  command: ${JSON.stringify(SUITE)}\n`),
        'spec/invariants.yaml': registry('bill.total_non_negative'),
        'spec/properties/test_bill.py': pyProperty('bill.total_non_negative'),
        'src/bill.py': 'def total(xs):\n    return sum(xs)\n',
      },
      'base',
    );
    const init = repo.pw(['freeze', 'init']);
    assert.is(init.code, 0, init.stderr);
    repo.git(['add', '-A']);
    repo.git(['commit', '-qm', 'ledger']);
    repo.git(['checkout', '-q', '-b', 'topic']);
    repo.commit({ 'spec/test_deadline.py': DEADLINE_FLAKE }, 'spec: the step meets its deadline');

    const s = repo.json(['scratch', '--base', 'main', '--out', 'proposal.json', '--replay', '4', '--seed', '9'], {
      env: GITHUB_RUN,
    });
    const file = path.join(repo.dir, 'proposal.json');
    const proposal = JSON.parse(readFileSync(file, 'utf8'));
    // The suite ran once on the scratch tree: the first run of the flake passes.
    assert.equal(proposal.verdict.suite.failures, []);
    assert.is(s.code, 0, s.stderr);
    assert.is(proposal.freeze.length, 1, JSON.stringify(proposal.freeze));
    const row = proposal.freeze[0];
    assert.is(row.name, 'test_deadline');
    assert.is(row.evidence, 'proposal.replay.json');
    assert.is(row.reason, null);
    assert.match(
      readFileSync(path.join(repo.dir, 'proposal.md'), 'utf8'),
      /## Freeze rows \(1\)\n- [0-9a-f]{16} test_deadline: /,
    );

    repo.git(['checkout', '-q', 'main']);
    const owner = { env: { GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_EMAIL: 'dana@example.com' } };
    // Unfilled: the file is promoted, the row is not.
    const first = repo.json(['promote', file], owner);
    assert.is(first.code, 0, first.stderr);
    assert.equal(first.out.freeze, []);
    assert.not.match(repo.git(['show', 'HEAD:freeze/signatures.yaml']).stdout, new RegExp(row.sig));
    repo.git(['reset', '-q', '--hard', 'HEAD~1']);

    // Filled by the owner: the row is written from the results file and kept under its digest, in the same commit.
    proposal.freeze[0].reason = 'the step sleeps past its deadline on a loaded runner';
    proposal.freeze[0].owner = 'qa-team';
    writeFileSync(file, JSON.stringify(proposal));
    const p = repo.json(['promote', file], owner);
    assert.is(p.code, 0, p.stderr);
    assert.equal(p.out.freeze, [row.sig]);
    const names = repo.git(['show', '--name-only', '--format=', 'HEAD']).stdout.trim().split('\n').sort();
    assert.is(names.length, 3, names.join('\n'));
    assert.match(names[0], /^freeze\/evidence\/[0-9a-f]{64}\.json$/);
    assert.equal(names.slice(1), ['freeze/signatures.yaml', 'spec/test_deadline.py']);
    const ledger = repo.git(['show', 'HEAD:freeze/signatures.yaml']).stdout;
    assert.match(ledger, new RegExp(`sig: ${row.sig}`));
    assert.match(ledger, /evidence: [0-9a-f]{64}/);
    assert.match(ledger, /owner: qa-team/);
    const check = repo.pw(['freeze', 'check']);
    assert.is(check.code, 0, check.stdout + check.stderr);
    assert.is(repo.git(['status', '--porcelain', '--untracked-files=no']).stdout, '');
  },
);

test.run();
