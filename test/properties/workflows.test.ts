// The flows of docs/workflows.md end to end, with real pytest and node
// properties, a real bare server with the installed hook, the clone's
// pre-push hook and the real gate: an owner lands a pending property; an
// agent fixes it; an agent refactors; a regression is refused.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { refused } from '../attacks/range-site.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import {
  AGENT,
  BILL,
  BILL_FIXED,
  commitBy,
  DISCOUNT,
  evidenceSite,
  gate,
  JS_BILL,
  JS_BILL_FIXED,
  JS_DISCOUNT,
  MARK,
  ok,
  PY_DISCOUNT,
  registryOf,
  SRC,
  TODAY,
  TOTAL,
  type Lang,
} from './evidence-site.js';

test.after.each(cleanup);

for (const lang of ['py', 'js'] as Lang[]) {
  const flow = lang === 'py' ? testUnless(pytestMissing) : testUnless(null);
  const fixed = lang === 'py' ? BILL_FIXED : JS_BILL_FIXED;
  const property: Record<string, string> =
    lang === 'py'
      ? { 'spec/properties/test_discount.py': PY_DISCOUNT }
      : { 'spec/properties/discount.test.mjs': JS_DISCOUNT };

  flow(
    `${lang}: an owner lands a red property; unmarked it is refused with the row edit, marked it lands through every layer; an agent fixes it and is told to drop the mark`,
    () => {
      const s = evidenceSite(lang);
      const { work } = s;
      work.git(['switch', '-q', '-c', 'discount-property']);
      work.commit(
        { ...property, 'spec/invariants.yaml': registryOf([{ id: TOTAL }, { id: DISCOUNT }]) },
        'property: discounts never go negative',
      );
      let g = gate(work);
      assert.is(g.code, 1, JSON.stringify(g.out));
      const v = g.layers.properties.violations[0];
      assert.match(v.message, `the base itself fails ${DISCOUNT}`);
      assert.match(v.message, 'mark it pending, reviewed, or fix it');
      assert.match(v.fix, `pending: {since: ${TODAY}, owner: NAME, reason: WHY THE BASE FAILS IT}`);
      // The owner makes the printed row edit, filling in the name and the reason.
      const edit = v.fix
        .split('\n')
        .filter((l: string) => l.startsWith('    '))
        .map((l: string) => l.slice(2).replace(/ {4}# line \d+$/, ''))
        .join('\n');
      const marked =
        registryOf([{ id: TOTAL }]) +
        edit.replace('NAME', MARK.owner).replace('WHY THE BASE FAILS IT', MARK.reason) +
        '\n';
      work.commit({ 'spec/invariants.yaml': marked }, 'mark it pending');
      g = gate(work);
      assert.is(g.code, 0, JSON.stringify(g.out));
      assert.match(g.layers.properties.summary, `pending under a mark: ${DISCOUNT}`);
      assert.equal(g.layers.properties.details.pending, [DISCOUNT]);
      // Pushed to main through the pre-push hook and the server hook.
      ok(s.localPush(['discount-property:main']));

      // An unrelated agent change (no production code) passes and lists the pending invariant.
      work.git(['switch', '-q', '-c', 'docs', 'origin/main']);
      commitBy(work, AGENT, { 'README.md': 'bill, with discounts\n' }, 'docs');
      g = gate(work);
      assert.is(g.code, 0, JSON.stringify(g.out));
      assert.match(g.layers.properties.summary, `pending under a mark: ${DISCOUNT}`);

      // The agent fixes the bug: the property is its evidence.
      work.git(['switch', '-q', '-c', 'fix-discount', 'origin/main']);
      commitBy(work, AGENT, { [SRC(lang)]: fixed }, 'fix: discounts stop at zero');
      g = gate(work);
      assert.is(g.code, 0, JSON.stringify(g.out));
      assert.is(g.layers.revert.details.status, 'describes_patch');
      assert.equal(g.layers.revert.details.failing_on_revert, [DISCOUNT]);
      assert.match(g.layers.properties.summary, `drop the pending mark of ${DISCOUNT} (it passes now)`);
      const states = g.layers.properties.details.states.find((i: any) => i.id === DISCOUNT);
      assert.equal(
        states.cases.map((c: any) => c.state),
        ['holds', 'holds', 'fixed'],
      );
      const pushed = s.localPush(['fix-discount:main']);
      ok(pushed);
      assert.match(pushed.stderr, `${DISCOUNT} passes now: an owner drops its pending mark in a commit of its own`);
    },
  );

  // The states do not depend on the runner: the other flows run once, with pytest.
  if (lang !== 'py') continue;

  flow(
    `${lang}: an agent refactor is refused with its digest; an owner's row landed first lets exactly it through with no property run`,
    () => {
      const s = evidenceSite(lang, { pending: true });
      const { work } = s;
      work.git(['switch', '-q', '-c', 'refactor']);
      const refactor =
        lang === 'py'
          ? BILL.replace('return sum(xs)', 'return sum(x for x in xs)')
          : JS_BILL.replace('xs.reduce((a, b) => a + b, 0)', 'xs.reduce((sum, x) => sum + x, 0)');
      commitBy(work, AGENT, { [SRC(lang)]: refactor }, 'refactor: total');
      let g = gate(work);
      assert.is(g.code, 1, JSON.stringify(g.out));
      assert.is(g.layers.revert.details.status, 'does_not_describe');
      assert.is(g.layers.properties.status, 'pass', 'the pending invariant fails in both runs, under its mark');
      const digest = g.layers.revert.details.digest;
      assert.match(g.layers.revert.violations[0].fix, `- diff: ${digest}`);
      refused(s.localPush(['refactor:main']), 'does_not_describe');
      // The owner's row lands on main first, on its own.
      work.git(['switch', '-q', '-c', 'ack', 'origin/main']);
      work.commit(
        {
          '.patchwarden/refactors.yaml': `version: 1\nrefactors:\n  - diff: ${digest}\n    owner: Dana Owner\n    reason: same sum, another spelling\n`,
        },
        'acknowledge the total refactor',
      );
      ok(s.localPush(['ack:main']));
      work.git(['switch', '-q', 'refactor']);
      ok(work.git(['rebase', '-q', 'origin/main'], { allowFail: true }));
      g = gate(work);
      assert.is(g.code, 0, JSON.stringify(g.out));
      assert.is(g.layers.revert.details.status, 'acknowledged');
      assert.match(g.layers.properties.summary, /^not run: an owner acknowledged this diff/);
      assert.match(g.stderr, 'no property run');
      assert.not.match(g.stderr, 'running the properties on head');
      ok(s.localPush(['refactor:main']));
    },
  );

  flow(
    `${lang}: a regression is refused, even with a freeze row for its signature; so is a pending invariant with one case newly failing`,
    () => {
      const s = evidenceSite(lang, { pending: true });
      const { work } = s;
      work.git(['switch', '-q', '-c', 'regress']);
      // The agent fixes discount (evidence) and breaks total on the way.
      const broken =
        lang === 'py'
          ? BILL_FIXED.replace('return sum(xs)', 'return sum(xs) - 1')
          : JS_BILL_FIXED.replace('a + b, 0)', 'a + b, 0) - 1');
      commitBy(work, AGENT, { [SRC(lang)]: broken }, 'fix discount');
      let g = gate(work);
      assert.is(g.code, 1, JSON.stringify(g.out));
      assert.is(g.layers.properties.details.status, 'regressed');
      assert.match(g.layers.properties.violations[0].message, `${TOTAL} regressed`);
      // A freeze row for the regression's signature, landed on main, changes nothing.
      const report = `${work.dir}/.git/regress.xml`;
      const cmd =
        lang === 'py'
          ? `python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml=${report}`
          : `node --test --test-reporter=junit --test-reporter-destination=${report} spec/properties/`;
      const run = runIn(work.dir, cmd);
      assert.is.not(run, 0);
      const sigs = work.json(['signatures', report]).out;
      const sig = sigs.failures.find((c: any) => String(c.name).includes(TOTAL))?.sig;
      assert.ok(sig, JSON.stringify(sigs));
      work.git(['switch', '-q', '-c', 'freeze', 'origin/main']);
      ok(work.pw(['freeze', 'init', '--version', '1']));
      ok(work.pw(['freeze', 'add', '--sig', sig, '--reason', 'known', '--owner', 'Dana Owner', '--ttl', '3d']));
      work.git(['add', '-A']);
      work.git(['commit', '-q', '--no-verify', '-m', 'freeze the total failure']);
      ok(s.localPush(['freeze:main']));
      work.git(['switch', '-q', 'regress']);
      ok(work.git(['rebase', '-q', 'origin/main'], { allowFail: true }));
      g = gate(work);
      assert.is(g.code, 1, JSON.stringify(g.out));
      assert.is(g.layers.properties.details.status, 'regressed');
      refused(s.localPush(['regress:main']), 'regressed');

      // Inside the pending invariant: price 50 starts failing too.
      work.git(['switch', '-q', '-c', 'worse', 'origin/main']);
      const worse =
        lang === 'py'
          ? BILL.replace('return 100 - price', 'return 100 - 3 * price')
          : JS_BILL.replace('100 - price', '100 - 3 * price');
      commitBy(work, AGENT, { [SRC(lang)]: worse }, 'tune discount');
      g = gate(work);
      assert.is(g.code, 1, JSON.stringify(g.out));
      assert.match(g.layers.properties.violations[0].message, `${DISCOUNT} regressed`);
      const cases = g.layers.properties.details.states
        .find((i: any) => i.id === DISCOUNT)
        .cases.map((c: any) => c.state);
      assert.equal(cases, ['holds', 'regressed', 'pending']);
    },
  );
}

function runIn(cwd: string, cmd: string): number {
  return spawnSync('sh', ['-c', cmd], { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } }).status ?? 1;
}

test.run();
