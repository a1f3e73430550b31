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
    'the server and CI refuse the range: its spec commit is an oracle change no owner signed, and it shares the range with production code (mix.range: refuse):',
  );
  repo.run('patchwarden check --range HEAD~2..HEAD', 1);
  say(
    'the owner reviews the spec change and makes it a commit of their own, signed; an owner-signed oracle commit may travel with the fix:',
  );
  repo.run(
    'git reset -q HEAD~2 && git commit -q -S -m "spec: totals are non-negative" -- spec/test_bill.py && git commit -q -m "fix total" -- src/bill.py && patchwarden check --range HEAD~2..HEAD',
  );
}
