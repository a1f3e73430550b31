// The revert check under node's own test runner (`[invariant:ID]` in test
// names): verdicts, two checks at once, revert.link, and Ctrl-C / SIGTERM
// while the property command runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, sh, type TempRepo } from '../helpers/repo.js';
import {
  BUGGY_JS,
  config,
  fingerprint,
  FIXED_JS,
  jsProperty,
  NODE_TEST,
  project,
  registry,
  startPw,
  waitForFile,
} from './projects.js';

const ID = 'bill.total_non_negative';
const baseFiles = (extra: Record<string, string> = {}) => ({
  '.patchwarden.yml': config(NODE_TEST),
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.mjs': jsProperty(ID),
  'src/bill.mjs': BUGGY_JS,
  ...extra,
});

function check(repo: TempRepo, base: string, head: string, env: NodeJS.ProcessEnv = {}) {
  const before = fingerprint(repo);
  const r = repo.json(['revert-check', '--base', base, '--head', head], { env });
  assert.equal(fingerprint(repo), before, 'the working tree, index, stash, refs and worktrees are as before');
  return r;
}

// The first tree made: the base's, which runs first.
const tempTreeOf = (stderr: string) => /temporary worktree at base: (.*?) \[/.exec(stderr)?.[1];

test.after.each(cleanup);

test('node --test: a fix whose property fails on revert is describes_patch', () => {
  const { repo, base, head } = project(baseFiles(), { 'src/bill.mjs': FIXED_JS });
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.out.status, 'describes_patch');
  assert.equal(r.out.failing_on_revert, [ID]);
  const tree = tempTreeOf(r.stderr);
  assert.ok(tree && !existsSync(tree), 'the temporary worktree is gone');
});

test('node --test: an unrelated property is does_not_describe, exit 1', () => {
  const { repo, base, head } = project(baseFiles({ 'src/bill.mjs': FIXED_JS }), {
    'src/bill.mjs': FIXED_JS + 'export const name = "bill";\n',
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'does_not_describe');
});

test('node --test: a test whose name has no [invariant:ID] maps to nothing, refused', () => {
  const { repo, base, head } = project(
    baseFiles({ 'spec/properties/bill.test.mjs': jsProperty(ID).replace(` [invariant:${ID}]`, '') }),
    { 'src/bill.mjs': FIXED_JS },
  );
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(r.out.reason, /no property test case maps to an invariant id/);
});

test('node --test: a property file that does not load is named first, as what stopped every case, not the naming', () => {
  // The property imports a workspace package whose build output the command never makes.
  const unbuilt = jsProperty(ID).replace("from '../../src/bill.mjs'", "from '@acme/core'");
  assert.match(unbuilt, /@acme\/core/);
  const { repo, base, head } = project(baseFiles({ 'spec/properties/bill.test.mjs': unbuilt }), {
    'src/bill.mjs': FIXED_JS,
  });
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(
    r.out.reason,
    /^on head: no property test case maps to an invariant id: failed in "[^"]*spec\/properties\/bill\.test\.mjs": test failed, and a property file that does not load .* the property command's output says why/,
  );
});

test('node --test: a module the reverted tree lacks is revert_broken', () => {
  const { repo, base, head } = project(
    baseFiles({ 'spec/properties/bill.test.mjs': jsProperty(ID, 'totals.mjs'), 'src/bill.mjs': FIXED_JS }),
    { 'src/totals.mjs': FIXED_JS },
  );
  const r = check(repo, base, head);
  assert.is(r.code, 1);
  assert.is(r.out.status, 'revert_broken');
});

test('two checks at once in one repository do not collide', async () => {
  const { repo, base, head } = project(baseFiles(), { 'src/bill.mjs': FIXED_JS });
  const before = fingerprint(repo);
  const runs = [0, 1].map(() => startPw(repo, ['revert-check', '--base', base, '--head', head, '--format', 'json']));
  const results = await Promise.all(runs.map((r) => r.done));
  for (const r of results) {
    assert.is(r.code, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).status, 'describes_patch');
  }
  const trees = results.map((r) => tempTreeOf(r.stderr));
  assert.is.not(trees[0], trees[1], 'each check has its own temporary worktree');
  assert.equal(fingerprint(repo), before);
});

const LOCK = (version: string) =>
  JSON.stringify({
    name: 'bill',
    lockfileVersion: 3,
    packages: { '': { name: 'bill' }, 'node_modules/dep': { version, integrity: `sha512-${version}` } },
  });
const INSTALLED = (version: string) =>
  JSON.stringify({
    name: 'bill',
    lockfileVersion: 3,
    packages: { 'node_modules/dep': { version, integrity: `sha512-${version}` } },
  });

test('revert.link links node_modules from the main tree into the temporary one', () => {
  const cmd = `test -f node_modules/dep/marker.txt || { echo no node_modules; exit 3; }; ${NODE_TEST}`;
  const { repo, base, head } = project(
    baseFiles({
      '.patchwarden.yml': config(cmd, 'revert:\n  link: [node_modules]\n'),
      '.gitignore': 'node_modules/\nbuild/\n',
      'package-lock.json': LOCK('1.0.0'),
    }),
    { 'src/bill.mjs': FIXED_JS },
  );
  repo.write('node_modules/dep/marker.txt', 'dependency\n');
  repo.write('node_modules/.package-lock.json', INSTALLED('1.0.0'));
  const r = check(repo, base, head);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /linked from the main tree: node_modules/);
  assert.ok(existsSync(path.join(repo.dir, 'node_modules/dep/marker.txt')), 'the linked folder itself is untouched');
});

test('revert.link: a workspace package (npm workspaces) is imported from the temporary tree', () => {
  const files = {
    'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }),
    'packages/core/package.json': JSON.stringify({
      name: '@m/core',
      version: '1.0.0',
      type: 'module',
      main: 'index.js',
    }),
  };
  // The lock npm writes for these, made beside the repository first: the base commits it.
  const scratch = mkdtempSync(path.join(tmpdir(), 'pw-npm-'));
  try {
    for (const [f, c] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(scratch, f)), { recursive: true });
      writeFileSync(path.join(scratch, f), c);
    }
    sh('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: scratch });
    const lock = readFileSync(path.join(scratch, 'package-lock.json'), 'utf8');
    const property = jsProperty(ID).replace("'../../src/bill.mjs'", "'@m/core'");
    const { repo, base, head } = project(
      {
        ...baseFiles({
          '.patchwarden.yml': config(
            NODE_TEST,
            'zones:\n  src: [packages/*/index.js]\nrevert:\n  link: [node_modules]\n',
          ),
          '.gitignore': 'node_modules/\nbuild/\n',
          'spec/properties/bill.test.mjs': property,
          'package-lock.json': lock,
          'packages/core/index.js': BUGGY_JS,
        }),
        ...files,
      },
      { 'packages/core/index.js': FIXED_JS },
    );
    sh('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: repo.dir });
    const r = check(repo, base, head);
    assert.is(r.code, 0, r.stderr);
    assert.is(r.out.status, 'describes_patch');
    assert.equal(r.out.failing_on_revert, [ID]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("revert.link: node_modules installed for another lock than the base's is refused, nothing runs", () => {
  const cmd = `touch "$PW_RAN"; ${NODE_TEST}`;
  const { repo, base, head } = project(
    baseFiles({
      '.patchwarden.yml': config(cmd, 'revert:\n  link: [node_modules, .venv]\n'),
      '.gitignore': 'node_modules/\n.venv/\nbuild/\n',
      'package-lock.json': LOCK('1.0.0'),
    }),
    { 'src/bill.mjs': FIXED_JS },
  );
  repo.write('node_modules/.package-lock.json', INSTALLED('1.0.1'));
  repo.write('.venv/pyvenv.cfg', 'home = /usr/bin\n');
  repo.write(
    '.venv/lib/python3.11/site-packages/evil-1.0.dist-info/METADATA',
    'Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n',
  );
  const ran = path.join(repo.dir, 'ran');
  const r = check(repo, base, head, { PW_RAN: ran });
  assert.is(r.code, 1, r.stderr);
  assert.is(r.out.status, 'fails_on_head');
  assert.match(
    r.out.reason,
    /dependencies differ from the base: node_modules holds packages the base's package-lock\.json does not: dep@1\.0\.1 \(the base locks 1\.0\.0\)/,
  );
  assert.match(
    r.out.reason,
    /\.venv: the base has no uv\.lock, poetry\.lock or requirements\*\.txt to check it against/,
  );
  assert.not.ok(existsSync(ran), 'the property command never ran');
});

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  test(`${sig} while the property command runs: the command stops, the temporary worktree goes`, async () => {
    const marks = mkdtempSync(path.join(tmpdir(), 'pw-mark-'));
    const cmd = `touch "$PW_MARK/started"; sleep 60; ${NODE_TEST}`;
    const { repo, base, head } = project(baseFiles({ '.patchwarden.yml': config(cmd) }), { 'src/bill.mjs': FIXED_JS });
    try {
      const before = fingerprint(repo);
      const run = startPw(repo, ['revert-check', '--base', base, '--head', head], { PW_MARK: marks });
      assert.ok(await waitForFile(path.join(marks, 'started'), run.done), 'the property command started');
      process.kill(run.pid, sig);
      const r = await run.done;
      assert.is(r.code, sig === 'SIGINT' ? 130 : 143, r.stderr);
      assert.match(r.stderr, new RegExp(`interrupted by ${sig}`));
      const tree = tempTreeOf(r.stderr);
      assert.ok(tree && !existsSync(tree), 'the temporary worktree is gone');
      assert.equal(fingerprint(repo), before);
    } finally {
      rmSync(marks, { recursive: true, force: true });
    }
  });
}

test.run();
