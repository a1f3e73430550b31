// Caps on a push's cost, through real pushes into a bare repository with the
// installed hook: a push over `server.caps` is refused before it is judged,
// naming the figure against the cap and the largest files; the split it
// prints lands when run exactly as printed; an owner's signed override lets
// the push be judged; GitHub Enterprise Server's environment brings default
// caps; with no cap at all nothing is refused for its size.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh } from '../helpers/repo.js';
import { commitAs, guardedServer, Keys } from './server.js';

const keys = new Keys();
const owner = keys.make('owner');
const OWNER = 'owner@example.com';
const SIGNERS = { '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n` };
const OWNED = 'version: 1\nowners:\n  signers: .patchwarden/allowed_signers\n';
const said = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;
/** Plain code, nothing any tamper rule refuses. */
const code = (bytes: number, k = 0) =>
  `export const data${k} = [\n${'  1, 2, 3, 4, 5, 6, 7, 8,\n'.repeat(bytes / 26)}];\n`;

test.after.each(cleanup);
test.after(() => keys.rm());

test('a push over server.caps.scan_bytes is refused before it is judged, naming its largest files', () => {
  const s = guardedServer('version: 1\nserver:\n  caps:\n    scan_bytes: 1MB\n');
  const before = s.ref('main');
  s.work.commit({ 'src/big.ts': code(900_000, 1), 'src/mid.ts': code(300_000, 2), 'src/small.ts': code(2_000, 3) });
  const r = s.push('main');
  assert.is(r.code, 1, said(r));
  assert.match(r.stderr, '[push-cost] this push is refused before it is judged');
  assert.match(r.stderr, /1\.2 MB of production code to scan for tamper, over the cap of 1\.0 MB/);
  assert.match(r.stderr, /server\.caps\.scan_bytes in [0-9a-f]{40}:\.patchwarden\.yml/);
  assert.match(r.stderr, /the largest: src\/big\.ts \(9\d\d\.\d KB\), src\/mid\.ts \(\d+\.\d KB\), src\/small\.ts/);
  // One commit alone is over the cap: no split helps, the override is the way.
  assert.match(r.stderr, 'alone is over a cap of refs/heads/main');
  assert.match(r.stderr, '--trailer "Patchwarden-Override: REASON"');
  assert.is(s.ref('main'), before);
});

test('the split printed for a push over server.caps.commits lands when run as printed', () => {
  const s = guardedServer('version: 1\nserver:\n  caps:\n    commits: 10\n');
  for (let i = 0; i < 25; i++) s.work.commit({ [`src/m${i % 4}.ts`]: `export const v = ${i};\n` }, `change ${i}`);
  const tip = s.work.head();
  const r = s.push('main');
  assert.is(r.code, 1, said(r));
  assert.match(r.stderr, '25 new commits, over the cap of 10 new commits');
  assert.match(r.stderr, 'push refs/heads/main in 3 parts, one push each, in this order:');
  const commands = [...r.stderr.matchAll(/remote: +(git push origin [0-9a-f]{40}:refs\/heads\/main)\s*$/gm)].map(
    (m) => m[1],
  );
  assert.is(commands.length, 3, r.stderr);
  for (const c of commands) {
    const p = sh('sh', ['-c', c], { cwd: s.work.dir, env: s.work.env });
    assert.is(p.code, 0, said(p));
    assert.match(p.stderr, 'patchwarden: pre-receive ok');
  }
  assert.is(s.ref('main'), tip);
});

test("an owner's signed override commit lets a push over a cap be judged, and it is still judged", () => {
  const s = guardedServer(`${OWNED}server:\n  caps:\n    scan_bytes: 1MB\n`, SIGNERS);
  s.work.commit({ 'src/big.ts': code(1_200_000) }, 'vendor data');
  const unsigned = commitAs(s.work, {}, 'land it\n\nPatchwarden-Override: vendor data, reviewed\n');
  const r = s.push('main');
  assert.is(r.code, 1, 'an override anyone can type lifts nothing');
  assert.match(r.stderr, '[push-cost] this push is refused before it is judged');
  s.work.git(['reset', '-q', '--hard', `${unsigned}~1`]);
  commitAs(s.work, {}, 'land it\n\nPatchwarden-Override: vendor data, reviewed\n', { sign: owner.file, email: OWNER });
  const ok = s.push('main');
  assert.is(ok.code, 0, said(ok));
  assert.match(ok.stderr, "but an owner's override lets it be judged");
  assert.is(s.ref('main'), s.work.head());
  // Past the cap the rules still hold: a tamper hit in the large push is refused.
  s.work.commit({ 'src/big.ts': `${code(1_200_000)}process.exit(0);\n` }, 'more data');
  commitAs(s.work, {}, 'land it\n\nPatchwarden-Override: vendor data, reviewed\n', { sign: owner.file, email: OWNER });
  const hit = s.push('main');
  assert.is(hit.code, 1, said(hit));
  assert.match(hit.stderr, '[tamper] [exit.process]');
});

test("GitHub Enterprise Server's environment brings default caps; the config's keys win over them", () => {
  const s = guardedServer('version: 1\nserver:\n  caps:\n    commits: 3\n');
  for (let i = 0; i < 4; i++) s.work.commit({ 'src/app.ts': `export const a = ${i};\n` }, `change ${i}`);
  const ghes = { GITHUB_USER_LOGIN: 'octocat', GITHUB_REPO_NAME: 'shop/app', GITHUB_VIA: 'git push' };
  const r = s.work.git(['push', 'origin', 'main'], { allowFail: true, env: ghes });
  assert.is(r.code, 1, said(r));
  assert.match(
    r.stderr,
    /4 new commits, over the cap of 3 new commits \(server\.caps\.commits in [0-9a-f]{40}:\.patchwarden\.yml\)/,
  );
  // A 6 MB file is over GHES's scan cap: refused at once, without reading it.
  s.work.git(['reset', '-q', '--hard', 'origin/main']);
  s.work.commit({ 'src/huge.ts': code(6_000_000) }, 'huge');
  const big = s.work.git(['push', 'origin', 'main'], { allowFail: true, env: ghes });
  assert.is(big.code, 1, said(big));
  assert.match(
    big.stderr,
    'over the cap of 5.0 MB of production code to scan for tamper (the default on GitHub Enterprise Server',
  );
  assert.match(big.stderr, 'src/huge.ts (6.0 MB)');
  // Elsewhere no cap is set: the same push is scanned and lands.
  const open = s.push('main');
  assert.is(open.code, 0, said(open));
});

test('server.caps is validated with the file, line and key, and a good one parses', () => {
  const s = guardedServer();
  s.work.commit({ '.patchwarden.yml': 'version: 1\nserver:\n  caps:\n    scan_bytes: 50 parsecs\n' }, 'caps');
  const r = s.push('main');
  assert.is(r.code, 1, said(r));
  assert.match(r.stderr, '.patchwarden.yml:4: server.caps.scan_bytes: must be a size such as 50MB, 512KiB or 2GB');
  s.work.commit({ '.patchwarden.yml': 'version: 1\nserver:\n  caps:\n    commit: 5\n' }, 'caps');
  const typo = s.push('main');
  assert.is(typo.code, 1, said(typo));
  assert.match(
    typo.stderr,
    '.patchwarden.yml:4: unknown key `server.caps.commit` (known: scan_bytes, commits, signatures)',
  );
  s.work.commit(
    { '.patchwarden.yml': 'version: 1\nserver:\n  caps:\n    scan_bytes: 512 KiB\n    commits: 2\n' },
    'caps',
  );
  const good = s.push('main');
  assert.is(good.code, 0, said(good));
  for (let i = 0; i < 3; i++) s.work.commit({ 'src/app.ts': `export const a = ${i};\n` }, `change ${i}`);
  const capped = s.push('main');
  assert.is(capped.code, 1, said(capped));
  assert.match(capped.stderr, '3 new commits, over the cap of 2 new commits');
});

test.run();
