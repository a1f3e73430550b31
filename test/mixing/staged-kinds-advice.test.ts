// The split advice for each kind of staged change, followed as printed: each
// commit holds exactly its part of what was staged (never the working tree's
// version of a file), the working tree is left as it was, and the hooks
// accept every step. On the default branch, on a feature branch (the oracle
// in a pull request of its own, the branch rebased once it lands), with
// owners.signers (an owner signs the oracle commit), and for an agent (the
// production code alone, the oracle change left staged).
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { advice, cloneOf, follow, ownerEnv } from '../helpers/advice.js';
import { cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';
import { Keys } from '../prereceive/server.js';

test.after.each(cleanup);

const AGENT = 'helper[bot]@example.com';

/** A clone of a bare remote, hooks installed by init, `extra` config committed and pushed. */
function site(extra = '', files: Record<string, string> = {}): { work: TempRepo; origin: TempRepo } {
  const origin = tempRepo({ bare: true });
  const work = cloneOf(origin);
  work.write('src/app.py', 'x = 1\n').write('src/lib.py', 'y = 1\n');
  work.write('spec/test_p.py', 'p = 1\n').write('spec/test_q.py', 'q = 1\n').write('README.md', 'app\n');
  for (const [f, c] of Object.entries(files)) work.write(f, c);
  const init = work.pw(['init', '--yes']);
  assert.is(init.code, 0, init.stdout + init.stderr);
  // Owners as each test sets them (the advice differs by who owns what): init's own owners section goes.
  const config = readFileSync(path.join(work.dir, '.patchwarden.yml'), 'utf8').replace(/^owners:\n(?: .*\n)*/m, '');
  work.write('.patchwarden.yml', config + extra);
  work.commit({}, 'start');
  work.git(['branch', '-M', 'main']);
  work.git(['push', '-q', '-u', 'origin', 'main']);
  return { work, origin };
}

/** Each kind of staged change, made on a production file and an oracle file alike. */
const KINDS: Record<string, (w: TempRepo) => void> = {
  added: (w) => {
    w.write('src/new.py', 'n = 1\n').write('spec/test_new.py', 'tn = 1\n');
    w.git(['add', 'src/new.py', 'spec/test_new.py']);
  },
  modified: (w) => {
    w.write('src/app.py', 'x = 2\n').write('spec/test_p.py', 'p = 2\n');
    w.git(['add', 'src/app.py', 'spec/test_p.py']);
  },
  'deleted (git rm)': (w) => {
    w.git(['rm', '-q', 'src/lib.py', 'spec/test_q.py']);
  },
  'deleted (git rm --cached, the files kept)': (w) => {
    w.git(['rm', '-q', '--cached', 'src/lib.py', 'spec/test_q.py']);
  },
  'deleted (git rm --cached, the files kept and ignored)': (w) => {
    w.git(['rm', '-q', '--cached', 'src/lib.py', 'spec/test_q.py']);
    w.write('.gitignore', 'src/lib.py\nspec/test_q.py\n');
  },
  'partly staged (more edits left unstaged)': (w) => {
    w.write('src/app.py', 'x = 2\n').write('spec/test_p.py', 'p = 2\n');
    w.git(['add', 'src/app.py', 'spec/test_p.py']);
    w.write('src/app.py', 'x = 3\n').write('spec/test_p.py', 'p = 3\n');
  },
  'renamed (a delete and an add), one across zones': (w) => {
    w.git(['mv', 'src/lib.py', 'src/lib2.py']);
    w.git(['mv', 'spec/test_q.py', 'src/q.py']);
    w.write('spec/test_p.py', 'p = 2\n');
    w.git(['add', 'spec/test_p.py']);
  },
  'mode change (in the index only)': (w) => {
    w.git(['update-index', '--chmod=+x', 'src/app.py', 'spec/test_p.py']);
  },
};

/** Every file of the working tree outside .git: its bytes and whether it is executable. */
function files(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel))) {
    if (!rel && name === '.git') continue;
    const p = path.join(rel, name);
    const st = lstatSync(path.join(dir, p));
    if (st.isDirectory()) Object.assign(out, files(dir, p));
    else out[p] = `${st.mode & 0o111 ? 'x' : '-'} ${readFileSync(path.join(dir, p), 'utf8')}`;
  }
  return out;
}

/** What was staged and what surrounds it, taken before the refused commit. */
function before(work: TempRepo) {
  return {
    start: work.head(),
    staged: work.git(['write-tree']).stdout.trim(),
    worktree: files(work.dir),
  };
}

/** The refused commit's output. */
function refused(work: TempRepo, env?: NodeJS.ProcessEnv): string {
  const r = work.git(['commit', '-q', '-m', 'mixed'], { allowFail: true, env });
  const said = r.stdout + r.stderr;
  assert.is(r.code, 1, said);
  assert.match(said, /refused \[mix\]/);
  return said;
}

const names = (work: TempRepo, args: string[]) =>
  work
    .git(['diff', '--name-only', '--no-renames', ...args])
    .stdout.trim()
    .split('\n')
    .filter(Boolean);

/** `commit` is `from` with exactly the oracle part (spec/) of `staged`, or exactly the rest. */
function holdsPart(work: TempRepo, part: 'oracle' | 'rest', from: string, commit: string, staged: string): void {
  const [mine, other] =
    part === 'oracle'
      ? [
          ['--', 'spec'],
          ['--', '.', ':!spec'],
        ]
      : [
          ['--', '.', ':!spec'],
          ['--', 'spec'],
        ];
  assert.equal(names(work, [commit, staged, ...mine]), [], `${part}: as staged`);
  assert.equal(names(work, [from, commit, ...other]), [], `${part}: nothing else`);
  assert.ok(names(work, [from, commit]).length > 0, `${part}: not empty`);
}

for (const [kind, stage] of Object.entries(KINDS)) {
  test(`on the default branch, ${kind}: the oracle commit, its push, then the production commit, each exactly as staged`, () => {
    const { work, origin } = site();
    stage(work);
    const b = before(work);
    follow(work.dir, work.env, advice(refused(work)));
    work.git(['push', '-q']);
    holdsPart(work, 'oracle', b.start, 'HEAD~1', b.staged);
    assert.is(work.git(['rev-parse', 'HEAD~2']).stdout.trim(), b.start);
    assert.is(
      work.git(['rev-parse', 'HEAD^{tree}']).stdout.trim(),
      b.staged,
      'the production commit: all that was staged',
    );
    assert.equal(files(work.dir), b.worktree, 'the working tree is as it was');
    assert.is(work.git(['write-tree']).stdout.trim(), b.staged, 'nothing left staged');
    assert.is(origin.git(['rev-parse', 'main']).stdout.trim(), work.head(), 'both pushed');
  });

  test(`on a feature branch, ${kind}: the oracle pull request, then the branch rebased once it lands, each exactly as staged`, () => {
    const { work, origin } = site();
    work.git(['switch', '-q', '-c', 'feature']);
    stage(work);
    const b = before(work);
    const [now, later] = refused(work).split('once feature-oracle has landed on main:');
    follow(work.dir, work.env, advice(now));
    holdsPart(work, 'rest', b.start, 'HEAD~1', b.staged);
    assert.is(work.git(['rev-parse', 'HEAD^{tree}']).stdout.trim(), b.staged);
    // The pull request: one oracle commit on where the branch left main.
    const side = origin.git(['rev-parse', 'feature-oracle']).stdout.trim();
    assert.is(origin.git(['rev-parse', `${side}~1`]).stdout.trim(), b.start);
    holdsPart(work, 'oracle', b.start, side, b.staged);
    assert.equal(files(work.dir), b.worktree);
    // It lands; the branch is rebased on it and pushed as printed.
    origin.git(['update-ref', 'refs/heads/main', side]);
    follow(work.dir, work.env, advice(`once:\n${later}`, 'once:'));
    assert.is(work.git(['rev-parse', 'HEAD~1']).stdout.trim(), side, 'the oracle commit left out: main has it');
    assert.is(work.git(['rev-parse', 'HEAD^{tree}']).stdout.trim(), b.staged);
    assert.is(origin.git(['rev-parse', 'feature']).stdout.trim(), work.head());
    assert.equal(files(work.dir), b.worktree);
  });
}

/** Every kind at once, on files of their own. */
function stageAll(w: TempRepo): void {
  w.write('src/app.py', 'x = 2\n').write('spec/test_p.py', 'p = 2\n').write('src/new.py', 'n = 1\n');
  w.git(['add', 'src/app.py', 'spec/test_p.py', 'src/new.py']);
  w.write('src/app.py', 'x = 3\n');
  w.git(['rm', '-q', '--cached', 'spec/test_q.py']);
  w.git(['rm', '-q', 'src/lib.py']);
  w.git(['mv', 'spec/test_r.py', 'src/r.py']);
  w.git(['update-index', '--chmod=+x', 'spec/test_s.py']);
}
const MORE = { 'spec/test_r.py': 'r = 1\n', 'spec/test_s.py': 's = 1\n' };

test('with owners.signers, every kind at once: the owner signs the oracle commit only, each commit exactly as staged, and the push goes through', () => {
  const keys = new Keys();
  const owner = keys.make('owner');
  try {
    const { work, origin } = site('owners:\n  signers: .patchwarden/allowed_signers\n', {
      ...MORE,
      '.patchwarden/allowed_signers': `owner@example.com ${owner.pub}\n`,
    });
    work.git(['switch', '-q', '-c', 'feature']);
    stageAll(work);
    const b = before(work);
    const said = refused(work);
    assert.match(said, 'split it: an owner signs the oracle commit');
    const env = ownerEnv(work.env, 'owner@example.com', owner.file);
    follow(work.dir, env, advice(said));
    holdsPart(work, 'oracle', b.start, 'HEAD~1', b.staged);
    assert.is(work.git(['rev-parse', 'HEAD^{tree}']).stdout.trim(), b.staged);
    const signed = (rev: string) => work.git(['cat-file', 'commit', rev]).stdout.includes('\ngpgsig ');
    assert.ok(signed('HEAD~1'), 'the oracle commit is signed');
    assert.not.ok(signed('HEAD'), 'the production commit is not');
    assert.equal(files(work.dir), b.worktree);
    assert.is(origin.git(['rev-parse', 'feature']).stdout.trim(), work.head());
  } finally {
    keys.rm();
  }
});

test('an agent, every kind at once: it commits exactly the production part, and the oracle change is left staged as it was', () => {
  const { work } = site('owners:\n  agents: ["*[bot]@*"]\n', MORE);
  work.env = { ...work.env, GIT_AUTHOR_EMAIL: AGENT, GIT_COMMITTER_EMAIL: AGENT };
  stageAll(work);
  const b = before(work);
  const said = refused(work);
  assert.match(said, 'a human owner must make the oracle change');
  const commands = advice(said);
  assert.not.ok(
    commands.some((c) => /oracle change|push/.test(c)),
    commands.join('\n'),
  );
  follow(work.dir, work.env, commands);
  holdsPart(work, 'rest', b.start, 'HEAD', b.staged);
  assert.is(work.git(['write-tree']).stdout.trim(), b.staged, 'the oracle part is still staged');
  assert.equal(
    names(work, ['--cached']),
    ['spec/test_q.py', 'spec/test_r.py', 'spec/test_s.py', 'spec/test_p.py'].sort(),
  );
  assert.equal(files(work.dir), b.worktree);
});

test.run();
