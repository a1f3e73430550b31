import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { site } from '../attacks/range-site.js';
import { cleanup } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { commitAs, Keys } from '../prereceive/server.js';
import { AGENT, commitBy, gate, splitAsAdvised } from './evidence-site.js';
import { GO_MOD, GOTESTSUM_MISSING, goConfig, goProperty, goRegistry as registry, TOTAL_BODY } from './go-module.js';

const goTest = testUnless(GOTESTSUM_MISSING);

const TOTAL = 'bill.total';
const DOUBLE = 'bill.double';
const BILL =
  'package bill\n\n// Total sums the items.\nfunc Total(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n';
/** The agent's fix: Double, new, and (when `scaled`) Total given a scale, which changes its signature. */
const withDouble = (scaled = false) =>
  `${scaled ? BILL.replace('Total(xs []int) int {', 'Total(xs []int, k int) int {').replace('return s', 'return s * k') : BILL}\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n`;

const TOTAL_TEST = goProperty('TestTotal', TOTAL, TOTAL_BODY);
const DOUBLE_TEST = goProperty('TestDouble', DOUBLE, 'if bill.Double(2) != 4 {\n\t\t\tt.Fatal("Double")\n\t\t}');

function goSite(owner: { pub: string }) {
  return site(goConfig('owners:\n  signers: .patchwarden/allowed_signers\n'), {
    '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
    'go.mod': GO_MOD,
    'bill/bill.go': BILL,
    'spec/invariants.yaml': registry(TOTAL),
    'spec/properties/total_test.go': TOTAL_TEST,
  });
}

const keys = new Keys();
const owner = keys.make('owner');
test.after.each(cleanup);
test.after(() => keys.rm());

goTest(
  "go: an owner's signed property for a new function beside an agent's fix is fixed (by build); the gate accepts it",
  () => {
    const { work } = goSite(owner);
    work.git(['switch', '-q', '-c', 'double', 'origin/main']);
    commitAs(
      work,
      { 'spec/invariants.yaml': registry(TOTAL, DOUBLE), 'spec/properties/double_test.go': DOUBLE_TEST },
      'property: Double doubles',
      { sign: owner.file, email: 'owner@example.com' },
    );
    commitBy(work, AGENT, { 'bill/bill.go': withDouble() }, 'add Double');
    const g = gate(work);
    const revert = g.layers.revert.details;
    assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
    assert.equal(revert.failing_on_revert, [DOUBLE]);
    assert.equal(revert.by_build, { [DOUBLE]: ['bill.Double'] });
    assert.match(g.layers.revert.summary, `${DOUBLE} (by build)`);
    assert.is(g.code, 0, JSON.stringify(g.out.layers));
  },
);

goTest('go: a reverted build that fails on anything the diff does not add stays revert_broken', () => {
  const { work } = goSite(owner);
  work.git(['switch', '-q', '-c', 'double', 'origin/main']);
  // The property calls Double and Total with the fix's new signature: without the fix Total's call is wrong too.
  commitAs(
    work,
    {
      'spec/invariants.yaml': registry(TOTAL, DOUBLE),
      'spec/properties/total_test.go': TOTAL_TEST.replace('bill.Total([]int{1, 2})', 'bill.Total([]int{1, 2}, 1)'),
      'spec/properties/double_test.go': DOUBLE_TEST,
    },
    'property: Double doubles, Total scales',
    { sign: owner.file, email: 'owner@example.com' },
  );
  commitBy(work, AGENT, { 'bill/bill.go': withDouble(true) }, 'add Double, scale Total');
  const g = gate(work);
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'revert_broken', `${revert.reason}\n${g.stderr}`);
  assert.is.not(g.code, 0);
});

goTest(
  "go: the owner's split advice for a property and a new function, run as printed, reaches a state the gate accepts",
  () => {
    const s = goSite(owner);
    const { work } = s;
    const g = splitAsAdvised(work, owner.file, {
      'bill/bill.go': withDouble(),
      'spec/properties/double_test.go': DOUBLE_TEST,
      'spec/invariants.yaml': registry(TOTAL, DOUBLE),
    });
    const revert = g.layers.revert.details;
    assert.is(revert.status, 'describes_patch', `${revert.reason}\n${g.stderr}`);
    assert.equal(revert.by_build, { [DOUBLE]: ['bill.Double'] });
    assert.is(g.code, 0, JSON.stringify(g.out.layers));
    assert.is(s.ref('refs/heads/double'), work.head(), 'pushed as printed');
  },
);

test.run();
