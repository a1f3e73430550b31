// A submodule pointer under src is production code: moving it changes what
// ships. An agent that moves one, with a registered invariant that holds on
// both sides, owes a fixed case like any production change; the move is never
// "no behaviour change", never skipped as nothing to revert. A real
// submodule, the real gate, the clone's pre-push hook and the server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { AGENT, configFor, evidenceSite, gate } from '../properties/evidence-site.js';
import { refused } from './range-site.js';

test.after.each(cleanup);

test('an agent moves a submodule pointer under src: judged, owes a fixed case, refused by pre-push and the gate', () => {
  const lib = tempRepo();
  const first = lib.commit({ 'rate.txt': '1\n' }, 'rate one');
  const second = lib.commit({ 'rate.txt': '2\n' }, 'rate two');
  const s = evidenceSite('js', { config: configFor('js', 'owners:\n  agents: ["*[bot]@*"]\n') });
  const { work } = s;
  // The submodule lands on main (a new src path is pushed past the revert check, server-judged only).
  const added = work.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib.dir, 'src/vendor/lib'], {
    allowFail: true,
  });
  assert.is(added.code, 0, added.stderr);
  work.git(['-C', 'src/vendor/lib', 'checkout', '-q', first]);
  work.git(['add', 'src/vendor/lib']);
  work.git(['commit', '-q', '--no-verify', '-m', 'vendor the rates']);
  assert.is(s.push(['main']).code, 0);
  // The agent moves the pointer, and nothing else.
  work.git(['switch', '-q', '-c', 'bump']);
  work.git(['-C', 'src/vendor/lib', 'checkout', '-q', second]);
  work.git(['add', 'src/vendor/lib']);
  work.git(['commit', '-q', '--no-verify', '-m', 'bump the rates'], {
    env: { GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT },
  });
  assert.match(work.git(['show', '--format=', '--raw', 'HEAD']).stdout, /^:160000 160000 .* M\tsrc\/vendor\/lib$/m);

  const g = gate(work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  const revert = g.layers.revert.details;
  assert.is(revert.status, 'does_not_describe', JSON.stringify(revert));
  assert.is(revert.evidence.owed, true, JSON.stringify(revert.evidence));
  assert.equal(
    revert.reverted.map((p: { path: string }) => p.path),
    ['src/vendor/lib'],
  );
  assert.equal(g.layers.revert.violations[0].paths, ['src/vendor/lib'], 'the refusal names the pointer');
  assert.ok(g.layers.properties.details.head_run, 'the properties ran on head');
  assert.match(g.stderr, 'src/vendor/lib changes it (a submodule (gitlink) that moves)');
  assert.match(g.stderr, 'running the properties with the production diff reverted');

  const direct = work.json(['revert-check', '--base', 'origin/main']);
  assert.is(direct.code, 1, JSON.stringify(direct.out));
  assert.is(direct.out.status, 'does_not_describe');
  assert.equal(direct.out.unchanged, [], 'not passed as no behaviour change');
  assert.ok(direct.out.head_run && direct.out.revert_run, 'both property runs happened');

  refused(s.localPush(['bump']), 'refused [revert] revert check does_not_describe', 'src/vendor/lib');
  assert.is(s.ref('refs/heads/bump'), null);
});

test.run();
