// The in-process SSH signature check (src/owners/commit-signatures.ts)
// against git's own (`git verify-commit`, `%G?`, which start ssh-keygen), on
// commits signed by real keys of every type ssh-keygen makes here, and on
// security-key signatures built by hand from PROTOCOL.u2f (no hardware here
// to make them), which real ssh-keygen checks too.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openRepo } from '../../src/git/repo.js';
import { verifySignatures } from '../../src/owners/commit-signatures.js';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { payload, skKey, skSign, store } from '../helpers/sk-key.js';
import { Keys } from '../prereceive/server.js';

const keys = new Keys();
test.after.each(cleanup);
test.after(() => keys.rm());

const TYPES: [string, string[]][] = [
  ['ed25519', ['-t', 'ed25519']],
  ['ecdsa-256', ['-t', 'ecdsa', '-b', '256']],
  ['ecdsa-384', ['-t', 'ecdsa', '-b', '384']],
  ['ecdsa-521', ['-t', 'ecdsa', '-b', '521']],
  ['rsa', ['-t', 'rsa', '-b', '2048']],
];

function keyOf(name: string, args: string[]): { file: string; pub: string } {
  const file = path.join(keys.dir, name);
  const r = sh('ssh-keygen', ['-q', ...args, '-N', '', '-C', name, '-f', file]);
  if (r.code !== 0) throw new Error(r.stderr);
  return { file, pub: readFileSync(`${file}.pub`, 'utf8').trim() };
}

function sshSign(file: string, text: string, namespace = 'git', hashalg?: string): string {
  const r = sh(
    'ssh-keygen',
    ['-Y', 'sign', '-n', namespace, '-f', file, ...(hashalg ? ['-O', `hashalg=${hashalg}`] : [])],
    {
      input: text,
    },
  );
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** git's verdict on each commit: the %G? letter, and whether `git verify-commit` passes. */
function gitSays(repo: TempRepo, signers: string, commits: string[]): Map<string, { letter: string; ok: boolean }> {
  const file = path.join(repo.dir, '.git', 'signers');
  writeFileSync(file, signers);
  const cfg = ['-c', `gpg.ssh.allowedSignersFile=${file}`];
  return new Map(
    commits.map((c) => [
      c,
      {
        letter: repo.git([...cfg, 'log', '-1', '--format=%G?', c]).stdout.trim(),
        ok: repo.git([...cfg, 'verify-commit', c], { allowFail: true }).code === 0,
      },
    ]),
  );
}

async function weSay(repo: TempRepo, signers: string, commits: string[]) {
  return verifySignatures(await openRepo(repo.dir), commits, Buffer.from(signers));
}

function started(): TempRepo {
  const repo = tempRepo();
  repo.commit({ README: 'x\n' });
  return repo;
}

for (const [name, args] of TYPES) {
  test(`${name}: good, tampered, wrong namespace, unlisted key, expired and other-namespace lines agree with git`, async () => {
    const repo = started();
    const key = keyOf(name, args);
    const other = keyOf(`${name}-other`, args);
    const text = payload(repo);
    const good = store(repo, text, sshSign(key.file, text));
    const sha256 = store(repo, text, sshSign(key.file, text, 'git', 'sha256'));
    const tampered = store(repo, text, sshSign(key.file, text), true);
    const fileNs = store(repo, text, sshSign(key.file, text, 'file'));
    const stranger = store(repo, text, sshSign(other.file, text));
    const commits = [good, sha256, tampered, fileNs, stranger];
    const cases: [string, string, Record<string, string>][] = [
      [
        'listed',
        `owner@example.com ${key.pub}\n`,
        { [good]: 'G', [sha256]: 'G', [tampered]: 'B', [fileNs]: 'B', [stranger]: 'U' },
      ],
      ['namespaces="git"', `owner@example.com namespaces="git" ${key.pub}\n`, { [good]: 'G' }],
      ['namespaces="file"', `owner@example.com namespaces="file" ${key.pub}\n`, { [good]: 'U' }],
      ['expired', `owner@example.com valid-before="20230101Z" ${key.pub}\n`, { [good]: 'U' }],
      ['not yet valid', `owner@example.com valid-after="20240101" ${key.pub}\n`, { [good]: 'U' }],
      [
        'within validity',
        `owner@example.com valid-after="20230101Z",valid-before="20240101Z" ${key.pub}\n`,
        { [good]: 'G' },
      ],
    ];
    for (const [what, signers, expected] of cases) {
      const ours = await weSay(repo, signers, commits);
      const git = gitSays(repo, signers, commits);
      for (const c of Object.keys(expected)) {
        assert.is(git.get(c)!.ok, expected[c] === 'G', `${what} ${c}: git verify-commit`);
        assert.is(
          ours.get(c)!.signature === 'G',
          git.get(c)!.ok,
          `${what} ${c}: ours ${ours.get(c)!.signature}, git ${git.get(c)!.letter}`,
        );
        assert.is(ours.get(c)!.signature, expected[c], `${what} ${c}: ${ours.get(c)!.why ?? ''}`);
      }
    }
  });
}

test('an unsigned commit is N, an OpenPGP-looking signature is E, garbage is B; none is good', async () => {
  const repo = started();
  const text = payload(repo);
  const unsigned = repo.git(['hash-object', '-t', 'commit', '-w', '--stdin'], { input: text }).stdout.trim();
  const pgp = store(repo, text, '-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n');
  const junk = store(repo, text, '-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n');
  const key = keyOf('plain', ['-t', 'ed25519']);
  const ours = await weSay(repo, `owner@example.com ${key.pub}\n`, [unsigned, pgp, junk]);
  assert.equal(
    [unsigned, pgp, junk].map((c) => ours.get(c)!.signature),
    ['N', 'E', 'B'],
  );
});

for (const kind of ['ed25519', 'ecdsa'] as const) {
  test(`security key (${kind}, built by hand): touched, untouched, tampered and wrong namespace agree with git`, async () => {
    const repo = started();
    const k = skKey(kind);
    const signers = `owner@example.com ${k.type} ${k.blob.toString('base64')}\n`;
    const text = payload(repo);
    const touched = store(repo, text, skSign(k, text, 0x01));
    const untouched = store(repo, text, skSign(k, text, 0x00));
    const tampered = store(repo, text, skSign(k, text, 0x01), true);
    const fileNs = store(repo, text, skSign(k, text, 0x01, 'file'));
    const commits = [touched, untouched, tampered, fileNs];
    const ours = await weSay(repo, signers, commits);
    const git = gitSays(repo, signers, commits);
    assert.equal(
      commits.map((c) => git.get(c)!.ok),
      [true, true, false, false],
      'git (ssh-keygen) verifies the hand-built signatures',
    );
    assert.equal(
      commits.map((c) => ours.get(c)!.signature),
      ['G', 'G', 'B', 'B'],
    );
    assert.is(ours.get(touched)!.presence, true);
    assert.is(ours.get(untouched)!.presence, false);
  });
}

test.run();
