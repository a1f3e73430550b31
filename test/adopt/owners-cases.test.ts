// doctor's CODEOWNERS coverage in GitHub and GitLab syntax and `init
// --codeowners`; a new project's ledger is version 2; one-case invariants
// listed by doctor and refused under properties.min_cases, on real pytest.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCodeowners, requiredOwners } from '../../src/adopt/codeowners.js';
import { cleanup, tempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { gate, sample } from '../gate/sample.js';

test.after.each(cleanup);
const withPytest = testUnless(pytestMissing);

const finding = (out: Record<string, any>, check: string) =>
  out.checks.find((c: { check: string }) => c.check === check);

test('CODEOWNERS rules: last match wins, folders, anchored and floating patterns, rules without owners, GitLab sections', () => {
  const gh = parseCodeowners(
    '# owners\n*  @everyone\n/spec/  @qa\nfreeze/ @qa @sre\n/spec/generated/\ndocs/*  @docs\n',
  );
  assert.equal(requiredOwners(gh, 'src/a.py'), ['@everyone']);
  assert.equal(requiredOwners(gh, 'spec/p/test_a.py'), ['@qa']);
  assert.equal(requiredOwners(gh, 'spec/generated/x.py'), [], 'a later rule without owners unowns it');
  assert.equal(
    requiredOwners(gh, 'deep/freeze/signatures.yaml'),
    ['@qa', '@sre'],
    'a floating folder matches at any depth',
  );
  assert.equal(requiredOwners(gh, 'docs/a.md'), ['@docs']);
  assert.equal(requiredOwners(gh, 'docs/deep/a.md'), ['@everyone'], 'docs/* is the files directly in docs');
  const gl = parseCodeowners(
    '[Backend] @backend\nsrc/\n\n[Oracles][2] @qa\n/spec/\n/freeze/ @sre\n\n^[Optional docs] @docs\n/fixtures/\n',
  );
  assert.equal(requiredOwners(gl, 'spec/x.py'), ['@qa'], 'a section default owner');
  assert.equal(requiredOwners(gl, 'freeze/signatures.yaml'), ['@sre']);
  assert.equal(requiredOwners(gl, 'fixtures/input/a.json'), [], 'an optional section requires nobody');
  assert.equal(requiredOwners(gl, 'src/a.py'), ['@backend']);
});

test('doctor names every oracle path without an owner with the lines to add; init --codeowners writes them; GitHub and GitLab', () => {
  const repo = tempRepo();
  repo.commit(
    {
      'src/app.py': 'x = 1\n',
      'pyproject.toml': '',
      '.github/workflows/ci.yml': 'on: push\n',
      '.github/CODEOWNERS': '/spec/ @qa\n',
    },
    'start',
  );
  assert.is(repo.pw(['init', '--yes']).code, 0);
  let d = repo.json(['doctor']);
  let f = finding(d.out, 'codeowners');
  assert.equal([f.ok, f.warn], [true, true]);
  for (const p of ['/fixtures/', '/freeze/', '/.patchwarden.yml', '/.github/workflows/', '/.github/CODEOWNERS'])
    assert.ok(f.detail.includes(p), `${p} in ${f.detail}`);
  assert.not.ok(f.detail.includes('/spec/ '), 'spec/ has an owner');
  assert.match(f.detail, /patchwarden init --yes --codeowners @ORG\/TEAM/);
  // Run as printed, or with a person, an email or a placeholder, init writes nothing.
  for (const [owner, why] of [
    ['@ORG/TEAM', /"ORG" is a placeholder, not a team/],
    ['@acme/team', /"team" is a placeholder/],
    ['@alice', /takes a team handle \(@org\/team\), not "@alice"/],
    ['qa@acme.example', /takes a team handle/],
  ] as const) {
    const r = repo.pw(['init', '--yes', '--codeowners', owner]);
    assert.is(r.code, 2, owner);
    assert.match(r.stderr, why);
    assert.is(readFileSync(path.join(repo.dir, '.github/CODEOWNERS'), 'utf8'), '/spec/ @qa\n');
  }
  const init = repo.json(['init', '--yes', '--codeowners', '@acme/qa']);
  assert.is(init.code, 0, init.stderr);
  const text = readFileSync(path.join(repo.dir, '.github/CODEOWNERS'), 'utf8');
  assert.match(text, /^\/spec\/ @qa\n\n# patchwarden: .*\n\/fixtures\/\s+@acme\/qa\n/);
  assert.match(text, /\n\/\.github\/CODEOWNERS\s+@acme\/qa\n$/);
  d = repo.json(['doctor']);
  f = finding(d.out, 'codeowners');
  assert.equal([f.warn ?? false, f.detail], [false, '.github/CODEOWNERS gives every oracle path an owner']);
  assert.is(repo.pw(['init', '--yes', '--codeowners', 'not an owner']).code, 2);
  // GitLab: no CODEOWNERS yet, a GitLab pipeline: .gitlab/CODEOWNERS; a file with sections gets a section of its own.
  const lab = tempRepo();
  lab.commit({ 'src/app.py': 'x = 1\n', 'pyproject.toml': '', '.gitlab-ci.yml': 'test: {script: [true]}\n' }, 'start');
  assert.is(lab.json(['init', '--yes', '--codeowners', '@qa']).code, 0);
  assert.match(
    readFileSync(path.join(lab.dir, '.gitlab/CODEOWNERS'), 'utf8'),
    /\n\/\.gitlab-ci\.yml\s+@qa\n\/\.gitlab\/CODEOWNERS\s+@qa\n$/,
  );
  assert.is(finding(lab.json(['doctor']).out, 'codeowners').warn, undefined);
  const sections = tempRepo();
  sections.commit(
    {
      'src/app.py': 'x = 1\n',
      'pyproject.toml': '',
      CODEOWNERS: '[Backend] @backend\nsrc/\n\n^[Docs] @docs\n/spec/\n',
    },
    'start',
  );
  assert.is(sections.json(['init', '--yes', '--codeowners', '@qa']).code, 0);
  const owned = readFileSync(path.join(sections.dir, 'CODEOWNERS'), 'utf8');
  assert.match(owned, /\n\[patchwarden oracles\]\n\/spec\/\s+@qa\n/, 'the optional section owned nothing');
  assert.is(finding(sections.json(['doctor']).out, 'codeowners').warn, undefined);
});

test('an installed judge under an ignored node_modules gets no CODEOWNERS line; a committed one does', () => {
  const repo = tempRepo();
  repo.commit(
    { 'src/app.js': 'export const a = 1;\n', 'package.json': '{}\n', '.gitignore': 'node_modules/\n' },
    'start',
  );
  assert.is(repo.pw(['init', '--yes']).code, 0);
  // The judge as npm installs it: on disk, ignored, never committed.
  mkdirSync(path.join(repo.dir, 'node_modules/patchwarden'), { recursive: true });
  mkdirSync(path.join(repo.dir, 'node_modules/.bin'), { recursive: true });
  writeFileSync(path.join(repo.dir, 'node_modules/patchwarden/package.json'), '{}\n');
  writeFileSync(path.join(repo.dir, 'node_modules/.bin/patchwarden'), '#!/bin/sh\n');
  const detail = () => finding(repo.json(['doctor']).out, 'codeowners').detail as string;
  assert.not.match(detail(), /node_modules/);
  // Committed against the ignore rule, it would run in every clone: then it needs an owner.
  repo.git(['add', '-f', 'node_modules/patchwarden/package.json']);
  repo.git(['commit', '-q', '--no-verify', '-m', 'vendor the judge']);
  assert.match(detail(), /\/node_modules\/patchwarden\//);
  assert.not.match(detail(), /\.bin/);
});

test('every CODEOWNERS location is a guard file: a production commit that drops an owner is refused', () => {
  for (const file of ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS']) {
    const repo = sample('version: 1\n', { [file]: '/spec/ @qa\n' });
    repo.commit({ 'src/app.js': 'export const a = 2;\n', [file]: '' }, 'drop the owner along with a fix');
    const r = gate(repo);
    assert.is(r.code, 1, file);
    assert.is(r.layers.mixing.status, 'refused');
    assert.ok(r.layers.mixing.violations[0].paths.includes(file), JSON.stringify(r.layers.mixing.violations));
  }
});

test('init writes a version 2 ledger for a new project, never over an existing one', () => {
  const repo = tempRepo();
  repo.commit({ 'src/app.py': 'x = 1\n', 'pyproject.toml': '' }, 'start');
  const r = repo.json(['init', '--yes']);
  assert.ok(
    r.out.actions.some((a: string) => /freeze\/signatures\.yaml: written, version 2/.test(a)),
    JSON.stringify(r.out.actions),
  );
  assert.match(readFileSync(path.join(repo.dir, 'freeze/signatures.yaml'), 'utf8'), /^version: 2\nrecords:\n$/m);
  assert.match(
    readFileSync(path.join(repo.dir, '.patchwarden.yml'), 'utf8'),
    /\n# gate:\n# {3}require: \[properties, fixtures, freeze\]\n/,
  );
  assert.is(repo.json(['freeze', 'check']).out.version, 2);
  const old = tempRepo();
  old.commit({ 'src/app.py': 'x = 1\n', 'freeze/signatures.yaml': 'version: 1\nrecords: []\n' }, 'start');
  assert.is(old.json(['init', '--yes']).code, 0);
  assert.is(readFileSync(path.join(old.dir, 'freeze/signatures.yaml'), 'utf8'), 'version: 1\nrecords: []\n');
});

const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider spec --junitxml={junit}';
const PROPS = {
  'spec/invariants.yaml':
    'version: 1\ninvariants:\n  - id: bill.one\n    description: one literal\n  - id: bill.many\n    description: several cases\n',
  'spec/test_bill.py': [
    'import os, sys, pytest',
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))",
    'from bill import total',
    'def test_one(record_property):',
    "    record_property('invariant', 'bill.one')",
    '    assert total([2, 3]) == 5',
    '@pytest.mark.parametrize("xs", [[], [1], [2, 3]])',
    'def test_many(record_property, xs):',
    "    record_property('invariant', 'bill.many')",
    '    assert total(xs) >= 0',
    '',
  ].join('\n'),
  'src/bill.py': 'def total(xs):\n    return -1 if xs else 0\n',
};

withPytest('one-case invariants: doctor lists them; properties.min_cases refuses them by name in the gate', () => {
  const repo = sample(`version: 1\nproperties:\n  command: ${PYTEST}\n`, PROPS);
  repo.commit({ 'src/bill.py': 'def total(xs):\n    return sum(xs)\n' }, 'fix totals');
  const d = repo.json(['doctor']);
  const f = finding(d.out, 'invariant-cases');
  assert.equal([f.ok, f.warn], [true, true]);
  assert.match(f.detail, /^one case only: bill\.one\. /);
  assert.match(f.detail, /cases: bill\.one 1, bill\.many 3/);
  assert.is(gate(repo).layers.properties.status, 'pass', 'off by default');
  repo.git(['checkout', '-q', 'main']);
  repo.commit({ '.patchwarden.yml': `version: 1\nproperties:\n  command: ${PYTEST}\n  min_cases: 2\n` }, 'min cases');
  repo.git(['checkout', '-q', 'topic']);
  const r = gate(repo);
  assert.is(r.layers.properties.status, 'refused');
  assert.match(
    r.layers.properties.violations[0].message,
    /invariant bill\.one ran 1 distinct case, fewer than properties\.min_cases \(2\)/,
  );
  assert.not.match(r.layers.properties.violations[0].message, /bill\.many/);
  assert.equal(
    r.layers.properties.details!.head_run.invariants.map((i: { id: string; case_count: number }) => [
      i.id,
      i.case_count,
    ]),
    [
      ['bill.one', 1],
      ['bill.many', 3],
    ],
  );
});

withPytest('doctor says so when a property errors before it names its invariant (no case counted)', () => {
  const broken = PROPS['spec/test_bill.py'].replace('from bill import total', 'from bill import total, missing');
  const repo = sample(`version: 1\nproperties:\n  command: ${PYTEST}\n`, { ...PROPS, 'spec/test_bill.py': broken });
  const f = finding(repo.json(['doctor']).out, 'invariant-cases');
  assert.equal([f.ok, f.warn], [true, true]);
  assert.match(
    f.detail,
    /^no case of bill\.one, bill\.many ran to name its invariant, so the revert check cannot judge them/,
  );
  assert.match(f.detail, /error in "spec\.test_bill": collection failure/, f.detail);
});

test.run();
