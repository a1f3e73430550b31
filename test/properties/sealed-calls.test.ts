// A sealed run counts the calls its property processes make to production
// code in their workers, and says so: the count grows by exactly the calls a
// property adds, under node:test and pytest, and from 100,000 calls on the
// output says what each costs. Real runners; kernel-sealed where Landlock
// is, process-sealed elsewhere (the count is the same).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { BUGGY_JS, BUGGY_PY, config, FIXED_JS, FIXED_PY, NODE_TEST, project, PYTEST, registry } from './projects.js';

const ID = 'bill.total_non_negative';
const SEALED = '  sealed: kernel\ntamper:\n  mode: off\n';

test.after.each(cleanup);

/** Calls `total` once per i below n on head; the reverted side fails at its first call. */
const nodeProperty = (n: number) => `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../../src/bill.mjs';
test('never negative [invariant:${ID}]', () => {
  for (let i = 0; i < ${n}; i++) assert.equal(total([i]) >= 0, true);
});
`;

const pyProperty = (n: number) => `from bill import total


def test_total_non_negative(record_property):
    record_property("invariant", "${ID}")
    for i in range(${n}):
        assert total([i]) >= 0
`;

function nodeCheck(n: number, json = true) {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(NODE_TEST, SEALED),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': nodeProperty(n),
      'src/bill.mjs': BUGGY_JS,
      'package.json': '{"type":"module"}\n',
    },
    { 'src/bill.mjs': FIXED_JS },
  );
  return { json: json ? repo.json(['revert-check', '--base', base, '--head', head]) : null, repo, base, head };
}

function pyCheck(n: number) {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(PYTEST, SEALED),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': pyProperty(n),
      'src/bill.py': BUGGY_PY,
    },
    { 'src/bill.py': FIXED_PY },
  );
  return { json: repo.json(['revert-check', '--base', base, '--head', head]), repo, base, head };
}

type Check = ReturnType<typeof nodeCheck>;

function calls({ json }: Check): number {
  if (!json) throw new Error('a check without its JSON');
  assert.is(json.out.status, 'describes_patch', `${json.out.reason}\n${json.stderr}`);
  const counted = json.out.sealed_calls as { calls: number; ms: number } | null;
  assert.ok(counted, `the calls were counted: ${JSON.stringify(json.out)}`);
  assert.ok(counted.ms >= 0);
  return counted.calls;
}

test('node:test: the count grows by exactly the calls a property adds, and the text says it', () => {
  const few = nodeCheck(10);
  const more = nodeCheck(1010);
  assert.is(calls(more) - calls(few), 1000);
  const text = more.repo.pw(['revert-check', '--base', more.base, '--head', more.head]);
  assert.match(
    text.stdout,
    /^patchwarden: sealed: (kernel|process) \(.*\); [\d,]+ calls crossed to the worker, [\d.]+ s in them$/m,
  );
  assert.not.match(text.stdout, /round trip/, 'no advice under 100,000 calls');
});

testUnless(pytestMissing)('pytest: the count grows by exactly the calls a property adds', () => {
  assert.is(calls(pyCheck(1010)) - calls(pyCheck(10)), 1000);
});

test('from 100,000 calls on, the output says what each costs and how to make fewer', () => {
  const many = nodeCheck(100_000, false);
  const text = many.repo.pw(['revert-check', '--base', many.base, '--head', many.head]);
  assert.is(text.code, 0, text.stderr);
  const counted = /([\d,]+) calls crossed to the worker/.exec(text.stdout)?.[1];
  assert.ok(counted && Number(counted.replaceAll(',', '')) >= 100_000, text.stdout);
  assert.match(
    text.stdout,
    /patchwarden: sealed: each call from a property to production code is a round trip to the worker .*fewer, larger calls cost less/,
  );
});

test.run();
