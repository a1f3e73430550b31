// Small things a new user trips on: -v, replay without a report path, an
// edited config that revert-check does not judge by, the
// server hook script's --help, freeze apply's hint when followed, and gate
// --help naming every flag the CI templates pass.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CLI, cleanEnv, cleanup, PROJECT, sh, tempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

test.after.each(cleanup);

test('gate --help lists every flag the GitHub action and the GitLab template pass', () => {
  const help = sh(process.execPath, [CLI, 'gate', '--help']).stdout;
  for (const file of ['action.yml', 'ci/gitlab/patchwarden.gitlab-ci.yml']) {
    const calls = [
      ...readFileSync(path.join(PROJECT, file), 'utf8').matchAll(/(?:\/patchwarden"|"\$pw") gate ([^\n]*)/g),
    ];
    assert.ok(calls.length, `${file} runs patchwarden gate`);
    for (const [, args] of calls)
      for (const [flag] of args.matchAll(/--[a-z][\w-]*/g))
        assert.match(help, new RegExp(`^ +${flag}\\b`, 'm'), `${file} passes ${flag}, which gate --help lists`);
  }
});

test('revert-check says when the working tree config is not the one that judges, and names a typo in it', () => {
  const repo = tempRepo();
  const config = 'version: 1\nzones:\n  src: [src/**]\n';
  const base = repo.commit({ '.patchwarden.yml': config, 'src/a.py': 'x = 1\n' });
  const head = repo.commit({ 'docs/a.md': 'notes\n' });
  const check = () => repo.pw(['revert-check', '--base', base, '--head', head]);
  assert.not.match(check().stderr, /the config that judges/, 'the same config: nothing to say');
  repo.write('.patchwarden.yml', `${config}propertes:\n  command: pytest\n`);
  const typo = check();
  assert.is(typo.code, 0, typo.stderr);
  assert.match(
    typo.stderr,
    new RegExp(
      `revert-check: the config that judges is ${base.slice(0, 12)}:\\.patchwarden\\.yml; the working tree differs from it, and judges nothing until it is committed and lands on the base side; as it stands it does not parse: .*propertes`,
    ),
  );
  repo.write('.patchwarden.yml', `${config}# a comment\n`);
  assert.not.match(check().stderr, /does not parse/);
  assert.match(check().stderr, /the working tree differs from it/);
});

test('-v and --version print the version', () => {
  const repo = tempRepo();
  for (const flag of ['-v', '--version']) {
    const r = repo.pw([flag]);
    assert.is(r.code, 0, flag);
    assert.match(r.stdout, /^patchwarden \d+\.\d+\.\d+\n$/);
  }
});

test('replay refuses a command without {junit} before the first run', () => {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  const r = repo.pw(['replay', '--runs', '2', '--seed', '1', '--', 'touch ran; pytest']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /the command names no report path: put \{junit\} where it writes JUnit XML/);
  assert.not.ok(existsSync(path.join(repo.dir, 'ran')), 'the command ran');
});

test('install-server-hook.sh --help exits 0 with its usage on stdout, and warns when patchwarden is not on PATH', () => {
  const script = path.join(PROJECT, 'scripts/install-server-hook.sh');
  const r = sh('sh', [script, '--help'], { env: cleanEnv({ PATH: '/usr/bin:/bin' }) });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /install-server-hook\.sh \[--gitlab \| --gitea\] \[--bin PATH\] \[--branch NAME\]/);
  assert.match(r.stderr, /patchwarden is not on PATH/);
  const quiet = sh('sh', [script, '--help']);
  assert.not.match(quiet.stderr, /not on PATH/);
  assert.is(sh('sh', [script]).code, 2, 'no repository: still a usage error');
});

testUnless(pytestMissing)(
  'freeze apply: the hint names the real signature, prunes an expired row first, and works when followed',
  () => {
    const repo = tempRepo();
    repo.commit({
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'src/calc.py': 'def total(items):\n    return sum(items) + 1\n',
      'tests/test_total.py': 'from calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
    });
    const run = sh('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests', '--junitxml=report.xml'], {
      cwd: repo.dir,
      env: cleanEnv({ PYTHONDONTWRITEBYTECODE: '1' }),
    });
    assert.is(run.code, 1, run.stdout);
    const sig = repo.json(['signatures', 'report.xml']).out.failures[0].sig;
    const env = { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' };
    repo.write(
      'freeze/signatures.yaml',
      `version: 1\nrecords:\n  - sig: ${sig}\n    reason: old flake\n    owner: qa\n    expires: 2026-11-30T00:00:00Z\n`,
    );
    const refused = repo.pw(['freeze', 'apply', 'report.xml'], { env });
    assert.is(refused.code, 1);
    const hint = refused.stdout
      .split('\n')
      .filter((l) => /^ {4}patchwarden /.test(l))
      .map((l) => l.replace(/#.*/, '').trim());
    assert.equal(hint, [
      'patchwarden freeze prune --expired',
      `patchwarden freeze add --sig ${sig} --reason R --owner O --ttl 7d`,
    ]);
    for (const line of hint) {
      const r = repo.pw(line.split(' ').slice(1), { env });
      assert.is(r.code, 0, `${line}\n${r.stdout}${r.stderr}`);
    }
    assert.is(repo.pw(['freeze', 'apply', 'report.xml'], { env }).code, 0);
  },
);

test.run();
