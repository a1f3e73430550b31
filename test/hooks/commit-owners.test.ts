// The owners rule at commit time, through the hooks `init` installs as plain
// git hooks: pre-commit refuses an agent identity staging an oracle change,
// commit-msg a credit trailer naming a coding agent (owners.trailers: strict)
// unless owners.assisted_by_ok lists it. Real commits, each refusal's fix
// run as printed.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { ownerKey } from '../helpers/owner.js';

test.after.each(cleanup);

const said = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;
const AGENT = { GIT_AUTHOR_EMAIL: 'noreply@anthropic.com', GIT_COMMITTER_EMAIL: 'noreply@anthropic.com' };

/** A project adopted by its owner: `init` (owners from the new config) and its hooks, the config committed. */
function adopted(edit: (config: string) => string = (c) => c): TempRepo {
  const repo = tempRepo();
  repo.commit({ 'src/a.py': 'a = 1\n', 'spec/p.py': 'p = 1\n' }, 'start');
  const init = repo.pw(['init', '--yes', '--owner-key', ownerKey()]);
  assert.is(init.code, 0, said(init));
  assert.match(init.stdout, '.git/hooks/commit-msg: installed');
  const file = path.join(repo.dir, '.patchwarden.yml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  repo.commit({}, 'adopt patchwarden');
  return repo;
}

/** `git commit` with the hooks, staged as given. */
function commit(repo: TempRepo, message: string, env: NodeJS.ProcessEnv = {}) {
  return repo.git(['commit', '-q', '-m', message], { allowFail: true, env });
}

/** The command a refusal's fix prints after the colon, up to `, then` or `;`. */
function fixCommand(refusal: string): string {
  const m = /: (git restore --staged -- [^;,\n]+)/.exec(refusal);
  assert.ok(m, refusal);
  return m![1];
}

test('an agent identity staging a spec change is refused at commit time, and its fix commits the rest', () => {
  const repo = adopted();
  repo.write('spec/p.py', 'p = 2\n').write('README.md', 'notes\n');
  repo.git(['add', '-A']);
  const head = repo.head();
  const r = commit(repo, 'acknowledge my rename', AGENT);
  assert.is(r.code, 1, said(r));
  assert.match(
    said(r),
    /refused \[owners-agent\] this commit touches spec and names the agent identity noreply@anthropic\.com/,
  );
  assert.match(said(r), /leave the oracle part to a person/);
  assert.is(repo.head(), head);
  // The committer alone (git's config or environment) is enough.
  const committer = commit(repo, 'x', { GIT_COMMITTER_EMAIL: 'renovate[bot]@users.noreply.github.com' });
  assert.is(committer.code, 1, said(committer));
  assert.match(said(committer), /names the agent identity renovate\[bot\]@users\.noreply\.github\.com/);
  // The fix, run as printed: the production part commits, the spec change stays in the working tree.
  const fix = sh('sh', ['-c', fixCommand(said(r))], { cwd: repo.dir, env: repo.env });
  assert.is(fix.code, 0, said(fix));
  const rest = commit(repo, 'notes', AGENT);
  assert.is(rest.code, 0, said(rest));
  assert.equal(repo.git(['show', '--name-only', '--format=', 'HEAD']).stdout.trim(), 'README.md');
  assert.is(readFileSync(path.join(repo.dir, 'spec/p.py'), 'utf8'), 'p = 2\n');
  // A person's commit of the spec change passes the hooks (its signature is checked at push).
  repo.git(['add', 'spec/p.py']);
  const person = commit(repo, 'spec');
  assert.is(person.code, 0, said(person));
});

test("an agent amending a person's spec commit is refused, and told to commit on top instead", () => {
  const repo = adopted();
  repo.commit({ 'spec/p.py': 'p = 2\n' }, "the owner's spec change");
  repo.write('README.md', 'notes\n');
  repo.git(['add', '-A']);
  const head = repo.head();
  const r = repo.git(['commit', '-q', '--amend', '--no-edit'], { allowFail: true, env: AGENT });
  assert.is(r.code, 1, said(r));
  assert.match(said(r), /refused \[owners-agent\]/);
  assert.match(said(r), /commit your change on top of it instead \(git commit, without --amend\)/);
  assert.is(repo.head(), head);
  const onTop = commit(repo, 'notes', AGENT);
  assert.is(onTop.code, 0, said(onTop));
});

test('commit-msg: Assisted-by: Claude Code on a spec commit is refused under trailers: strict; not on production code', () => {
  const repo = adopted();
  repo.write('spec/p.py', 'p = 2\n');
  repo.git(['add', '-A']);
  const head = repo.head();
  const r = commit(repo, 'spec\n\nAssisted-by: Claude Code\n');
  assert.is(r.code, 1, said(r));
  assert.match(said(r), 'patchwarden: pre-commit ok');
  assert.match(
    said(r),
    /refused \[owners-agent\] this commit touches spec and credits the coding agent Claude Code in a trailer \(owners\.trailers: strict\)/,
  );
  assert.match(said(r), /git restore --staged -- spec\/p\.py/);
  assert.match(said(r), /owners\.assisted_by_ok/);
  assert.is(repo.head(), head);
  // The same trailer after a `---` line, as git reads a commit message, and in other spellings.
  for (const message of [
    'spec\n\n---\nnotes\n\nassisted-by: claude code\n',
    'spec\n\nCo-authored-by: Claude <noreply@anthropic.com>\n',
    'spec\n\nGenerated-by: Aider 0.80\n',
  ]) {
    const again = commit(repo, message);
    assert.is(again.code, 1, `${message}\n${said(again)}`);
    assert.match(said(again), /owners-agent/);
  }
  // A trailer in a comment line is no trailer: git strips it from the message.
  const edited = repo.git(['commit', '-q', '-e', '-m', 'spec'], {
    allowFail: true,
    env: { GIT_EDITOR: `sh -c 'echo "# Assisted-by: Claude Code" >>"$1"' -` },
  });
  assert.is(edited.code, 0, said(edited));
  // A production-only commit with the same trailer passes commit-msg.
  repo.write('src/a.py', 'a = 2\n');
  repo.git(['add', '-A']);
  const production = commit(repo, 'price\n\nAssisted-by: Claude Code\n');
  assert.is(production.code, 0, said(production));
  assert.match(said(production), 'patchwarden: commit-msg ok');
});

test("commit-msg: the owner's own assistant, listed in owners.assisted_by_ok, is accepted", () => {
  const repo = adopted((c) => c.replace('assisted_by_ok: []', 'assisted_by_ok: ["Claude Code"]'));
  repo.write('spec/p.py', 'p = 2\n');
  repo.git(['add', '-A']);
  const r = commit(repo, 'spec\n\nAssisted-by: Claude Code\n');
  assert.is(r.code, 0, said(r));
  // Another agent is not the owner's assistant.
  repo.write('spec/p.py', 'p = 3\n');
  repo.git(['add', '-A']);
  const other = commit(repo, 'spec\n\nAssisted-by: Codex\n');
  assert.is(other.code, 1, said(other));
  assert.match(said(other), /credits the coding agent Codex/);
});

test('a config without owners (an existing repository) accepts at commit time what it accepted before', () => {
  const repo = adopted((c) =>
    c
      .replace('required: true', 'required: false')
      .replace(/agents: \[[^\]]*\]/, 'agents: []')
      .replace('trailers: strict', 'trailers: listed'),
  );
  repo.write('spec/p.py', 'p = 2\n');
  repo.git(['add', '-A']);
  const r = commit(repo, 'spec\n\nAssisted-by: Claude Code\n', AGENT);
  assert.is(r.code, 0, said(r));
});

test('commit-msg: an unreadable message file stops the commit with the reason', () => {
  const repo = adopted();
  const r = repo.pw(['commit-msg', path.join(repo.dir, 'no-such-message')]);
  assert.is(r.code, 2, said(r));
  assert.match(said(r), /cannot read the commit message/);
});

test.run();
