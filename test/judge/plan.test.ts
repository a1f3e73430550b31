// The engine's plans: a step runs only while the steps before it refused
// nothing, a fact is read once however many rules ask for it, and a plan
// that lists a rule at a point it does not run at is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Violation } from '../../src/common/verdict.js';
import { defaults } from '../../src/config/schema.js';
import type { Repo } from '../../src/git/repo.js';
import { Facts } from '../../src/judge/facts.js';
import { runPlan, type Rule } from '../../src/judge/rule.js';
import { tamperRule } from '../../src/judge/rules/tamper.js';
import type { TamperVerdict } from '../../src/tamper/judge.js';

const violation = (rule: string): Violation => ({ rule, paths: [], message: rule });

/** Facts of no repository: these rules read only the tamper fact, which the point hands in. */
function facts(point: Facts['point'], scans: { n: number }, verdict: TamperVerdict | null = null): Facts {
  return new Facts({
    point,
    repo: {} as Repo,
    config: defaults(),
    tip: ':',
    where: 'the index',
    paths: [],
    classify: () => () => null,
    tamper: async () => {
      scans.n++;
      return verdict;
    },
  });
}

const refusing = (id: string): Rule => ({
  id,
  points: ['pre-commit', 'gate'],
  needs: ['tamper'],
  judge: async (f) => ((await f.tamper()) ? [] : [violation(id)]),
});

test('a step runs only while the steps before it refused nothing', async () => {
  const scans = { n: 0 };
  const judged: string[] = [];
  const later: Rule = {
    ...refusing('later'),
    judge: async () => {
      judged.push('later');
      return [];
    },
  };
  const found = await runPlan(facts('pre-commit', scans), [[refusing('first'), refusing('second')], [later]]);
  assert.equal(
    found.map((v) => v.rule),
    ['first', 'second'],
  );
  assert.equal(judged, []);
  // Three rules need the fact; it is read once.
  assert.is(scans.n, 1);
});

test('a step after a clean one runs', async () => {
  const clean: Rule = { ...refusing('clean'), judge: async () => [] };
  const found = await runPlan(facts('gate', { n: 0 }), [[clean], [refusing('then')]]);
  assert.equal(
    found.map((v) => v.rule),
    ['then'],
  );
});

test('a rule in the plan of a point it does not run at is refused', async () => {
  const failed = await runPlan(facts('pre-receive', { n: 0 }), [[refusing('x')]]).then(
    () => null,
    (err: Error) => err.message,
  );
  assert.match(failed ?? 'it ran', /rule x does not run at pre-receive/);
});

test('the tamper rule refuses what the scan refuses and says what stands in warn mode', async () => {
  const verdict: TamperVerdict = {
    mode: 'warn',
    hits: [],
    violations: [violation('tamper')],
    warnings: ['src/a.py:3: os._exit stands (tamper.mode: warn)'],
    files: 1,
  };
  const f = facts('pre-push', { n: 0 }, verdict);
  const found = await runPlan(f, [[tamperRule]]);
  assert.equal(
    found.map((v) => v.rule),
    ['tamper'],
  );
  assert.equal(f.takeNotes(), verdict.warnings);
  assert.equal(f.takeNotes(), []);
});

test.run();
