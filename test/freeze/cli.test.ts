// freeze check, list, add and prune as a user runs them, and the pre-commit
// hook through a real `git commit`.
import { copyFileSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, PROJECT, sh, tempRepo, type TempRepo } from '../helpers/repo.js';

const NOW = { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' };
const LEDGER = 'freeze/signatures.yaml';
const SIG = '7c1a9e2b44d0af13';
const ROW = `  - sig: ${SIG}\n    reason: clock skew\n    owner: qa\n    expires: 2026-12-09T00:00:00Z\n`;

function withLedger(text: string, file = LEDGER): TempRepo {
  const repo = tempRepo();
  repo.write(file, text);
  return repo;
}

test('freeze check: a sound ledger passes, a missing one too', () => {
  let r = withLedger(`version: 1\nrecords:\n${ROW}`).json(['freeze', 'check'], { env: NOW });
  assert.is(r.code, 0);
  assert.equal(r.out, { ok: true, ledger: LEDGER, version: 1, rows: 1, expired: 0, unevidenced: 1, violations: [] });
  r = tempRepo().json(['freeze', 'check'], { env: NOW });
  assert.is(r.code, 0);
  assert.is(r.out.rows, 0);
});

test('freeze check: each broken rule exits 1 naming the row by its line', () => {
  const cases: [string, RegExp][] = [
    [`  - reason: r\n    owner: o\n    expires: 2026-12-09T00:00:00Z\n`, /signatures\.yaml:3: the row has no sig/],
    [ROW.replace(SIG, SIG.toUpperCase()), /:3: sig "7C1A9E2B44D0AF13" must be lowercase/],
    [ROW.replace(SIG, 'abc123'), /:3: sig "abc123" must be 16 lowercase hex digits/],
    [
      ROW.replace(`sig: ${SIG}`, 'nodeid: tests/test_a.py::test_x'),
      /:3: the row is keyed by a test name or node id alone/,
    ],
    [ROW.replace(SIG, 'tests/test_a.py::test_x'), /:3: sig "tests\/test_a\.py::test_x" is a test name or node id/],
    [ROW.replace('    reason: clock skew\n', ''), /:3: the row has no reason/],
    [ROW.replace('    owner: qa\n', ''), /:3: the row has no owner/],
    [ROW.replace('    expires: 2026-12-09T00:00:00Z\n', ''), /:3: the row has no expires/],
    [ROW.replace('2026-12-09', '2027-02-09'), /:3: expires is further than freeze\.max_ttl \(30d\) from now/],
    [ROW + '    issued: 2026-10-01T00:00:00Z\n', /:3: expires is further than freeze\.max_ttl \(30d\) from issued/],
    [ROW + ROW, /:7: sig 7c1a9e2b44d0af13 repeats the row at line 3/],
  ];
  for (const [rows, message] of cases) {
    const repo = withLedger(`version: 1\nrecords:\n${rows}`);
    const r = repo.json(['freeze', 'check'], { env: NOW });
    assert.is(r.code, 1, rows);
    assert.is(r.out.ok, false);
    assert.is(r.out.violations.length, 1, JSON.stringify(r.out.violations));
    assert.is(r.out.violations[0].rule, 'ledger');
    assert.match(r.out.violations[0].message, message);
    const text = repo.pw(['freeze', 'check'], { env: NOW });
    assert.is(text.code, 1);
    assert.match(text.stdout, /patchwarden: refused \[ledger\] freeze\/signatures\.yaml:\d+: /);
  }
});

test('freeze check: files that cannot be judged exit 2 naming file and line', () => {
  const bomb = ['a: &a [x,x,x,x,x,x,x,x,x]'];
  for (let i = 1; i < 7; i++)
    bomb.push(
      `l${i}: &l${i} [${Array(9)
        .fill(i === 1 ? '*a' : `*l${i - 1}`)
        .join(',')}]`,
    );
  const cases: [string, string, RegExp][] = [
    [
      LEDGER,
      'version: 4\nrecords: []\n',
      /^patchwarden: freeze\/signatures\.yaml:1: unknown version "4"; this patchwarden reads versions 1, 2 and 3$/m,
    ],
    [LEDGER, 'records: []\n', /freeze\/signatures\.yaml:1: missing `version: 2` \(or 1\)/],
    [LEDGER, 'version: 1\nrecords:\n  - sig: "open\n', /freeze\/signatures\.yaml:\d+: not valid YAML/],
    [
      LEDGER,
      `version: 1\n${bomb.join('\n')}\nrecords: []\n`,
      /freeze\/signatures\.yaml: cannot be read: Excessive alias count/,
    ],
    ['freeze/signatures.json', '{"version": 1, "records": [}', /freeze\/signatures\.json:1: not valid JSON/],
  ];
  for (const [file, text, message] of cases) {
    const repo = withLedger(text, file);
    const args = file === LEDGER ? ['freeze', 'check'] : ['freeze', 'check', '--config', '.patchwarden.yml'];
    if (file !== LEDGER) repo.write('.patchwarden.yml', `version: 1\nfreeze:\n  ledger: ${file}\n`);
    const r = repo.pw(args, { env: NOW });
    assert.is(r.code, 2, text);
    assert.match(r.stderr, message);
    assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
    const j = repo.json(args, { env: NOW });
    assert.is(j.code, 2);
    assert.is(j.out.ok, false);
  }
});

test('freeze check: a symbolic link as the ledger cannot be judged', () => {
  const repo = withLedger(`version: 1\nrecords:\n${ROW}`, 'elsewhere.yaml');
  symlinkSync('../elsewhere.yaml', path.join(repo.dir, 'freeze-link'));
  repo.write('freeze/.keep', '');
  symlinkSync('../elsewhere.yaml', path.join(repo.dir, LEDGER));
  const r = repo.pw(['freeze', 'check']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /freeze\/signatures\.yaml: the freeze ledger must be a regular file/);
});

test('a ledger with broken rows stops list, add and prune with exit 2', () => {
  const repo = withLedger(`version: 1\nrecords:\n${ROW.replace('    owner: qa\n', '')}`);
  for (const args of [
    ['list'],
    ['prune', '--expired'],
    ['add', '--sig', '0000000000000000', '--reason', 'r', '--owner', 'o', '--ttl', '1d'],
  ]) {
    const r = repo.pw(['freeze', ...args], { env: NOW });
    assert.is(r.code, 2, args.join(' '));
    assert.match(
      r.stderr,
      /the freeze ledger has 1 broken row \(run patchwarden freeze check\); first: freeze\/signatures\.yaml:3: the row has no owner/,
    );
  }
});

test('freeze add needs a ledger freeze init made; it writes issued and expires, and keeps comments', () => {
  const repo = tempRepo();
  const add = ['freeze', 'add', '--sig', SIG, '--reason', 'clock skew', '--owner', 'qa', '--ttl', '3d'];
  // No ledger: exit 2 with the command that makes one, run here as printed.
  const none = repo.pw(add, { env: NOW });
  assert.is(none.code, 2);
  const made =
    /create it first \(version 2, as init writes\), then run freeze add again: (patchwarden freeze init)$/m.exec(
      none.stderr,
    );
  assert.ok(made, none.stderr);
  assert.not.ok(existsSync(path.join(repo.dir, LEDGER)), 'nothing written');
  const init = sh('sh', ['-c', `${made[1]} --version 1`], { cwd: repo.dir, env: repo.env });
  assert.is(init.code, 0, init.stderr);
  let r = repo.json(
    [
      'freeze',
      'add',
      '--sig',
      SIG,
      '--reason',
      'clock skew',
      '--owner',
      'qa',
      '--ttl',
      '3d',
      '--last-name',
      'test_roundtrip',
      '--ticket',
      'QA-1',
      '--seed',
      '20260917',
      '--env-class',
      'remote',
    ],
    { env: NOW },
  );
  assert.is(r.code, 0, JSON.stringify(r.out));
  assert.equal(r.out.record, {
    sig: SIG,
    reason: 'clock skew',
    owner: 'qa',
    last_name: 'test_roundtrip',
    ticket: 'QA-1',
    seed: '20260917',
    env_class: 'remote',
    line: 5,
    expires: '2026-12-05T00:00:00Z',
    issued: '2026-12-02T00:00:00Z',
    expired: false,
  });
  let text = readFileSync(path.join(repo.dir, LEDGER), 'utf8');
  assert.match(text, /^version: 1$/m);
  // A human's comment survives the next add.
  repo.write(LEDGER, text.replace('records:\n', 'records:\n  # reviewed by qa on Monday\n'));
  r = repo.json(
    ['freeze', 'add', '--sig', '1234567890123456', '--reason', 'slow disk', '--owner', 'infra', '--ttl', '12h'],
    { env: NOW },
  );
  assert.is(r.code, 0);
  text = readFileSync(path.join(repo.dir, LEDGER), 'utf8');
  assert.match(text, /# reviewed by qa on Monday\n {2}- sig: 7c1a9e2b44d0af13/);
  assert.match(text, /# Freeze ledger/);
  assert.match(
    text,
    /- sig: 1234567890123456\n {4}reason: slow disk\n {4}owner: infra\n {4}issued: 2026-12-02T00:00:00Z\n {4}expires: 2026-12-02T12:00:00Z\n/,
  );
  assert.is(repo.json(['freeze', 'check'], { env: NOW }).out.rows, 2);
});

test('freeze add validates before writing: nothing changes on a refusal', () => {
  const repo = withLedger(`version: 1\nrecords:\n${ROW}`);
  const before = readFileSync(path.join(repo.dir, LEDGER), 'utf8');
  const refusals: [string[], number, RegExp][] = [
    [['--sig', 'test_roundtrip', '--reason', 'r', '--owner', 'o', '--ttl', '1d'], 1, /is a test name or node id/],
    [['--sig', SIG, '--reason', 'r', '--owner', 'o', '--ttl', '1d'], 1, /repeats the row at line 3/],
    [
      ['--sig', '0a1b2c3d4e5f6071', '--reason', 'r', '--owner', 'o', '--ttl', '1d'],
      1,
      /sig 0a1b2c3d4e5f6071 is an ineligible failure's \(its first digit is 0\)/,
    ],
    [
      ['--sig', '1000000000000000', '--reason', 'r', '--owner', 'o', '--ttl', '31d'],
      1,
      /further than freeze\.max_ttl \(30d\)/,
    ],
    [['--sig', '1000000000000000', '--reason', ' ', '--owner', 'o', '--ttl', '1d'], 1, /the row has no reason/],
    [
      ['--sig', '1000000000000000', '--reason', 'r', '--owner', 'o', '--ttl', '1d', '--fixture', 'x.json'],
      1,
      /must be a fixture id/,
    ],
    [
      ['--sig', '1000000000000000', '--reason', 'r', '--owner', 'o', '--ttl', 'soon'],
      2,
      /--ttl "soon" is not a duration/,
    ],
    [['--sig', '1000000000000000', '--reason', 'r', '--ttl', '1d'], 2, /freeze add needs --owner/],
  ];
  for (const [args, code, message] of refusals) {
    const r = repo.pw(['freeze', 'add', ...args], { env: NOW });
    assert.is(r.code, code, args.join(' '));
    assert.match(r.stdout + r.stderr, message);
    assert.is(readFileSync(path.join(repo.dir, LEDGER), 'utf8'), before);
  }
});

test('freeze list marks expired rows; prune --expired drops them and keeps comments', () => {
  const repo = withLedger(
    `# the ledger\nversion: 1\nrecords:\n${ROW}\n  # expired one\n${ROW.replace(SIG, '1234567890123456').replace('2026-12-09', '2026-11-30')}# end\n`,
  );
  let r = repo.json(['freeze', 'list'], { env: NOW });
  assert.is(r.code, 0);
  assert.equal(
    r.out.records.map((x: { sig: string; expired: boolean; line: number }) => [x.sig, x.expired, x.line]),
    [
      [SIG, false, 4],
      ['1234567890123456', true, 10],
    ],
  );
  const text = repo.pw(['freeze', 'list'], { env: NOW });
  assert.match(text.stdout, /1234567890123456\s+2026-11-30T00:00:00Z EXPIRED/);
  assert.not.match(text.stdout, /7c1a9e2b44d0af13\s+\S+ EXPIRED/);
  assert.match(repo.pw(['freeze', 'check'], { env: NOW }).stdout, /1 expired: patchwarden freeze prune --expired/);
  assert.is(repo.pw(['freeze', 'prune'], { env: NOW }).code, 2);
  r = repo.json(['freeze', 'prune', '--expired'], { env: NOW });
  assert.is(r.code, 0);
  assert.equal(
    r.out.removed.map((x: { sig: string }) => x.sig),
    ['1234567890123456'],
  );
  const after = readFileSync(path.join(repo.dir, LEDGER), 'utf8');
  assert.match(after, /^# the ledger\n/);
  assert.match(after, /# end/);
  assert.not.match(after, /expired one|1234567890123456/);
  assert.is(repo.json(['freeze', 'list'], { env: NOW }).out.records.length, 1);
  assert.match(repo.pw(['freeze', 'prune', '--expired'], { env: NOW }).stdout, /no expired rows/);
});

test('a .json ledger works the same way', () => {
  const repo = tempRepo();
  repo.write('.patchwarden.yml', 'version: 1\nfreeze:\n  ledger: freeze/signatures.json\n');
  assert.is(repo.pw(['freeze', 'init', '--version', '1']).code, 0);
  assert.is(
    repo.pw(['freeze', 'add', '--sig', SIG, '--reason', 'r', '--owner', 'o', '--ttl', '1d'], { env: NOW }).code,
    0,
  );
  const data = JSON.parse(readFileSync(path.join(repo.dir, 'freeze/signatures.json'), 'utf8'));
  assert.is(data.version, 1);
  assert.is(data.records[0].sig, SIG);
  assert.is(repo.json(['freeze', 'check'], { env: NOW }).out.rows, 1);
  assert.is(
    repo.json(['freeze', 'prune', '--expired'], { env: { PATCHWARDEN_NOW: '2026-12-04T00:00:00Z' } }).out.removed
      .length,
    1,
  );
});

test('freeze add refuses an agent identity and writes nothing', () => {
  const repo = tempRepo();
  repo.write('.patchwarden.yml', 'version: 1\nowners:\n  agents: ["*[bot]@*"]\n');
  assert.is(repo.pw(['freeze', 'init', '--version', '1']).code, 0);
  const before = readFileSync(path.join(repo.dir, LEDGER), 'utf8');
  const args = ['freeze', 'add', '--sig', SIG, '--reason', 'r', '--owner', 'qa', '--ttl', '3d'];
  const bot = repo.json(args, { env: { GIT_AUTHOR_EMAIL: 'coder[bot]@agents.example.com' } });
  assert.is(bot.code, 1);
  assert.match(
    bot.out.violations[0].message,
    /the git identity coder\[bot\]@agents\.example\.com matches owners\.agents/,
  );
  assert.is(readFileSync(path.join(repo.dir, LEDGER), 'utf8'), before, 'nothing written');
  assert.is(repo.json(args).code, 0, 'a human identity may');
});

test('a pinned clock is never silent', () => {
  const repo = tempRepo();
  const pinned = repo.pw(['freeze', 'check'], { env: NOW });
  assert.is(pinned.code, 0);
  assert.match(pinned.stderr, /the clock is pinned to 2026-12-02T00:00:00Z by PATCHWARDEN_NOW/);
  assert.not.match(repo.pw(['freeze', 'check']).stderr, /pinned/);
});

test('a bad PATCHWARDEN_NOW or subcommand cannot judge', () => {
  const repo = tempRepo();
  let r = repo.pw(['freeze', 'check'], { env: { PATCHWARDEN_NOW: 'tomorrow' } });
  assert.is(r.code, 2);
  assert.match(r.stderr, /PATCHWARDEN_NOW="tomorrow" is not an ISO 8601 UTC time/);
  r = repo.pw(['freeze', 'thaw']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /unknown freeze subcommand "thaw"/);
  assert.is(repo.pw(['freeze']).code, 2);
});

function hooked(): TempRepo {
  const repo = tempRepo();
  repo.commit({ 'README.md': 'hello\n' }, 'start');
  copyFileSync(path.join(PROJECT, 'hooks/pre-commit'), path.join(repo.dir, '.git/hooks/pre-commit'));
  return repo;
}

test('pre-commit refuses a staged ledger with a broken row and leaves HEAD and the index alone', () => {
  const repo = hooked();
  const head = repo.head();
  repo.write(LEDGER, `version: 1\nrecords:\n${ROW.replace(`sig: ${SIG}`, 'name: test_roundtrip')}`);
  repo.git(['add', LEDGER]);
  const index = repo.git(['ls-files', '-s']).stdout;
  const r = repo.git(['commit', '-q', '-m', 'freeze by name'], { allowFail: true, env: NOW });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.match(
    r.stdout + r.stderr,
    /refused \[ledger\] freeze\/signatures\.yaml:3: the row is keyed by a test name or node id alone/,
  );
  assert.is(repo.head(), head);
  assert.is(repo.git(['ls-files', '-s']).stdout, index);
});

test('pre-commit judges the staged blob, not the working tree', () => {
  const repo = hooked();
  repo.write(LEDGER, `version: 1\nrecords:\n${ROW}`);
  repo.git(['add', LEDGER]);
  // Broken on disk after staging: the staged bytes are what gets committed.
  repo.write(LEDGER, 'version: 1\nrecords:\n  - name: test_x\n');
  let r = repo.git(['commit', '-q', '-m', 'freeze a flake'], { allowFail: true, env: NOW });
  assert.is(r.code, 0, r.stdout + r.stderr);
  // And the other way round: fixed on disk, broken in the index.
  repo.write(LEDGER, `version: 1\nrecords:\n${ROW.replace('2026-12-09', '2027-12-09')}`);
  repo.git(['add', LEDGER]);
  repo.write(LEDGER, `version: 1\nrecords:\n${ROW}`);
  r = repo.git(['commit', '-q', '-m', 'longer freeze'], { allowFail: true, env: NOW });
  assert.is(r.code, 1);
  assert.match(r.stdout + r.stderr, /further than freeze\.max_ttl/);
  // Malformed YAML in the index blocks with exit 2.
  repo.write(LEDGER, 'version: 1\nrecords: [\n');
  repo.git(['add', LEDGER]);
  r = repo.git(['commit', '-q', '-m', 'broken'], { allowFail: true, env: NOW });
  assert.is(r.code, 1, 'git reports any hook failure as 1');
  assert.match(r.stderr, /freeze\/signatures\.yaml:\d+: not valid YAML/);
});

test('pre-commit leaves a commit alone when the ledger is not staged', () => {
  const repo = hooked();
  repo.commit({ [LEDGER]: 'version: 1\nrecords:\n  - name: broken\n' }, 'broken ledger committed past the hook');
  repo.write('README.md', 'changed\n');
  repo.git(['add', 'README.md']);
  const r = repo.git(['commit', '-q', '-m', 'docs'], { allowFail: true, env: NOW });
  assert.is(r.code, 0, r.stdout + r.stderr);
});

test.after(cleanup);
test.run();
