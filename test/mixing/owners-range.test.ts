// `check --range` (and so pre-push, which shares it) applies the owners rule
// as the server does: an owner-signed oracle commit may share a range with
// production commits; an unsigned one may not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { commitAs, Keys } from '../prereceive/server.js';

const keys = new Keys();
const owner = keys.make('owner');
const CONFIG = 'version: 1\nowners:\n  signers: .patchwarden/allowed_signers\n';

function ownedRepo() {
  const repo = tempRepo();
  const base = repo.commit(
    {
      '.patchwarden.yml': CONFIG,
      '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
      'src/app.ts': 'export const a = 1;\n',
    },
    'start',
  );
  return { repo, base };
}

test.after.each(cleanup);
test.after(() => keys.rm());

test('a signed spec commit and a src commit in one range pass', () => {
  const { repo, base } = ownedRepo();
  commitAs(repo, { 'spec/p.txt': 'property\n' }, 'spec, signed', { sign: owner.file, email: 'owner@example.com' });
  commitAs(repo, { 'src/app.ts': 'export const a = 2;\n' }, 'src');
  const r = repo.json(['check', '--range', `${base}..HEAD`]);
  assert.is(r.code, 0, JSON.stringify(r.out));
});

test('the same range with the spec commit unsigned is refused by owners and by the range rule', () => {
  const { repo, base } = ownedRepo();
  commitAs(repo, { 'spec/p.txt': 'property\n' }, 'spec, unsigned');
  commitAs(repo, { 'src/app.ts': 'export const a = 2;\n' }, 'src');
  const r = repo.json(['check', '--range', `${base}..HEAD`]);
  assert.is(r.code, 1);
  assert.equal(
    r.out.violations.map((v: { rule: string }) => v.rule),
    ['owners-signature', 'mix-range'],
  );
});

test.run();
