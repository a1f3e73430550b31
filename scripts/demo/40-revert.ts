// Layer 3: the revert check. With the production diff reverted, the property
// must fail; a property that stays green without the patch does not describe
// it. Shown on the command line and through the pre-push hook.
import { newRepo, say, section } from './lib.js';

const property = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../../src/bill.mjs';

test('totals never go negative [invariant:bill.total_non_negative]', () => {
  for (const xs of [[], [1, 2], [0, 5]]) assert.ok(total(xs) >= 0);
});
`;

export default function revert(): void {
  section('revert check: a property must fail without the patch it claims to describe');
  const repo = newRepo({
    'spec/invariants.yaml':
      'version: 1\ninvariants:\n  - id: bill.total_non_negative\n    description: totals never go negative for non-negative inputs\n',
    'spec/properties/bill.test.mjs': property,
    'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1; // bug: total([]) is -1\n',
  });
  say('the guard config names the property command (a guard-only commit):');
  repo.write({
    '.patchwarden.yml':
      'version: 1\nproperties:\n  command: node --test --test-reporter=junit --test-reporter-destination={junit} spec/properties/\n  invariants: spec/invariants.yaml\n',
  });
  repo.run('git commit -qam "guard: the property command"');
  repo.run(
    'git init -q --bare .git/demo-remote.git && git remote add origin .git/demo-remote.git && git push -q origin main 2>&1',
  );
  say('a production-only fix; the registered property fails once the fix is reverted:');
  repo.write({ 'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n' });
  repo.run(
    'git commit -qam "fix: totals are never negative" && patchwarden revert-check --base origin/main 2>/dev/null',
  );
  repo.run('git push -q origin main 2>&1 | grep -E "revert-check: done|refused" ; git log --oneline -1 origin/main');
  say('a patch the property does not describe: it stays green without the patch, refused:');
  repo.write({
    'src/bill.mjs':
      'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\nexport const currency = (x) => `${x.toFixed(2)} EUR`;\n',
  });
  repo.run('git commit -qam "add currency formatting" && patchwarden revert-check --base origin/main 2>/dev/null', 1);
  say('and the pre-push hook keeps it off the remote:');
  repo.run('git push -q origin main 2>/dev/null', 1);
  repo.run('git log --oneline -1 origin/main');
}
