// Nothing runs that cannot change the verdict: once the mixing rule refused a
// push (pre-push) or a change (the gate), the property command is not
// started, and the output says why. The property command leaves a marker
// file outside the tree whenever it runs; the same change without the mixed
// commit proves it would.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, cleanup, installPrePush, tempRepo, type TempRepo } from '../helpers/repo.js';
import { gate, sample } from '../gate/sample.js';
import { BUGGY_JS, config, FIXED_JS, jsProperty, NODE_TEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const START = {
  '.gitignore': 'build/\n',
  '.patchwarden.yml': config(`touch "$RAN_MARKER"; ${NODE_TEST}`),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': BUGGY_JS,
};

let markers: string[] = [];
function marker(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-not-run-'));
  markers.push(dir);
  return path.join(dir, 'ran');
}

test.after.each(() => {
  cleanup();
  for (const d of markers) rmSync(d, { recursive: true, force: true });
  markers = [];
});

function pushed(mixed: boolean): { repo: TempRepo; said: string; code: number; ran: boolean } {
  const remote = tempRepo({ bare: true });
  // This build's CLI, whatever the shared test shim on PATH points at.
  const repo = tempRepo({ env: { PATCHWARDEN_BIN: CLI } });
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(START, 'start');
  assert.is(repo.git(['push', '-q', 'origin', 'main'], { allowFail: true }).code, 0, 'the first push passes');
  const fix = { 'src/bill.mjs': FIXED_JS };
  repo.commit(mixed ? { ...fix, 'spec/invariants.yaml': `${registry(ID)}# loosened\n` } : fix, 'fix totals');
  const ran = marker();
  const r = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true, env: { RAN_MARKER: ran } });
  return { repo, said: r.stdout + r.stderr, code: r.code, ran: existsSync(ran) };
}

test('pre-push: a production fix alone runs the properties (the marker is written)', () => {
  const r = pushed(false);
  assert.is(r.code, 0, r.said);
  assert.ok(r.ran, 'the property command ran');
  assert.match(r.said, /describes_patch/);
});

test('pre-push: after a mixing refusal the properties are not run, and the output says why', () => {
  const r = pushed(true);
  assert.is.not(r.code, 0, r.said);
  assert.match(r.said, /mix/);
  assert.not.ok(r.ran, `the property command did not run:\n${r.said}`);
  assert.match(r.said, /refs\/heads\/main: properties: not run: mixing refused/);
  assert.not.match(r.said, /revert-check: running the properties/);
});

test('gate: after a mixing refusal properties and revert are not run, each row saying why', () => {
  const repo = sample(START['.patchwarden.yml'], START);
  repo.commit({ 'src/bill.mjs': FIXED_JS, 'spec/invariants.yaml': `${registry(ID)}# loosened\n` }, 'fix totals');
  const ran = marker();
  repo.env.RAN_MARKER = ran;
  const r = gate(repo);
  assert.is(r.code, 1);
  assert.is(r.layers.mixing.status, 'refused');
  for (const layer of ['properties', 'revert']) {
    assert.is(r.layers[layer].status, 'skipped', layer);
    assert.is(r.layers[layer].summary, 'not run: mixing refused', layer);
  }
  assert.not.ok(existsSync(ran), 'the property command did not run');
  // gate.require counts a layer left unrun after a refusal as such, not as unproven.
  const required = gate(repo, ['--require', 'properties']);
  assert.is(required.layers.properties.summary, 'not run: mixing refused');
  assert.not.ok(existsSync(ran));
  // Without the mixed commit the gate runs them.
  repo.git(['reset', '-q', '--hard', 'HEAD~1']);
  repo.commit({ 'src/bill.mjs': FIXED_JS }, 'fix totals');
  const clean = gate(repo);
  assert.is(clean.layers.revert.status, 'pass', JSON.stringify(clean.layers.revert));
  assert.ok(existsSync(ran), 'the property command ran');
});

test.run();
