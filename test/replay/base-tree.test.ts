// replay --base: the runs see the target branch's oracles, the admitted
// owner-signed commits of the range and the branch's production diff, never
// the branch's own oracle edits; without it (by hand) the working tree runs.
// Real pytest, real SSH-signed commits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, PYTEST, pyProperty, registry } from '../properties/projects.js';
import { commitAs, Keys } from '../prereceive/server.js';

const t = testUnless(pytestMissing);
const keys = new Keys();
const owner = keys.make('owner');
const OWNER = 'dana@example.com';
const AGENT = { email: 'noreply@anthropic.com' };
const OWNERS = `owners:\n  signers: .patchwarden/allowed_signers\n  agents: ["noreply@anthropic.com"]\n`;
const ID = 'bill.total_non_negative';
const failing = (id: string) =>
  `def test_${id.replace('.', '_')}(record_property):\n    record_property("invariant", "${id}")\n    assert False, "${id} ran"\n`;

test.after.each(cleanup);
test.after(() => keys.rm());

t(
  "replay --base ignores the branch's edited oracle and keeps an owner's admitted commit; by hand the working tree runs",
  () => {
    const repo = tempRepo();
    repo.commit(
      {
        '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n',
        'pytest.ini': '[pytest]\npythonpath = src\n',
        '.patchwarden.yml': config(PYTEST, OWNERS),
        '.patchwarden/allowed_signers': `${OWNER} namespaces="git" ${owner.pub}\n`,
        'spec/invariants.yaml': registry(ID, 'bill.owner', 'bill.agent'),
        'spec/properties/test_bill.py': pyProperty(ID),
        'src/bill.py': 'def total(xs):\n    return sum(xs)\n',
      },
      'base',
    );
    repo.git(['checkout', '-q', '-b', 'topic']);
    // The owner's signed test, admitted into the range; the agent's own test and its weakened property are not.
    commitAs(repo, { 'spec/properties/test_owner.py': failing('bill.owner') }, 'spec: owner', {
      sign: owner.file,
      email: OWNER,
    });
    commitAs(repo, { 'src/bill.py': 'def total(xs):\n    return sum(xs) - 1\n' }, 'bill: change', AGENT);
    commitAs(
      repo,
      {
        'spec/properties/test_bill.py': pyProperty(ID).replace('assert total(xs) >= 0', 'assert True'),
        'spec/properties/test_agent.py': failing('bill.agent'),
      },
      'spec: agent',
      AGENT,
    );
    const keysOf = (out: Record<string, any>) =>
      Object.fromEntries(out.cases.map((c: { key: string; status: string }) => [c.key, c.status]));
    // --format before --: the words after it are the command's.
    const replay = (args: string[]) => {
      const r = repo.pw(['replay', ...args, '--runs', '2', '--seed', '1', '--format', 'json', '--', PYTEST]);
      return { code: r.code, out: JSON.parse(r.stdout), stderr: r.stderr };
    };

    const byHand = replay([]);
    assert.is(byHand.code, 1, byHand.stderr);
    assert.equal(keysOf(byHand.out), {
      [`invariant:${ID}`]: 'stable_pass',
      'invariant:bill.owner': 'stable_fail',
      'invariant:bill.agent': 'stable_fail',
    });

    const trusted = replay(['--base', 'main']);
    assert.is(trusted.code, 1, trusted.stderr);
    assert.equal(keysOf(trusted.out), {
      [`invariant:${ID}`]: 'stable_fail',
      'invariant:bill.owner': 'stable_fail',
    });
    assert.match(
      trusted.stderr,
      /replay: running on main's oracles, admitted owner commits' spec\/properties\/test_owner\.py and HEAD's production diff \(src\/bill\.py\)/,
    );
    assert.is(repo.git(['status', '--porcelain']).stdout, '', 'the working tree is left as it was');
    assert.is(repo.git(['worktree', 'list']).stdout.trim().split('\n').length, 1, 'no worktree left behind');
  },
);

test.run();
