// Layer 1: production code and an oracle in one commit are refused; the same
// change lands as two clean commits.
import { newRepo, say, section } from './lib.js';

export default function mixing(): void {
  section('mixing rule: a patch may not change production code and its oracle together');
  const repo = newRepo({
    'src/bill.py': 'def total(items):\n    return sum(items)\n',
    'spec/test_bill.py': 'from src.bill import total\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
  });
  say('an agent "fixes" a bug and loosens the property that would catch it, in one commit:');
  repo.write({
    'src/bill.py': 'def total(items):\n    return max(0, sum(items))\n',
    'spec/test_bill.py': 'from src.bill import total\n\ndef test_total():\n    assert total([1, 2]) >= 0\n',
  });
  repo.run('git add -A && git commit -q -m "fix total"', 1);
  repo.run('git log --oneline | wc -l');
  say('split as the refusal says: the spec change in its own commit first, then the production code:');
  repo.run(
    'git commit -q -m "spec: totals are non-negative" -- spec/test_bill.py && git commit -q -m "fix total" -- src/bill.py && git log --oneline',
  );
  say(
    'the server and CI refuse a range that carries both (mix.range: refuse): the spec commit is pushed and reviewed on its own first:',
  );
  repo.run('patchwarden check --range HEAD~2..HEAD', 1);
  repo.run('patchwarden check --range HEAD~2..HEAD~1 && patchwarden check --range HEAD~1..HEAD');
}
