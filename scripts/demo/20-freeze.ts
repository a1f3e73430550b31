// Layer 3: a known flake is frozen by its failure signature, by a row that
// carries its replay evidence. Renaming the test does not lift the freeze, and
// needs the owner's edit of the row; a changed failure is new.
import { newRepo, say, section } from './lib.js';

const TEST = `from calc import total


def test_total():
    assert total([1, 2]) == 3
`;

export default function freeze(): void {
  section('freeze ledger: a flake is frozen by failure signature, never by test name');
  const repo = newRepo({
    'pytest.ini': '[pytest]\npythonpath = src\n',
    'src/calc/__init__.py':
      'import os\n\n\ndef total(items):\n    # FLAKE stands in for a host where the clock drifts\n    return sum(items) + (1 if os.environ.get("FLAKE") else 0)\n',
    'tests/test_total.py': TEST,
    '.gitignore': '__pycache__/\nreport.xml\n',
  });
  const suite = 'FLAKE=1 PY_COLORS=0 python3 -m pytest -q -p no:cacheprovider tests --junitxml=report.xml >/dev/null';
  say('the suite fails on one kind of host; its failure has a signature:');
  repo.run(`${suite}; patchwarden signatures report.xml`);
  repo.run('patchwarden freeze apply report.xml', 1);
  say("a new project's ledger is version 2: a row without replay evidence is refused, whoever writes it:");
  const sig = repo
    .run(
      `patchwarden signatures report.xml --format json 2>/dev/null | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0,"utf8")).failures[0].sig)'`,
    )
    .trim();
  repo.run(
    `patchwarden freeze add --sig ${sig} --reason "clock drift on one host" --owner qa-team --ttl 7d --last-name test_total`,
    1,
  );
  say(
    'the failing input is pinned as a fixture, replayed under a fixed seed on CI (replay prints the row), and its owner adds it with that evidence:',
  );
  const fixture = repo
    .run(
      `echo '{"items": [1, 2]}' | patchwarden fixtures add - --format json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0,"utf8")).id)'`,
    )
    .trim();
  repo.run('git add fixtures && git commit -q -m "fixtures: the flake\'s input"');
  repo.run(
    `patchwarden freeze add --sig ${sig} --reason "clock drift on one host" --owner qa-team --ttl 7d --last-name test_total --fixture ${fixture} --seed 20260917 --env-class remote --ci github --run https://github.com/acme/shop/actions/runs/4242 && git add freeze && git commit -q -m "freeze: clock drift flake" && patchwarden freeze list`,
  );
  repo.run('patchwarden freeze apply report.xml');
  say(
    'an agent renames and moves the test: the row still matches, and a rename needs a human, who is shown the one-line ledger edit:',
  );
  repo.run(
    `git mv tests/test_total.py tests/test_sums.py && sed -i 's/def test_total/def test_sum_of_two/' tests/test_sums.py && git commit -q -am "rename test" && ${suite}; patchwarden freeze apply report.xml`,
    1,
  );
  say("the ledger's owner judges it the same flake and commits that edit on its own:");
  repo.run(
    `sed -i 's/last_name: test_total$/last_name: test_sum_of_two/' freeze/signatures.yaml && git commit -q -am "freeze: acknowledge the rename of test_total" && patchwarden freeze apply report.xml`,
  );
  say('the agent swaps the assertion for pytest.raises: a different failure, not covered by the freeze:');
  repo.write({
    'tests/test_sums.py':
      'import pytest\nfrom calc import total\n\n\ndef test_sum_of_two():\n    with pytest.raises(ValueError):\n        total([1, 2])\n',
  });
  repo.run(`${suite}; patchwarden freeze apply report.xml`, 1);
  say('a row keyed by the test name is refused when it is committed:');
  repo.write({
    'freeze/signatures.yaml':
      'version: 1\nrecords:\n  - name: test_sum_of_two\n    reason: agent says it is flaky\n    owner: bot\n    expires: 2099-01-01T00:00:00Z\n',
  });
  repo.run('git add freeze && git commit -q -m "freeze by name"', 1);
}
