// The classification core and the promotion table, over observations as a
// report would give them.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classify } from '../../src/replay/classify.js';
import { caseIds, observeCases } from '../../src/replay/observe.js';
import { promote, type PromotionContext } from '../../src/replay/promotion.js';
import type { Observation, RunRecord } from '../../src/replay/types.js';
import type { TestCase } from '../../src/junit/types.js';
import type { Signed } from '../../src/signature/types.js';

const FIX = 'a1b2c3d4e5f60789';
const SIG = '7c1a9e2b44d0af13';

function run(n: number, cases: Observation[], report = true): RunRecord {
  return {
    run: n,
    exit_code: report ? 1 : 137,
    signal: null,
    timed_out: false,
    report,
    elapsed_ms: 1,
    cases: report ? cases : [],
    ...(report ? {} : { error: 'wrote no report' }),
  };
}
const failSig = (sig = SIG, name = 'test_x', eligible = true): Observation => ({
  key: `sig:${sig}`,
  kind: 'signature',
  name,
  outcome: 'fail',
  sig,
  eligible,
});
const fixture = (outcome: Observation['outcome'], name = 'test_fix'): Observation => ({
  key: `fixture:${FIX}`,
  kind: 'fixture',
  name,
  outcome,
  fixture: FIX,
  ...(outcome === 'fail' && { sig: SIG, eligible: true }),
});
const ctx = (envClass: 'local' | 'remote', seed = '20260917'): PromotionContext => ({
  seed,
  envClass,
  ttlMs: 7 * 86_400_000,
  now: new Date('2026-12-02T10:00:00.123Z'),
  ci: null,
  frozenBy: () => null,
  ledgerVersion: 1,
  out: null,
});
const only = (runs: RunRecord[]) => {
  const all = classify(runs);
  assert.is(all.length, 1, JSON.stringify(all));
  return all[0];
};

test('a signature-keyed failure absent from a run that wrote a report counts as a pass there', () => {
  const s = only([run(1, [failSig()]), run(2, []), run(3, [failSig()])]);
  assert.is(s.key, `sig:${SIG}`);
  assert.is(s.status, 'flicker');
  assert.equal([s.passes, s.fails], [1, 2]);
});

test('skip is not pass: a case of an id-keyed key that skips in some runs fails those runs; one skipped in every run is neutral; all skipped never passes', () => {
  const partial = only([
    run(1, [fixture('pass', 'a'), fixture('pass', 'b')]),
    run(2, [fixture('pass', 'a'), fixture('skipped', 'b')]),
  ]);
  assert.is(partial.status, 'flicker');
  assert.equal([partial.passes, partial.fails, partial.missing], [1, 1, 1]);
  const platform = only([
    run(1, [fixture('pass', 'a'), fixture('skipped', 'b')]),
    run(2, [fixture('pass', 'a'), fixture('skipped', 'b')]),
  ]);
  assert.is(platform.status, 'stable_pass');
  const none = only([run(1, [fixture('skipped', 'b')]), run(2, [fixture('skipped', 'b')])]);
  assert.is(none.status, 'stable_fail');
});

test('a signature failing in every run is stable_fail: fix it, no freeze', () => {
  const s = only([run(1, [failSig()]), run(2, [failSig(SIG, 'test_renamed')])]);
  assert.is(s.status, 'stable_fail');
  assert.equal(s.names, ['test_x', 'test_renamed']);
  const v = promote(s, ctx('remote'));
  assert.is(v.action, 'fix');
  assert.is(v.freeze_candidate, null);
  assert.match(v.note, /regression/);
});

test('an id-keyed case absent or skipped in a run is not a pass there', () => {
  const absent = only([run(1, [fixture('pass')]), run(2, [])]);
  assert.is(absent.status, 'flicker');
  assert.equal([absent.passes, absent.missing, absent.fails], [1, 1, 1]);
  const skipped = only([run(1, [fixture('skipped')]), run(2, [fixture('skipped')])]);
  assert.is(skipped.status, 'stable_fail');
  assert.is(skipped.missing, 2);
});

test('a run without a report is a failed run for every key, never a pass', () => {
  const s = only([run(1, [fixture('pass')]), run(2, [], false), run(3, [fixture('pass')])]);
  assert.is(s.status, 'flicker');
  assert.equal([s.crashed, s.fails, s.passes], [1, 1, 2]);
  // No failure signature was ever seen, so there is nothing a freeze could name.
  const v = promote(s, ctx('remote'));
  assert.is(v.action, 'investigate');
  assert.is(v.freeze_candidate, null);
});

test('several cases with one key in one run: any failure fails that run', () => {
  const s = only([
    run(1, [fixture('pass', 'a'), fixture('fail', 'b')]),
    run(2, [fixture('pass', 'a'), fixture('pass', 'b')]),
  ]);
  assert.is(s.status, 'flicker');
  assert.is(s.name, 'b', 'the name it failed under');
});

test('every passing id-keyed case is stable_pass: not reproducible, drop it', () => {
  const v = promote(only([run(1, [fixture('pass')]), run(2, [fixture('pass')])]), ctx('remote'));
  assert.is(v.status, 'stable_pass');
  assert.is(v.action, 'drop');
  assert.is(v.freeze_candidate, null);
});

test('a remote flicker yields a ledger row for a human, with the exact freeze add line', () => {
  const s = only([run(1, [fixture('fail', "-it's")]), run(2, [fixture('pass')]), run(3, [fixture('fail', "-it's")])]);
  const v = promote(s, ctx('remote'));
  assert.is(v.action, 'freeze_candidate');
  const row = v.freeze_candidate!;
  assert.is(row.sig, SIG);
  assert.is(row.fixture, FIX);
  assert.is(row.seed, 20260917);
  assert.is(row.env_class, 'remote');
  assert.is(row.owner, null);
  assert.is(row.issued, '2026-12-02T10:00:00Z');
  assert.is(row.expires, '2026-12-09T10:00:00Z');
  assert.is(row.last_name, "-it's");
  assert.match(row.reason, /2 of 3 runs failed under seed 20260917/);
  // The line must survive the shell: run it through sh with OWNER set and read the words back.
  const echoed = spawnSync('sh', ['-c', row.command.replace(/^patchwarden freeze add/, 'printf "%s\\n"')], {
    encoding: 'utf8',
    env: { ...process.env, OWNER: 'team-a' },
  });
  assert.equal(echoed.stdout.trimEnd().split('\n'), [
    `--sig=${SIG}`,
    `--reason=${row.reason}`,
    '--owner=team-a',
    '--ttl=7d',
    "--last-name=-it's",
    `--fixture=${FIX}`,
    '--seed=20260917',
    '--env-class=remote',
  ]);
  const unset = spawnSync('sh', ['-c', row.command.replace(/^patchwarden freeze add/, 'printf "%s\\n"')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  assert.is.not(unset.status, 0, 'without OWNER the pasted line stops');
  assert.match(unset.stderr, /set OWNER/);
});

test('a local flicker yields no candidate', () => {
  const v = promote(only([run(1, [failSig()]), run(2, [])]), ctx('local'));
  assert.is(v.status, 'flicker');
  assert.is(v.action, 'replay_remote');
  assert.is(v.freeze_candidate, null);
});

test('a remote flicker with an ineligible signature or several signatures is not frozen', () => {
  const inel = promote(only([run(1, [failSig(SIG, 't', false)]), run(2, [])]), ctx('remote'));
  assert.is(inel.action, 'investigate');
  assert.match(inel.note, /ineligible/);
  const other = '0123456789abcdef';
  const runs = [run(1, [fixture('fail')]), run(2, [{ ...fixture('fail'), sig: other }]), run(3, [fixture('pass')])];
  const two = promote(only(runs), ctx('remote'));
  assert.is(two.action, 'investigate');
  assert.equal(two.sigs, [SIG, other]);
});

test('a seed that is not a plain integer stays a string in the row', () => {
  const v = promote(only([run(1, [failSig()]), run(2, [])]), ctx('remote', 'abc-1'));
  assert.is(v.freeze_candidate!.seed, 'abc-1');
});

const tc = (over: Partial<TestCase>): TestCase => ({
  name: 't',
  classname: 'c',
  status: 'passed',
  failures: [],
  properties: [],
  systemOut: '',
  systemErr: '',
  suites: [],
  ...over,
});
const signer = (tcase: TestCase): Signed => ({
  sig: SIG,
  exc: 'AssertionError',
  kind: 'equal',
  frames: [],
  files: [],
  message: 'm',
  name: tcase.name,
  eligible: true,
});

test('ids: fixture property first, then invariant property, then [invariant:ID] in the name', () => {
  assert.equal(
    caseIds(
      tc({
        properties: [
          { name: 'fixture', value: FIX },
          { name: 'invariant', value: 'a.b' },
        ],
      }),
      'r.xml',
    ),
    { fixture: FIX, invariant: 'a.b' },
  );
  assert.equal(caseIds(tc({ name: 'test_total[invariant:bill.total_non_negative]' }), 'r.xml'), {
    invariant: 'bill.total_non_negative',
  });
  assert.equal(caseIds(tc({ name: 'test_plain' }), 'r.xml'), {});
  assert.throws(
    () => caseIds(tc({ properties: [{ name: 'fixture', value: 'test_name' }] }), 'r.xml'),
    /not a fixture id/,
  );
});

test('observations: passing cases without an id are left out; failing ones keyed by signature, never by name', () => {
  const obs = observeCases(
    [
      tc({ name: 'test_pass' }),
      tc({ name: 'test_fail', status: 'failed' }),
      tc({ name: 'test_err', status: 'error', properties: [{ name: 'invariant', value: 'x.y' }] }),
      tc({ name: 'test_skip', status: 'skipped', properties: [{ name: 'fixture', value: FIX }] }),
    ],
    signer,
    'r.xml',
  );
  assert.equal(
    obs.map((o) => [o.key, o.outcome]),
    [
      [`sig:${SIG}`, 'fail'],
      ['invariant:x.y', 'fail'],
      [`fixture:${FIX}`, 'skipped'],
    ],
  );
  assert.ok(obs.every((o) => !o.key.includes('test_')));
});

test.run();
