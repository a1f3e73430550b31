// A production diff that only touches comments and formatting owes no
// property: a real push through the installed hook, and the real gate, let it
// through without running the property command once. Everything that can
// change what runs is refused as before: a changed constant, a coding line, a
// pragma, and a repository that ships an ast.py for the judge to import.
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, installPrePush, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, pyProperty, PYTEST, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const PY = 'import os\n\n\ndef total(xs):\n    return sum(xs) + RATE\n\n\nRATE = 0\n';
const TS = 'export function label(n: number): string {\n  return `#${n}`;\n}\n\nexport const RATE = 0;\n';

let logDir = '';
const runs = () =>
  existsSync(path.join(logDir, 'runs'))
    ? readFileSync(path.join(logDir, 'runs'), 'utf8').split('\n').filter(Boolean).length
    : 0;

/** A pushed project whose properties pass; every property run appends a line to the log. */
function pushed(extra: Record<string, string> = {}, configExtra = ''): TempRepo {
  logDir = mkdtempSync(path.join(tmpdir(), 'pw-runs-'));
  const counted = (command: string) => `echo run >> ${path.join(logDir, 'runs')} && ${command}`;
  const remote = tempRepo({ bare: true });
  const repo = tempRepo();
  repo.git(['remote', 'add', 'origin', remote.dir]);
  installPrePush(repo);
  repo.commit(
    {
      '.gitignore': '__pycache__/\n.pytest_cache/\n',
      'pytest.ini': '[pytest]\npythonpath = src\n',
      '.patchwarden.yml': config(counted(PYTEST), configExtra),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': pyProperty(ID),
      'src/bill.py': PY,
      'src/app.ts': TS,
      ...extra,
    },
    'start',
  );
  assert.is(push(repo).code, 0);
  return repo;
}

const push = (repo: TempRepo) => {
  const r = repo.git(['push', '-q', 'origin', 'HEAD:main'], { allowFail: true });
  return { code: r.code, said: r.stdout + r.stderr };
};

/** The gate on a topic branch with `files` over origin/main. */
function gate(repo: TempRepo, files: Record<string, string>) {
  repo.git(['checkout', '-q', '-b', `topic-${Date.now()}`, 'origin/main']);
  repo.commit(files, 'topic');
  const r = repo.json(['gate', '--base', 'origin/main']);
  const layers = Object.fromEntries((r.out.layers ?? []).map((l: { layer: string }) => [l.layer, l]));
  return { ...r, layers: layers as Record<string, { status: string; summary: string; details?: Record<string, any> }> };
}

test.after.each(() => {
  cleanup();
  rmSync(logDir, { recursive: true, force: true });
});

const t = testUnless(pytestMissing);

const COMMENTED_PY =
  '# Billing.\nimport os\ndef total(xs):  # every item\n    return (sum(xs) +\n            RATE)\nRATE = 0  # no rate yet\n';
const COMMENTED_TS =
  '/** Labels. */\nexport function label (n: number): string { return `#${n}` } // short\nexport const RATE = 0\n';

t(
  'comment-only and reformat-only Python and TypeScript diffs pass pre-push, revert-check and the gate with no property run',
  () => {
    const repo = pushed();
    assert.is(runs(), 0, 'the first push of a history runs nothing');
    const before = repo.head();
    repo.commit({ 'src/bill.py': COMMENTED_PY, 'src/app.ts': COMMENTED_TS }, 'comments and layout');
    const r = push(repo);
    assert.is(r.code, 0, r.said);
    assert.match(
      r.said,
      /no behaviour change: all 2 production files parse to the same syntax tree as on the base side/,
    );
    assert.is(runs(), 0, 'no property ran for the push');
    const check = repo.json(['revert-check', '--base', before, '--head', 'HEAD']);
    assert.is(check.code, 0, check.stderr);
    assert.is(check.out.status, 'no_behaviour_change');
    assert.equal(check.out.unchanged.sort(), ['src/app.ts', 'src/bill.py']);
    const g = gate(repo, { 'src/bill.py': `${PY}# a closing note\n`, 'src/app.ts': `// Labels.\n${TS}` });
    assert.is(g.code, 0, JSON.stringify(g.out));
    assert.is(g.layers.revert.status, 'pass');
    assert.is(g.layers.revert.details?.status, 'no_behaviour_change');
    assert.is(g.layers.properties.status, 'pass');
    assert.match(g.layers.properties.summary, /^not run: no behaviour change/);
    assert.is(runs(), 0, 'no property ran for revert-check or the gate');
  },
);

t('pre-push JSON reports no_behaviour_change for the ref', () => {
  const repo = pushed();
  repo.commit({ 'src/app.ts': COMMENTED_TS }, 'layout');
  const line = `HEAD ${repo.head()} refs/heads/main ${repo.git(['rev-parse', 'origin/main']).stdout.trim()}\n`;
  const json = repo.json(['pre-push', 'origin', repo.git(['remote', 'get-url', 'origin']).stdout.trim()], {
    input: line,
  });
  assert.is(json.code, 0, JSON.stringify(json.out));
  assert.is(json.out.refs[0].revert, 'no_behaviour_change');
  assert.is(runs(), 0);
});

/** Pushes the change: refused by the revert check (`status`), after the properties ran. */
function refused(repo: TempRepo, files: Record<string, string>, why: RegExp, status = 'does_not_describe') {
  repo.commit(files, 'change');
  const r = push(repo);
  assert.is(r.code, 1, r.said);
  assert.match(r.said, why, r.said);
  assert.ok(r.said.includes(`refused [revert] revert check ${status}`), r.said);
  assert.ok(runs() >= (status === 'does_not_describe' ? 2 : 1), 'the properties ran');
}

t('a changed constant is behaviour: refused after both runs, in the gate too', () => {
  const repo = pushed();
  refused(
    repo,
    { 'src/bill.py': PY.replace('RATE = 0', 'RATE = 0.0') },
    /behaviour: src\/bill\.py changes it \(the syntax tree differs\)/,
  );
  const g = gate(repo, { 'src/app.ts': TS.replace('RATE = 0', 'RATE = 1') });
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.is(g.layers.revert.details?.status, 'does_not_describe');
});

t('a coding line is behaviour', () => {
  // The tamper layer refuses a latin-1 source on its own (source.opaque), and then no property runs:
  // it only warns here, so the push reaches the revert check, whose own verdict this is about.
  refused(
    pushed({}, 'tamper:\n  mode: warn\n'),
    { 'src/bill.py': `# -*- coding: latin-1 -*-\n${PY}` },
    /a comment tools act on is added, removed or moved: # -\*- coding: latin-1 -\*-/,
  );
});

t('a pragma is behaviour (Python and TypeScript)', () => {
  const repo = pushed();
  refused(repo, { 'src/bill.py': PY.replace('import os', 'import os  # type: ignore') }, /# type: ignore/);
  repo.git(['reset', '-q', '--hard', 'origin/main']);
  refused(repo, { 'src/app.ts': TS.replace('= 0;', '= /*#__PURE__*/ 0;') }, /#__PURE__/);
});

t('attack: an ast.py at the repository root, where the hook runs, does not reach the judge', () => {
  // Were the judge's python to import these, every tree would dump as "" and any change would pass.
  const fake = 'def parse(*a, **k):\n    return None\n\ndef dump(*a, **k):\n    return ""\n';
  const repo = pushed({ 'ast.py': fake, 'tokenize.py': fake });
  // pytest, started from the root, does import it and breaks: the properties cannot pass.
  refused(
    repo,
    { 'src/bill.py': PY.replace('RATE = 0', 'RATE = 1') },
    /src\/bill\.py changes it \(the syntax tree differs\)/,
    'fails_on_head',
  );
});

test.run();
