// freeze.attestation: github. The gate verifies each evidence file with
// `gh attestation verify --signer-workflow` and refuses a row without a
// valid attestation, failing closed. gh is not installed on the machines
// these tests were written on and GitHub is not reachable from them, so:
// - "gh missing" runs the real gate with no gh on PATH (the real path);
// - "offline", "no valid attestation" and "verified" run the gate with a
//   stand-in `gh`, a shell script that answers as gh does. Those tests prove
//   what the gate asks gh (the arguments, the file's bytes) and how it reads
//   gh's answer; they do not prove that GitHub's verification works.
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';

const SIG = '7c1a9e2b44d0af13';
const WORKFLOW = 'acme/shop/.github/workflows/replay.yml';
const ATTESTED = `version: 1\nfreeze:\n  attestation: github\n  signer_workflow: ${WORKFLOW}\n`;

/** A replay results file as `replay --out` writes one: the case fails in two of four runs, with no input. */
function results(): string {
  const run = (n: number, fail: boolean) => ({
    run: n,
    exit_code: fail ? 1 : 0,
    signal: null,
    timed_out: false,
    report: true,
    elapsed_ms: 10,
    cases: fail ? [{ key: `sig:${SIG}`, kind: 'signature', name: 'test_deadline', outcome: 'fail', sig: SIG }] : [],
  });
  return `${JSON.stringify(
    {
      format: 'patchwarden-replay',
      version: 1,
      seed: '20260917',
      env_class: 'remote',
      command: 'pytest --junitxml={junit}',
      runner: 'runner-1',
      started: '2026-12-01T10:00:00.000Z',
      ci: { provider: 'github', run: 'https://github.com/acme/shop/actions/runs/4242' },
      env: { TZ: 'UTC', PROP_SEED: '20260917' },
      runs: [run(1, true), run(2, false), run(3, true), run(4, false)],
    },
    null,
    2,
  )}\n`;
}

/** main: the config; topic: a row added from the results file, with its evidence. */
function site(config: string): { repo: TempRepo; digest: string } {
  const repo = tempRepo();
  repo.commit({ '.patchwarden.yml': config, 'src/app.py': 'x = 1\n' }, 'adopt');
  assert.is(repo.pw(['freeze', 'init']).code, 0);
  repo.commit({}, 'ledger');
  repo.git(['checkout', '-q', '-b', 'topic']);
  repo.write('replay.json', results());
  const add = repo.pw([
    'freeze',
    'add',
    '--from-replay=replay.json',
    `--sig=${SIG}`,
    '--reason=the step sleeps past its deadline on a loaded runner',
    '--owner=qa-team',
    '--ttl=7d',
  ]);
  assert.is(add.code, 0, add.stdout + add.stderr);
  repo.git(['rm', '-q', '--cached', '--ignore-unmatch', 'replay.json']);
  repo.git(['add', 'freeze']);
  repo.git(['commit', '-q', '--no-verify', '-m', 'freeze: the deadline flake']);
  return { repo, digest: createHash('sha256').update(results()).digest('hex') };
}

/** A PATH with git and, when given, a `gh` of the test's own; nothing else. */
function pathWith(repo: TempRepo, gh?: string): string {
  const bin = path.join(repo.dir, '..', `bin-${Math.random().toString(36).slice(2)}`);
  mkdirSync(bin);
  const git = sh('sh', ['-c', 'command -v git'], {}).stdout.trim();
  symlinkSync(git, path.join(bin, 'git'));
  if (gh) {
    writeFileSync(path.join(bin, 'gh'), gh);
    chmodSync(path.join(bin, 'gh'), 0o755);
  }
  return bin;
}

function ledgerLayer(repo: TempRepo, PATH: string) {
  const r = repo.json(['gate', '--base', 'main'], { env: { PATH } });
  return r.out.layers.find((l: { layer: string }) => l.layer === 'ledger');
}

test.after.each(cleanup);

test('no gh on PATH: the row is refused, naming what to install (the real path: no stand-in)', () => {
  const { repo } = site(ATTESTED);
  const layer = ledgerLayer(repo, pathWith(repo));
  assert.is(layer.status, 'refused', JSON.stringify(layer));
  const [v] = layer.violations;
  assert.is(v.rule, 'ledger-evidence');
  assert.match(v.message, 'verifies each evidence file with the GitHub CLI, which is not installed here');
  assert.match(v.message, 'install gh 2.49 or later (https://cli.github.com');
  assert.match(v.fix, 'freeze.attestation is set');
  // freeze check and pre-commit do not ask gh: the gate alone verifies, where CI has gh and a token.
  assert.is(repo.json(['freeze', 'check'], { env: { PATH: pathWith(repo) } }).code, 0);
});

test('without freeze.attestation the same row passes with no gh at all', () => {
  const { repo } = site('version: 1\n');
  assert.is(ledgerLayer(repo, pathWith(repo)).status, 'pass');
});

test('stand-in gh, offline and unattested: refused with what gh said; the gate asked for the committed bytes', () => {
  const { repo, digest } = site(ATTESTED);
  const log = path.join(repo.dir, '..', 'gh-args');
  const sha256sum = sh('sh', ['-c', 'command -v sha256sum'], {}).stdout.trim();
  const offline = `#!/bin/sh\nprintf '%s\\n' "$@" > ${log}\n${sha256sum} "$3" >> ${log}\necho 'error: Get "https://api.github.com/repos/acme/shop/attestations/sha256:${digest}": dial tcp: lookup api.github.com: no such host' >&2\nexit 1\n`;
  let layer = ledgerLayer(repo, pathWith(repo, offline));
  assert.is(layer.status, 'refused');
  assert.match(layer.violations[0].message, 'gh could not reach GitHub, so the attestation is unverified');
  const [, , file, ...rest] = readFileSync(log, 'utf8').trim().split('\n');
  assert.equal(rest.slice(0, 4), ['--repo', 'acme/shop', '--signer-workflow', WORKFLOW]);
  assert.is(path.basename(file), `${digest}.json`);
  assert.match(rest[4], new RegExp(`^${digest} `), 'gh was given the committed bytes');
  const unattested = `#!/bin/sh\necho 'Error: no attestations found for subject' >&2\nexit 1\n`;
  layer = ledgerLayer(repo, pathWith(repo, unattested));
  assert.is(layer.status, 'refused');
  assert.match(layer.violations[0].message, `no valid attestation signed by ${WORKFLOW}`);
});

test('stand-in gh that verifies: the row is admitted (proves only that a zero exit admits it)', () => {
  const { repo } = site(ATTESTED);
  assert.is(ledgerLayer(repo, pathWith(repo, '#!/bin/sh\nexit 0\n')).status, 'pass');
});

test('freeze.attestation without a signer workflow, or a malformed one, is a config error naming the key', () => {
  const repo = tempRepo();
  for (const [config, why] of [
    ['version: 1\nfreeze:\n  attestation: github\n', /freeze\.attestation: github needs freeze\.signer_workflow/],
    [`${ATTESTED.replace(WORKFLOW, 'replay.yml')}`, /freeze\.signer_workflow: "replay\.yml" is not OWNER\/REPO/],
  ] as const) {
    repo.write('.patchwarden.yml', config);
    const r = repo.pw(['doctor']);
    assert.match(r.stdout + r.stderr, why);
  }
});

test.run();
