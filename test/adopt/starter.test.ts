// The starter config never blocks on day one, doctor passes right after init,
// and every doctor problem ends with the command that fixes it.
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { ownerKey } from '../helpers/owner.js';

test.after.each(cleanup);

test('a pytest project with a package.json that only installs patchwarden is a python project', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'tests/test_app.py': 'def test_x(): pass\n',
      'pytest.ini': '[pytest]\n',
      'package.json': JSON.stringify({ devDependencies: { patchwarden: '^0.1.0' } }),
    },
    'start',
  );
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  const config = readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8');
  assert.match(config, /\n {2}command: python3 -m pytest -q --junitxml=\{junit\}\n/);
  assert.not.match(config, /node --test/);
});

test('spec/ without a registry leaves properties.command a comment; the first push touching src is judged, not stopped', () => {
  const origin = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.commit({ 'src/app.py': 'x = 1\n', 'spec/test_p.py': 'def test_p(): pass\n', 'pyproject.toml': '' }, 'start');
  repo.git(['remote', 'add', 'origin', origin.dir]);
  repo.git(['push', '-q', 'origin', 'main']);
  assert.is(repo.pw(['init', '--yes', '--owner-key', ownerKey()]).code, 0);
  assert.match(readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'), /\n {2}# command: YOUR PROPERTY COMMAND/);
  assert.is(repo.pw(['doctor']).code, 0, repo.pw(['doctor']).stdout);
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '-m', 'patchwarden config']);
  // The guard's files go first, on their own: the range rule keeps them apart from production pushes.
  assert.is(repo.git(['push', 'origin', 'main'], { allowFail: true }).code, 0);
  repo.write('src/app.py', 'x = 2\n');
  repo.git(['commit', '-q', '-am', 'production change']);
  const push = repo.git(['push', 'origin', 'main'], { allowFail: true });
  assert.is(push.code, 0, push.stderr);
});

test('a registry makes the starter run the properties; fixtures get their lock; doctor passes right after init', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'setup.cfg': '',
      'spec/invariants.yaml': 'version: 1\ninvariants:\n  - id: app.x\n    description: x is one\n',
      'fixtures/input/a.json': '{"a":1}\n',
    },
    'start',
  );
  const init = repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  assert.is(init.code, 0);
  assert.match(init.stdout, /fixtures\/inputs\.sha256: written for 1 fixture \(/);
  assert.match(
    readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'),
    /\n {2}command: python3 -m pytest -q spec\/properties --junitxml=\{junit\}\n/,
  );
  const doctor = repo.pw(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout);
});

test('every doctor problem line ends with the command that fixes it', () => {
  const repo = tempRepo();
  repo.commit({ 'src/app.py': 'x = 1\n' }, 'start');
  repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  chmodSync(path.join(repo.dir, '.git/hooks/pre-push'), 0o644);
  repo.write('freeze/signatures.yaml', 'version: 1\nrecords:\n  - sig: 7c1a9e2b44d0af13\n    reason: r\n');
  repo.write('fixtures/input/a.json', '{"a":1}\n');
  repo.write('spec/invariants.yaml', 'version: 1\ninvariants: 3\n');
  const r = repo.pw(['doctor'], { env: { PATH: '/usr/bin:/bin' } });
  assert.is(r.code, 1);
  const problems = r.stdout.split('\n').filter((l) => l.startsWith('PROBLEM'));
  assert.equal(
    problems.map((l) => l.split(':')[0]),
    ['PROBLEM pre-push', 'PROBLEM binary', 'PROBLEM ledger', 'PROBLEM fixtures', 'PROBLEM registry'],
  );
  for (const line of problems) assert.match(line, /`[^`]+`$/, line);
  repo.write('.patchwarden.yml', 'version: 1\nzones: 3\n');
  const bad = repo.pw(['doctor']);
  assert.match(bad.stdout, /PROBLEM config: .*`git checkout -- \.patchwarden\.yml`$/m);
});

test.run();
