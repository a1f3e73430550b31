// The owners rule trusts what the server knows: an authenticated pusher
// matching owners.agents cannot change an oracle, whatever its commits claim;
// where nothing but typed identities exists, the server and doctor say so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { refused, site } from './range-site.js';

test.after.each(cleanup);

const CONFIG = 'version: 1\nowners:\n  agents: ["*[bot]", "*[bot]@*", "codex-*"]\n';
const PROPERTY = { 'spec/test_bill.py': 'def test_total():\n    pass\n' };

for (const [variable, name] of [
  ['GL_USERNAME', 'codex-agent'],
  ['GITEA_PUSHER_NAME', 'helper[bot]'],
  ['GITEA_PUSHER_EMAIL', 'helper[bot]@git.example.com'],
  ['GITHUB_USER_LOGIN', 'codex-ci'],
] as const) {
  test(`an agent account authenticated as ${variable} cannot push an oracle commit that names a person`, () => {
    const s = site(CONFIG);
    s.work.commit(PROPERTY, 'a person, supposedly');
    const before = s.refs();
    const r = s.push(['main'], { [variable]: name });
    refused(r, '[owners-agent]', `pushed by the agent account ${name} (${variable})`, 'spec/test_bill.py  (spec)');
    assert.not.match(r.stderr, 'rests on the identities committers typed');
    assert.is(s.refs(), before);
  });
}

test('a person authenticated by the server pushes the same commit; agents may still push production code', () => {
  const s = site(CONFIG);
  s.work.commit(PROPERTY, 'property');
  let r = s.push(['main'], { GL_USERNAME: 'alice' });
  assert.is(r.code, 0, r.stderr);
  s.work.commit({ 'src/bill.py': 'def total(items):\n    return sum(items) + 0\n' }, 'code');
  r = s.push(['main'], { GL_USERNAME: 'codex-agent' });
  assert.is(r.code, 0, r.stderr);
});

test('without signers or an authenticated pusher, the first line says the rule rests on typed identities; doctor warns', () => {
  const s = site(CONFIG);
  s.work.commit({ 'README.md': 'more\n' }, 'docs');
  const r = s.push(['main']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('remote: '));
  assert.match(lines[0], 'remote: patchwarden: warning: owners.agents rests on the identities committers typed');
  const d = s.work.pw(['doctor']);
  assert.match(d.stdout, 'WARNING owners: owners.agents rests on the identities committers typed');
});

test.run();
