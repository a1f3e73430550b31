// The scratch lane end to end, on real pytest and real SSH-signed commits: an
// agent's branch with a new property test and a fix is judged on a scratch
// runner, which proposes the test and its registry row; an agent may not
// promote it; the owner does, in one signed commit; the branch rebased onto
// it passes the gate, which says where it differs from the proposal.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, ensureBin, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, PYTEST, pyProperty, registry } from '../properties/projects.js';
import { Keys } from '../prereceive/server.js';

const t = testUnless(pytestMissing);
const keys = new Keys();
const owner = keys.make('owner');
const OWNER = 'dana@example.com';
const AGENT = { GIT_AUTHOR_EMAIL: 'noreply@anthropic.com', GIT_COMMITTER_EMAIL: 'noreply@anthropic.com' };
const OWNERS = `owners:\n  signers: .patchwarden/allowed_signers\n  agents: ["noreply@anthropic.com", "*[bot]@*"]\n`;
const BILL = (discount: string) =>
  `def total(xs):\n    return sum(xs)\n\n\ndef discount(price, pct):\n    return ${discount}\n`;
const DISCOUNT_TEST = `from bill import discount


def test_discount_bounded(record_property):
    record_property("invariant", "bill.discount_bounded")
    for price, pct in ((100, 10), (50, 0), (80, 100)):
        assert 0 <= discount(price, pct) <= price
`;

test.after.each(cleanup);
test.after(() => keys.rm());

/** main: the owner's config, signers, registry, one property and the code; topic: the agent's test, then its fix. */
function agentBranch(): TempRepo {
  const repo = tempRepo();
  repo.commit(
    {
      '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n*.json\n*.md\n',
      'pytest.ini': '[pytest]\npythonpath = src\n',
      '.patchwarden.yml': config(PYTEST, OWNERS),
      '.patchwarden/allowed_signers': `${OWNER} namespaces="git" ${owner.pub}\n`,
      'spec/invariants.yaml': registry('bill.total_non_negative'),
      'spec/properties/test_bill.py': pyProperty('bill.total_non_negative'),
      'src/bill.py': BILL('price - price * pct // 100 - 1'),
    },
    'base',
  );
  repo.git(['checkout', '-q', '-b', 'topic']);
  for (const [files, message] of [
    [{ 'spec/properties/test_discount.py': DISCOUNT_TEST }, 'spec: discount stays within the price'],
    [{ 'src/bill.py': BILL('price - price * pct // 100') }, 'bill: no extra cent off the discount'],
  ] as const) {
    for (const [f, c] of Object.entries(files)) repo.write(f, c);
    repo.git(['add', '-A']);
    repo.git(['commit', '-q', '--no-verify', '-m', message], { env: AGENT });
  }
  return repo;
}

const layer = (out: Record<string, any>, name: string) => out.layers.find((l: { layer: string }) => l.layer === name);

t(
  'a scratch proposal, refused to an agent, promoted by the owner in one signed commit, and the rebased branch passes the gate',
  () => {
    const repo = agentBranch();
    const before = repo.git(['rev-parse', 'main']).stdout.trim();

    // The scratch job: no secrets, the branch checked out; it proposes and decides nothing.
    const s = repo.json(['scratch', '--base', 'main', '--out', 'proposal.json', '--replay', '2', '--seed', '7']);
    assert.is(s.code, 0, s.stderr);
    const file = path.join(repo.dir, 'proposal.json');
    const proposal = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(
      proposal.files.map((f: any) => [f.status, f.path, f.zone]),
      [['added', 'spec/properties/test_discount.py', 'spec']],
    );
    assert.equal(
      proposal.registry.map((r: any) => r.id),
      ['bill.discount_bounded'],
    );
    // Without the branch's test the fix proves nothing; with the proposal it does.
    assert.is(proposal.verdict.trusted.status, 'does_not_describe');
    assert.is(proposal.verdict.proposed.status, 'describes_patch');
    assert.equal(proposal.verdict.proposed.failing_on_revert, ['bill.discount_bounded']);
    assert.equal(proposal.verdict.gate, { properties: 'pass', revert: 'pass', suite: 'skipped' });
    assert.equal(proposal.freeze, [], 'no flicker in two replays');
    const summary = readFileSync(path.join(repo.dir, 'proposal.md'), 'utf8');
    assert.match(summary, /## Registry rows \(1\)\n- bill\.discount_bounded: /);
    assert.match(summary, /patchwarden promote proposal\.json/);
    assert.is(repo.git(['status', '--porcelain', '--untracked-files=no']).stdout, '', 'scratch writes nothing tracked');

    // Before promotion the gate refuses the agent's oracle commit; the difference from the proposal is printed.
    let gate = repo.json(['gate', '--base', 'main', '--scratch', 'proposal.json']);
    assert.is(gate.code, 1);
    assert.is(layer(gate.out, 'owners').status, 'refused');
    assert.is(gate.out.scratch.agrees, false);
    assert.match(
      gate.out.scratch.differences.join('\n'),
      /properties: scratch predicted pass, the gate says skipped: not run: .*owners/,
    );
    const text = repo.pw(['gate', '--base', 'main', '--scratch', 'proposal.json']);
    assert.is(text.code, 1, 'the gate decides');
    assert.match(text.stdout, /scratch proposal proposal\.json: differs from the gate; the gate's verdict stands:/);

    // An agent on main may not promote it: refused with the rule, the paths and who may.
    repo.git(['checkout', '-q', 'main']);
    const refused = repo.pw(['promote', file], { env: AGENT });
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stdout, /\[promote-agent\] noreply@anthropic\.com matches owners\.agents/);
    assert.match(refused.stdout, /\.patchwarden\/allowed_signers/);
    assert.match(refused.stdout, /an owner \(dana@example\.com, listed in \.patchwarden\/allowed_signers\)/);
    assert.match(refused.stdout, /patchwarden promote .*proposal\.json/);
    assert.is(repo.git(['rev-parse', 'HEAD']).stdout.trim(), before, 'nothing committed');
    assert.is(repo.git(['status', '--porcelain', '--untracked-files=no']).stdout, '');

    // The owner, with git set to sign: one signed commit on main, of exactly the proposal.
    const owned = { GIT_AUTHOR_EMAIL: OWNER, GIT_COMMITTER_EMAIL: OWNER };
    repo.git(['config', 'gpg.format', 'ssh']);
    repo.git(['config', 'user.signingkey', owner.file]);
    repo.git(['config', 'commit.gpgsign', 'true']);
    const p = repo.json(['promote', file], { env: owned });
    assert.is(p.code, 0, p.stderr);
    assert.is(p.out.signed, true);
    assert.is(repo.git(['rev-parse', 'HEAD~1']).stdout.trim(), before, 'one commit on main');
    const names = repo.git(['show', '--name-status', '--format=', 'HEAD']).stdout.trim().split('\n');
    assert.equal(names.sort(), ['A\tspec/properties/test_discount.py', 'M\tspec/invariants.yaml']);
    assert.match(repo.git(['cat-file', 'commit', 'HEAD']).stdout, /\ngpgsig -----BEGIN SSH SIGNATURE-----/);
    assert.match(repo.git(['show', 'HEAD:spec/invariants.yaml']).stdout, /- id: bill\.discount_bounded\n/);

    // The branch drops its own oracle commit by rebasing; the gate accepts it and agrees with the proposal.
    repo.git(['checkout', '-q', 'topic']);
    repo.git(['rebase', '-q', 'main'], { env: AGENT });
    assert.is(repo.git(['rev-list', '--count', 'main..topic']).stdout.trim(), '1', 'only the fix is left');
    gate = repo.json(['gate', '--base', 'main', '--scratch', 'proposal.json']);
    assert.is(gate.code, 0, JSON.stringify(gate.out.layers, null, 1));
    assert.is(layer(gate.out, 'revert').details.status, 'describes_patch');
    assert.equal(gate.out.scratch, { file: 'proposal.json', agrees: true, differences: [] });

    // The agent then changes its fix: the gate refuses it, and says where it now differs from the proposal.
    repo.write('src/bill.py', BILL('price + 1'));
    repo.git(['commit', '-qam', 'bill: round up'], { env: AGENT });
    gate = repo.json(['gate', '--base', 'main', '--scratch', 'proposal.json']);
    assert.is(gate.code, 1, 'the gate decides');
    assert.is(layer(gate.out, 'properties').status, 'refused');
    const said = gate.out.scratch.differences.join('\n');
    assert.match(
      said,
      /^production diff: scratch judged [0-9a-f]{12} \(src\/bill\.py\), the gate judges [0-9a-f]{12}$/m,
    );
    assert.match(said, /^properties: scratch predicted pass, the gate says refused: /m);
  },
);

t(
  'a proposal edited after scratch wrote it, stale on HEAD, off its base or over staged work is not promoted; each printed fix works',
  () => {
    ensureBin();
    const repo = agentBranch();
    const s = repo.pw(['scratch', '--base', 'main', '--out', 'proposal.json']);
    assert.is(s.code, 0, s.stderr);
    const file = path.join(repo.dir, 'proposal.json');
    const proposal = JSON.parse(readFileSync(file, 'utf8'));
    repo.git(['checkout', '-q', 'main']);
    const owned = { env: { GIT_AUTHOR_EMAIL: OWNER, GIT_COMMITTER_EMAIL: OWNER } };
    // A test swapped for one that asserts nothing, its blob id left as it was.
    proposal.files[0].content = Buffer.from('def test_nothing():\n    pass\n').toString('base64');
    repo.write('edited.json', JSON.stringify(proposal));
    const edited = repo.pw(['promote', 'edited.json'], owned);
    assert.is(edited.code, 2);
    assert.match(edited.stderr, /does not hash to its blob id .*edited after scratch wrote it/);
    // main moved on under the registry since: stale, with the step that makes a new proposal.
    repo.commit({ 'spec/invariants.yaml': registry('bill.total_non_negative', 'bill.other') }, 'owner: another row');
    const stale = repo.pw(['promote', file], owned);
    assert.is(stale.code, 1, stale.stderr);
    assert.match(stale.stdout, /\[promote-stale\] 1 path of the proposal changed on HEAD since it was made/);
    assert.match(stale.stdout, /git rebase main && patchwarden scratch --base main/);
    assert.is(repo.git(['status', '--porcelain', '--untracked-files=no']).stdout, '', 'nothing written');
    // On another branch than the one it merges into, with staged work: each refusal gives its line.
    repo.git(['reset', '-q', '--hard', 'HEAD~1']);
    const empty = repo.git(['mktree'], { input: '' }).stdout.trim();
    repo.git(['checkout', '-q', '--detach', repo.git(['commit-tree', empty, '-m', 'unrelated']).stdout.trim()]);
    const away = repo.pw(['promote', file], owned);
    assert.is(away.code, 1, away.stderr);
    assert.match(away.stdout, /\[promote-base\] HEAD does not contain the proposal's base/);
    assert.match(away.stdout, /git switch main && git pull --ff-only && patchwarden promote /);
    repo.git(['checkout', '-q', 'main']);
    repo.write('notes.txt', 'staged\n');
    repo.git(['add', 'notes.txt']);
    const dirty = repo.pw(['promote', file], owned);
    assert.is(dirty.code, 1, dirty.stderr);
    assert.match(dirty.stdout, /\[promote-dirty\] the index holds staged changes/);
    const line = /git stash && patchwarden promote .* && git stash pop/.exec(dirty.stdout)![0];
    const followed = sh('sh', ['-c', line], { cwd: repo.dir, env: { ...repo.env, ...owned.env } });
    assert.is(followed.code, 0, followed.stdout + followed.stderr);
    assert.is(
      repo.git(['show', '--name-only', '--format=', 'HEAD']).stdout.includes('spec/properties/test_discount.py'),
      true,
    );
    assert.is(readFileSync(path.join(repo.dir, 'notes.txt'), 'utf8'), 'staged\n');
  },
);

test.run();
