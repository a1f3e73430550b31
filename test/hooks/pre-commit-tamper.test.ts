// The tamper scan in the pre-commit hook, through a real `git commit` with the
// hooks `init` installs: staged production files within the bound are
// scanned and refused with the text `tamper --staged` prints; above the
// bound the commit goes through with a note and the real push is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';
import { MAX_BYTES, MAX_FILES } from '../../src/hooks/staged-tamper.js';

const CONFIG = 'version: 1\nzones:\n  src: ["src/**"]\n  spec: ["spec/**"]\n';
const EXIT = 'import os\n\n\ndef done():\n    os._exit(0)\n';
const ALLOW = '.patchwarden/tamper-allow.yaml';

/** A repository with a bare remote holding its first commit, and the hooks `init` installs. */
function guarded(config = CONFIG): TempRepo {
  const repo = tempRepo();
  repo.commit({ '.patchwarden.yml': config, 'src/app.py': 'x = 1\n', 'tests/test_app.py': 't = 1\n' }, 'start');
  const remote = tempRepo({ bare: true });
  repo.git(['remote', 'add', 'origin', remote.dir]);
  repo.git(['push', '-q', 'origin', 'main']);
  const init = repo.pw(['init', '--yes']);
  assert.is(init.code, 0, init.stderr);
  repo.commit({}, 'what init wrote');
  return repo;
}

function commit(repo: TempRepo, message = 'change') {
  const head = repo.head();
  const r = repo.git(['commit', '-q', '-m', message], { allowFail: true });
  // git shows a hook's stdout on its stderr.
  return { code: r.code, out: r.stdout + r.stderr, moved: repo.head() !== head };
}

test.after.each(cleanup);

test('a staged production line that ends the process is refused at commit, with the text tamper --staged prints', () => {
  const repo = guarded();
  repo.write('src/report.py', EXIT).write('tests/test_app.py', 't = 2\n');
  repo.git(['add', '-A']);
  const alone = repo.pw(['tamper', '--staged']);
  assert.is(alone.code, 1, alone.stdout + alone.stderr);
  const c = commit(repo);
  assert.is.not(c.code, 0);
  assert.not.ok(c.moved, 'no commit was made');
  assert.ok(c.out.includes(alone.stdout.trim()), `the commit's refusal:\n${c.out}\ntamper --staged:\n${alone.stdout}`);
  assert.match(c.out, 'refused [tamper] [exit.process]');
  assert.match(c.out, 'src/report.py  (line 5: os._exit(0))');
  assert.match(c.out, '`patchwarden tamper --staged --allow-line` prints the row');
  // The fix, as printed: the row, added by an owner in a commit of its own, lets the reviewed line through.
  const rows = repo.pw(['tamper', '--staged', '--allow-line']).stdout;
  const row = rows
    .slice(rows.indexOf('\n  # '))
    .replace('OWNER', 'alice')
    .replace('REASON', 'the CLI entry point leaves here');
  repo.git(['stash', '-q']);
  repo.write(ALLOW, `version: 1\nallow:${row}`);
  repo.git(['add', ALLOW]);
  assert.is(commit(repo, 'allow the exit').code, 0);
  repo.git(['stash', 'pop', '-q']);
  repo.git(['add', '-A']);
  const again = commit(repo);
  assert.is(again.code, 0, again.out);
  assert.ok(again.moved);
});

test('ordinary production code, and a hit outside the src zone, commit as before', () => {
  const repo = guarded();
  repo.write('src/app.py', 'x = 2\n\n\ndef total(xs):\n    return sum(xs)\n');
  repo.write('tests/test_app.py', EXIT);
  repo.git(['add', '-A']);
  const c = commit(repo);
  assert.is(c.code, 0, c.out);
  assert.ok(c.moved);
  assert.not.match(c.out, 'tamper');
});

test('tamper.mode warn lets the commit through with the warning; off does not scan', () => {
  for (const [mode, warned] of [
    ['warn', true],
    ['off', false],
  ] as const) {
    const repo = guarded(`${CONFIG}tamper:\n  mode: ${mode}\n`);
    repo.write('src/report.py', EXIT);
    repo.git(['add', '-A']);
    const c = commit(repo);
    assert.is(c.code, 0, c.out);
    assert.is(c.out.includes('tamper warning [exit.process] src/report.py:5: os._exit(0)'), warned, c.out);
  }
});

test('an amend is scanned with the commit it amends; so is the resolution of a merge', () => {
  const repo = guarded();
  repo.write('src/report.py', 'def done():\n    return 0\n');
  repo.git(['add', '-A']);
  assert.is(commit(repo).code, 0);
  repo.write('src/report.py', `${EXIT}`);
  repo.git(['add', '-A']);
  const amend = repo.git(['commit', '-q', '--amend', '--no-edit'], { allowFail: true });
  assert.is.not(amend.code, 0);
  assert.match(amend.stdout + amend.stderr, 'refused [tamper] [exit.process]');
  repo.git(['reset', '-q', '--hard']);
  // Both sides change one line; the resolution brings the exit.
  repo.git(['checkout', '-q', '-b', 'other']);
  repo.write('src/app.py', 'x = 3\n');
  repo.git(['commit', '-q', '-am', 'three']);
  repo.git(['checkout', '-q', 'main']);
  repo.write('src/app.py', 'x = 4\n');
  repo.git(['commit', '-q', '-am', 'four']);
  assert.is(repo.git(['merge', '-q', 'other'], { allowFail: true }).code, 1, 'the merge conflicts');
  repo.write('src/app.py', 'import os\nx = 4\nos._exit(0)\n');
  repo.git(['add', 'src/app.py']);
  const merge = commit(repo, 'merge');
  assert.is.not(merge.code, 0);
  assert.match(merge.out, 'src/app.py  (line 3: os._exit(0))');
});

test(`above the bound (${MAX_FILES} files, ${MAX_BYTES / 1024} KiB) the commit goes through with a note, and the push is refused`, () => {
  const repo = guarded();
  const many: Record<string, string> = { 'src/report.py': EXIT };
  for (let i = 0; i < MAX_FILES; i++) many[`src/m${i}.py`] = `v = ${i}\n`;
  for (const [f, c] of Object.entries(many)) repo.write(f, c);
  repo.git(['add', '-A']);
  const c = commit(repo, 'many');
  assert.is(c.code, 0, c.out);
  assert.match(
    c.out,
    `patchwarden: tamper scan left to pre-push (${MAX_FILES + 1} staged production files, over the ${MAX_FILES} a commit scans); \`patchwarden tamper --staged\` scans them now`,
  );
  // One large file: over the size bound.
  repo.write('src/big.py', `${'x = 1\n'.repeat(MAX_BYTES / 6 + 1)}import os\nos._exit(0)\n`);
  repo.git(['add', '-A']);
  const big = commit(repo, 'big');
  assert.is(big.code, 0, big.out);
  assert.match(
    big.out,
    new RegExp(
      `tamper scan left to pre-push \\(\\d+ KiB of staged production files, over the ${MAX_BYTES / 1024} KiB a commit scans\\)`,
    ),
  );
  const push = repo.git(['push', '-q', 'origin', 'main'], { allowFail: true });
  assert.is.not(push.code, 0);
  assert.match(push.stdout + push.stderr, 'src/report.py  (line 5: os._exit(0))');
  assert.match(push.stdout + push.stderr, 'src/big.py');
});

test.run();
