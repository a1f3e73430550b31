// The reverted run's result, cached under a key of everything it ran, and
// trusted only to confirm holds. Which side ran is read from outside the
// trees: each run's property appends its side to a log the test names.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeEntry } from '../../src/properties/cache.js';
import { cleanup, DIST, sh } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import {
  baseLines,
  CLAMPED_AGAIN_JS,
  CLAMPED_JS,
  cacheDir,
  check,
  dropTemps,
  entries,
  flakyTwice,
  ID,
  nodeProject,
  pyProject,
  SUM_JS,
  tempDir,
} from './cache-site.js';
import { BUGGY_PY, config, FIXED_PY, NODE_TEST, project, registry, startPw, waitForFile } from './projects.js';

/** The same behaviour as FIXED_PY in another syntax tree: every case holds. */
const REFACTORED_PY = 'def total(xs):\n    return sum(list(xs))\n';

test.after.each(() => {
  cleanup();
  dropTemps();
});

const pyTest = testUnless(pytestMissing);

pyTest('a cached base confirms holds: the second check runs head alone and says base: cached (key …)', () => {
  const { repo, base, head } = pyProject(FIXED_PY, REFACTORED_PY);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'does_not_describe', first.stderr);
  assert.equal(first.sides, ['base', 'head']);
  assert.match(first.stderr, /base: not cached \(key [0-9a-f]{12}\)/);
  assert.match(first.stderr, /base: cached for the next check/);
  assert.is(first.out.revert_run.cached, null);
  const [entry] = entries(repo);
  const second = check(repo, base, head);
  assert.is(second.out.status, 'does_not_describe', second.stderr);
  assert.equal(second.sides, ['head'], 'the base side did not run');
  assert.is(second.out.revert_run.cached, entry.replace(/\.json$/, ''));
  assert.equal(second.out.states, first.out.states);
  const text = repo.pw(['revert-check', '--base', base, '--head', head], { env: { SIDES_LOG: '/dev/null' } });
  assert.match(text.stdout, /base: cached \(key [0-9a-f]{12}\)/);
});

pyTest('a flaky base failure in the cache does not make the case fixed: the base runs fresh', () => {
  const second = flakyTwice(pyProject(FIXED_PY, REFACTORED_PY));
  assert.equal(
    second.lines.filter((l) => l.startsWith('base')),
    ['base test_total_non_negative'],
    'the case the cache fails ran fresh on the base, and no other',
  );
  assert.equal(second.out.failing_on_revert, []);
  assert.match(
    second.stderr,
    /base: cached \(key [0-9a-f]{12}\) fails "test_total_non_negative": a cached outcome only confirms holds, so those cases run fresh on the base/,
  );
});

pyTest('the same honest fix checked again: only the case the cache fails runs on the base, and it is fixed', () => {
  const { repo, base, head } = pyProject(BUGGY_PY, FIXED_PY);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  assert.equal(first.lines.filter((l) => l.startsWith('base')).length, 2);
  const second = check(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.equal(second.out.failing_on_revert, [ID]);
  assert.equal(
    second.lines.filter((l) => l.startsWith('base')),
    ['base test_total_non_negative'],
  );
  assert.type(second.out.revert_run.cached, 'string');
  assert.equal(second.out.states, first.out.states);
});

/** An entry rewritten to say the base passes: trusted, it would turn the honest fix into does_not_describe. */
function passingEntry(text: string): string {
  return text
    .replaceAll('"outcome":"failed"', '"outcome":"passed"')
    .replaceAll('"status":"failed"', '"status":"passed"');
}

pyTest('an entry changed on disk after patchwarden wrote it is not trusted', () => {
  const { repo, base, head } = pyProject(BUGGY_PY, FIXED_PY);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  const file = path.join(cacheDir(repo), entries(repo)[0]);
  writeFileSync(file, passingEntry(readFileSync(file, 'utf8')));
  const second = check(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.equal(second.sides, ['base', 'head']);
  assert.match(second.stderr, /the cache entry [0-9a-f]{12} is not trusted/);
});

pyTest('an entry written while a head run ran is not trusted: the cache is thrown away', async () => {
  const { repo, base, head } = pyProject(BUGGY_PY, FIXED_PY);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  const key = entries(repo)[0].replace(/\.json$/, '');
  const passing = JSON.parse(passingEntry(readFileSync(path.join(cacheDir(repo), `${key}.json`), 'utf8'))).run;
  // A check under another key (PYTHONSTARTUP is part of it), during whose head run a
  // process of the same user writes a well-formed, indexed entry under the first key.
  const marks = tempDir();
  const ready = path.join(marks, 'ready');
  const done = path.join(marks, 'done');
  const run = startPw(repo, ['revert-check', '--base', base, '--head', head, '--format', 'json'], {
    SIDES_LOG: path.join(marks, 'sides.log'),
    PYTHONSTARTUP: '/dev/null',
    FORGE_READY: ready,
    FORGE_DONE: done,
  });
  assert.ok(await waitForFile(ready, run.done), 'the head run started');
  writeEntry(cacheDir(repo), key, { ...passing, problem: null });
  writeFileSync(done, '');
  const r = await run.done;
  assert.is(JSON.parse(r.stdout).status, 'describes_patch', r.stderr);
  const third = check(repo, base, head);
  assert.is(third.out.status, 'describes_patch', third.stderr);
  assert.equal(third.sides, ['base', 'head'], 'the forged entry was not read');
  assert.match(r.stderr, /the revert cache changed while the change ran: it is thrown away/);
});

pyTest('revert.cache: false keeps nothing and runs the base every time', () => {
  const { repo, base, head } = pyProject(FIXED_PY, REFACTORED_PY, 'revert:\n  cache: false\n');
  for (let i = 0; i < 2; i++) {
    const r = check(repo, base, head);
    assert.is(r.out.status, 'does_not_describe', r.stderr);
    assert.equal(r.sides, ['base', 'head']);
    assert.not.match(r.stderr, /base: (not )?cached/);
  }
  assert.not.ok(existsSync(cacheDir(repo)));
});

/** The honest fix checked twice: the second check runs on the base only the case the cache fails. */
function nodeRerun(extra = '') {
  const { repo, base, head } = nodeProject(SUM_JS, CLAMPED_JS, extra);
  const first = check(repo, base, head);
  assert.is(first.out.status, 'describes_patch', first.stderr);
  assert.equal(baseLines(first).sort(), ['base never negative', 'base of two', 'base total of one']);
  const second = check(repo, base, head);
  assert.is(second.out.status, 'describes_patch', second.stderr);
  assert.equal(baseLines(second), ['base never negative'], 'only the case the cache fails ran on the base');
  assert.equal(second.lines.filter((l) => l.startsWith('head')).length, 3);
  assert.equal(second.out.failing_on_revert, [ID]);
  assert.type(second.out.revert_run.cached, 'string');
  assert.equal(second.out.states, first.out.states);
  assert.match(second.stderr, /base: ran fresh "never negative \[invariant:[^"]+\]" failed \[/);
  return second;
}

test('node --test checked again: only the case the cache fails runs on the base, and the fix is still fixed', () => {
  nodeRerun();
});

test('node --test: a flaky base failure in the cache does not make the case fixed, and only it runs again', () => {
  const second = flakyTwice(nodeProject(CLAMPED_JS, CLAMPED_AGAIN_JS));
  assert.equal(baseLines(second), ['base never negative'], 'the case the cache fails ran fresh, and no other');
  assert.equal(second.out.failing_on_revert, []);
  assert.type(second.out.revert_run.cached, 'string');
});

test('a runtime that reports another version misses the cache (node --test through a wrapper on PATH)', () => {
  const bin = tempDir();
  const version = path.join(bin, 'version');
  writeFileSync(version, 'v20.0.0-wrapped\n');
  const wrapper = path.join(bin, 'node');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nif [ "$1" = --version ]; then cat ${JSON.stringify(version)}; exit 0; fi\nexec ${JSON.stringify(process.execPath)} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const prop = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/bill.mjs';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  for (const xs of [[], [1, 2], [0, 5]]) assert.ok(total(xs) >= 0);\n});\n`;
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(NODE_TEST),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': prop,
      'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n',
    },
    { 'src/bill.mjs': 'export const total = (xs) => [...xs].reduce((a, b) => a + b, 0);\n' },
  );
  const env = { PATH: `${bin}:${repo.env.PATH}` };
  const run = () => repo.json(['revert-check', '--base', base, '--head', head], { env });
  const first = run();
  assert.is(first.out.status, 'does_not_describe', first.stderr);
  assert.is(first.out.revert_run.cached, null);
  const again = run();
  assert.type(again.out.revert_run.cached, 'string', again.stderr);
  writeFileSync(version, 'v20.1.0-wrapped\n');
  const upgraded = run();
  assert.is(upgraded.out.revert_run.cached, null, 'a new runtime version is a new key');
  assert.match(upgraded.stderr, /base: not cached/);
  assert.is(upgraded.out.status, 'does_not_describe');
});

// The judge's part of the key is its install's digest, taken apart from the
// loading of its modules: a copy changed by one byte is another judge.
test('another install of the judge misses the cache; the same one hits it', () => {
  const judge = path.join(tempDir(), 'judge');
  cpSync(DIST, judge, { recursive: true });
  const { repo, base, head } = nodeProject(CLAMPED_JS, CLAMPED_AGAIN_JS);
  const run = () => {
    const r = sh(
      process.execPath,
      [path.join(judge, 'main.js'), 'revert-check', '--base', base, '--head', head, '--format', 'json'],
      {
        cwd: repo.dir,
        env: { ...repo.env, SIDES_LOG: '/dev/null' },
      },
    );
    assert.ok(r.code === 0 || r.code === 1, `${r.stdout}\n${r.stderr}`);
    return { out: JSON.parse(r.stdout) as { revert_run: { cached: string | null } }, stderr: r.stderr };
  };
  assert.is(run().out.revert_run.cached, null);
  const again = run();
  assert.type(again.out.revert_run.cached, 'string', again.stderr);
  const lazy = path.join(judge, 'lazy');
  const file = path.join(
    lazy,
    readdirSync(lazy)
      .filter((f) => f.endsWith('.mjs'))
      .sort()[0],
  );
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n// another build\n`);
  const other = run();
  assert.is(other.out.revert_run.cached, null, 'another install is a new key');
  assert.match(other.stderr, /base: not cached/);
});

test.run();
