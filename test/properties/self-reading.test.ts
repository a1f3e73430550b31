// A comment-only diff in a file that reads its own source at run time is not
// waved through as "no behaviour change": the comment is data there, and the
// properties run (real pytest and node --test) and catch what it changes. The
// same comment change in a file that does not read its source still needs no
// run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, jsProperty, NODE_TEST, project, PYTEST, pyProperty, registry } from './projects.js';

const ID = 'bill.total_non_negative';
const py = testUnless(pytestMissing);

/** revert-check base..head on a project whose property asserts total(xs) >= 0 over small inputs. */
function check(command: string, property: Record<string, string>, src: string, before: string, after: string) {
  const { repo, base, head } = project(
    { '.patchwarden.yml': config(command), 'spec/invariants.yaml': registry(ID), ...property, [src]: before },
    { [src]: after },
  );
  return repo.json(['revert-check', '--base', base, '--head', head]);
}

const PROPERTY_PY = { 'spec/properties/test_bill.py': pyProperty(ID) };
const PROPERTY_JS = { 'spec/properties/bill.test.mjs': jsProperty(ID) };

/** The rate is read from the comment above `total`: a comment edit moves every total. */
const PY_SELF = `import inspect


# rate: 0
def total(xs):
    return sum(xs) - int(inspect.getcomments(total).split(":")[1])
`;
const PY_OPEN = `def total(xs):
    # rate: 0
    with open(__file__) as f:
        rate = int(f.read().split("# rate: ")[1].split()[0])
    return sum(xs) - rate
`;
const PY_PLAIN = '# rate: 0\ndef total(xs):\n    return sum(xs)\n';

test.after.each(cleanup);

py(
  'pytest: a comment read back through inspect.getcomments or open(__file__) owes evidence, and the run finds the change',
  () => {
    for (const src of [PY_SELF, PY_OPEN]) {
      const r = check(PYTEST, PROPERTY_PY, 'src/bill.py', src, src.replace('# rate: 0', '# rate: 5'));
      assert.is(r.out.status, 'regressed', `${r.out.reason}\n${r.stderr}`);
      assert.match(r.stderr, /reads its own source at run time/);
      assert.is(r.code, 1);
    }
  },
);

py('pytest: the same comment change in a file that does not read its source needs no run', () => {
  const r = check(PYTEST, PROPERTY_PY, 'src/bill.py', PY_PLAIN, PY_PLAIN.replace('# rate: 0', '# rate: 5'));
  assert.is(r.out.status, 'no_behaviour_change', `${r.out.reason}\n${r.stderr}`);
  assert.not.match(r.stderr, /running the properties/);
  assert.is(r.code, 0);
});

const JS_SELF = `export function total(xs) {
  /* rate: 0 */
  return xs.reduce((a, b) => a + b, 0) - Number(/rate: (\\d+)/.exec(total.toString())[1]);
}
`;
const JS_READ = `import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// rate: 0
const rate = Number(/rate: (\\d+)/.exec(readFileSync(fileURLToPath(import.meta.url), 'utf8'))[1]);
export const total = (xs) => xs.reduce((a, b) => a + b, 0) - rate;
`;
const JS_PLAIN = '// rate: 0\nexport const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';

test('node --test: a comment read back through toString() or readFileSync(import.meta.url) owes evidence, and the run finds the change', () => {
  for (const src of [JS_SELF, JS_READ]) {
    const r = check(NODE_TEST, PROPERTY_JS, 'src/bill.mjs', src, src.replace('rate: 0', 'rate: 5'));
    assert.is(r.out.status, 'regressed', `${r.out.reason}\n${r.stderr}`);
    assert.match(r.stderr, /reads its own source at run time/);
    assert.is(r.code, 1);
  }
});

test('node --test: the same comment change in a file that does not read its source needs no run', () => {
  const r = check(NODE_TEST, PROPERTY_JS, 'src/bill.mjs', JS_PLAIN, JS_PLAIN.replace('rate: 0', 'rate: 5'));
  assert.is(r.out.status, 'no_behaviour_change', `${r.out.reason}\n${r.stderr}`);
  assert.not.match(r.stderr, /running the properties/);
  assert.is(r.code, 0);
});

test.run();
