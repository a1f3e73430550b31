// Skip is not pass. Production code raises unittest.SkipTest (reached through
// sys.modules) for the inputs its property fails on: the case skips on head
// and fails without the patch, so its invariant fails. Refused at the gate
// and at a real push, with the tamper layer off (the runtime guard may refuse
// it first; the states alone are proven in test/properties/registry.test.ts).
// A case skipped in both runs is neutral and listed; an invariant all of
// whose cases skip never passes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import {
  AGENT,
  BILL,
  BILL_FIXED,
  commitBy,
  configFor,
  DISCOUNT,
  evidenceSite,
  gate,
  ok,
  registryOf,
  TOTAL,
} from '../properties/evidence-site.js';
import { refused } from './range-site.js';

test.after.each(cleanup);

const SKIPPING = BILL.replace(
  'def discount(price):\n    return 100 - price\n',
  'def discount(price):\n    if price > 100:\n        raise sys.modules[\'unittest\'].SkipTest("not applicable")\n    return 100 - price\n',
);
const CONFIG = configFor('py', 'tamper:\n  mode: off\n');

const pyTest = testUnless(pytestMissing);

pyTest(
  'attack: production code raises SkipTest for the failing input of a pending property; refused at the gate and at a real push',
  () => {
    const s = evidenceSite('py', { pending: true, config: CONFIG });
    const { work } = s;
    work.git(['switch', '-q', '-c', 'fix-discount']);
    commitBy(work, AGENT, { 'src/bill.py': `import sys\n\n\n${SKIPPING}` }, 'fix: discounts');
    const g = gate(work);
    assert.is(g.code, 1, JSON.stringify(g.out));
    assert.is(g.layers.tamper.status, 'skipped');
    // Refused on the verdict side (the case skips on head, fails reverted: regressed), or earlier by
    // the runtime guard, which sees the patch raise the test framework's skip; either refuses it.
    const why = g.layers.properties.violations[0].message;
    assert.ok(
      /"test_discount\[\[invariant:bill\.discount_non_negative\]-150\]" skips on head and fails in the reverted run|runtime guard/.test(
        why,
      ),
      why,
    );
    const before = s.ref('main');
    const pushed = s.localPush(['fix-discount:main']);
    refused(pushed);
    assert.match(pushed.stdout + pushed.stderr, /skips on head|runtime guard/);
    assert.is(s.ref('main'), before);
  },
);

pyTest('a case skipped in both runs is neutral and listed; an invariant all of whose cases skip never passes', () => {
  const param = (price: number, name: string, skip = false) =>
    `pytest.param(${price}, id='[invariant:${DISCOUNT}]-${name}'${skip ? ", marks=pytest.mark.skipif(sys.platform != 'nowhere', reason='not on this platform')" : ''})`;
  const property = (params: string[]) =>
    `import sys\nimport pytest\nfrom bill import discount\n\n\n@pytest.mark.parametrize('price', [${params.join(', ')}])\ndef test_discount(price):\n    assert discount(price) >= 0\n`;
  const platform = property([param(0, '0'), param(150, '150'), param(200, 'elsewhere', true)]);
  const s = evidenceSite('py', {
    pending: true,
    config: CONFIG,
    files: { 'spec/properties/test_discount.py': platform },
  });
  const { work } = s;
  work.git(['switch', '-q', '-c', 'fix']);
  commitBy(work, AGENT, { 'src/bill.py': BILL_FIXED }, 'fix: discounts');
  let g = gate(work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.equal(g.layers.properties.details.neutral, [`test_discount[[invariant:${DISCOUNT}]-elsewhere]`]);
  assert.match(g.layers.properties.summary, '1 skipped in both runs');
  ok(s.localPush(['fix:main']));
  // Only the skipping case left: the invariant never passes.
  work.git(['switch', '-q', '-c', 'narrow', 'origin/main']);
  work.commit(
    {
      'spec/properties/test_discount.py': property([param(200, 'elsewhere', true)]),
      'spec/invariants.yaml': registryOf([{ id: TOTAL }, { id: DISCOUNT }]),
    },
    'narrow the property',
  );
  g = gate(work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.match(g.layers.properties.violations[0].message, `every case of ${DISCOUNT} was skipped`);
});

test.run();
