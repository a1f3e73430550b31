// Layer 3: fixtures are locked by content. A commit that rewrites one is
// refused at pre-commit; the reviewed update, lock and fixture in their own
// commit, goes through, and sha256sum agrees with the lock.
import { newRepo, say, section } from './lib.js';

export default function fixtures(): void {
  section('fixture lock: input bytes are pinned by sha256, checked from the index');
  const repo = newRepo({
    'src/bill.py': 'def total(items):\n    return sum(i["price"] for i in items)\n',
    'fixtures/input/cart.json': '{"items": [{"price": 3}, {"price": 4}]}\n',
  });
  repo.run(
    'patchwarden fixtures lock && git add fixtures && git commit -q -m "lock the fixtures" && cat fixtures/inputs.sha256',
  );
  say('an agent edits the input so the failing case stops failing:');
  repo.write({ 'fixtures/input/cart.json': '{"items": [{"price": 3}]}\n' });
  repo.run('git add fixtures && git commit -q -m "tidy fixture"', 1);
  repo.run('git log --oneline | wc -l && git diff --cached --stat');
  say('nor may it slip an expected output in with the inputs, lock and all:');
  repo.run(
    'git restore --staged --worktree fixtures && echo \'{"total": 7}\' > fixtures/input/expected.json && patchwarden fixtures lock',
    1,
  );
  repo.run('rm fixtures/input/expected.json');
  say('a failing input promoted by a human: canonical JSON, its id is its digest:');
  repo.run(
    `printf '{ "items": [ {"price": -2} ] }' | patchwarden fixtures add - && git add fixtures && git commit -q -m "fixtures: negative price case (reviewed)" && git log --oneline -1`,
  );
  repo.run('sha256sum -c fixtures/inputs.sha256 && patchwarden fixtures verify --rev HEAD');
}
