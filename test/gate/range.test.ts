// `patchwarden gate` on sample repositories: the object-only layers (mixing,
// owners, ledger, fixtures), each passing and refusing, rules from the base.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/repo.js';
import { gate, lock, row, sample } from './sample.js';

test.after.each(cleanup);

test('json: ok and layers, each with layer, ok and status, in table order', () => {
  const repo = sample();
  repo.commit({ 'src/app.js': 'export const a = 2;\n' }, 'code');
  const r = gate(repo);
  assert.equal(
    r.out.layers.map((l: { layer: string }) => l.layer),
    ['mixing', 'owners', 'ledger', 'fixtures', 'tamper', 'properties', 'revert', 'suite'],
  );
  for (const l of r.out.layers) {
    assert.type(l.ok, 'boolean');
    assert.type(l.status, 'string');
  }
  assert.is(r.out.commits, 1);
  assert.is(r.out.base, repo.git(['rev-parse', 'main']).stdout.trim());
  assert.is(r.layers.mixing.status, 'pass');
  assert.is(r.layers.owners.status, 'skipped');
  assert.match(r.layers.owners.summary, 'owners.signers and owners.agents are not set');
  assert.is(
    r.out.ok,
    r.out.layers.every((l: { ok: boolean }) => l.ok),
  );
});

test('mixing: a mixed commit is refused, exit 1', () => {
  const repo = sample();
  repo.commit(
    { 'src/app.js': 'export const a = 2;\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n' },
    'mixed',
  );
  const r = gate(repo);
  assert.is(r.code, 1);
  assert.is(r.out.ok, false);
  assert.is(r.layers.mixing.status, 'refused');
  assert.is(r.layers.mixing.violations[0].rule, 'mix');
  assert.equal(r.layers.mixing.violations[0].paths.sort(), ['spec/invariants.yaml', 'src/app.js']);
});

test('mixing: a split range is refused; mix.range: allow at base lets it through', () => {
  let repo = sample();
  repo.commit({ 'src/app.js': 'x\n' }, 'code');
  repo.commit({ 'spec/invariants.yaml': 'version: 1\ninvariants: []\n' }, 'spec');
  assert.is(gate(repo).layers.mixing.violations[0].rule, 'mix-range');
  repo = sample('version: 1\nmix:\n  range: allow\n');
  repo.commit({ 'src/app.js': 'x\n' }, 'code');
  repo.commit({ 'spec/invariants.yaml': 'version: 1\ninvariants: []\n' }, 'spec');
  assert.is(gate(repo).layers.mixing.status, 'pass');
});

test('the rules come from base: a patch that loosens the config is judged by the old one', () => {
  const repo = sample('version: 1\nmix:\n  range: allow\nzones:\n  spec: [spec/**, rules/**]\n');
  repo.commit({ '.patchwarden.yml': 'version: 1\nmix:\n  range: allow\nzones:\n  spec: [spec/**]\n' }, 'drop a zone');
  repo.commit({ 'src/app.js': 'x\n', 'rules/max.yaml': 'max: 99\n' }, 'code and rules');
  const r = gate(repo);
  assert.is(r.layers.mixing.status, 'refused');
  assert.ok(r.layers.mixing.violations[0].paths.includes('rules/max.yaml'));
  assert.match(r.out.rules, /^[0-9a-f]{12}:\.patchwarden\.yml$/);
});

test('owners: an unsigned oracle commit and an agent identity are refused', () => {
  const repo = sample('version: 1\nowners:\n  agents: ["*[bot]@*"]\n');
  repo.commit({ 'freeze/signatures.yaml': 'version: 1\nrecords: []\n' }, 'ledger');
  assert.is(gate(repo).layers.owners.status, 'pass');
  repo.git(['commit', '-q', '--no-verify', '--allow-empty', '-m', 'x']);
  repo.write('spec/invariants.yaml', 'version: 1\ninvariants: []\n');
  repo.git(['add', '-A']);
  repo.git(['commit', '-q', '--no-verify', '-m', 'spec'], { env: { GIT_AUTHOR_EMAIL: 'helper[bot]@example.com' } });
  const r = gate(repo);
  assert.is(r.layers.owners.status, 'refused');
  assert.is(r.layers.owners.violations[0].rule, 'owners-agent');
  assert.equal(r.layers.owners.violations[0].paths, ['spec/invariants.yaml']);
});

test('ledger: well-formed rows pass; a row without an owner is refused; bad YAML cannot be judged', () => {
  const repo = sample();
  repo.commit({ 'freeze/signatures.yaml': `version: 1\nrecords:\n${row('7c1a9e2b44d0af13')}` }, 'ledger');
  let r = gate(repo);
  assert.is(r.layers.ledger.status, 'pass', r.layers.ledger.summary);
  assert.match(r.layers.ledger.summary, '1 well-formed row');

  repo.commit(
    {
      'freeze/signatures.yaml':
        'version: 1\nrecords:\n  - sig: 7c1a9e2b44d0af13\n    reason: r\n    expires: 2026-12-09T00:00:00Z\n',
    },
    'no owner',
  );
  r = gate(repo);
  assert.is(r.layers.ledger.status, 'refused');
  assert.is(r.code, 1);

  repo.commit({ 'freeze/signatures.yaml': 'version: 1\nrecords: [\n' }, 'bad yaml');
  r = gate(repo);
  assert.is(r.layers.ledger.status, 'error');
  assert.match(r.layers.ledger.summary, 'freeze/signatures.yaml');
  assert.is(r.layers.ledger.ok, false);
});

test('fixtures: a lock that matches passes, a changed fixture is refused', () => {
  const files = { 'fixtures/input/a.json': '{"a":1}\n' };
  const repo = sample('version: 1\n', { ...files, 'fixtures/inputs.sha256': lock(files) });
  repo.commit({ 'README.md': 'more\n' }, 'docs');
  let r = gate(repo);
  assert.is(r.layers.fixtures.status, 'pass');
  repo.commit({ 'fixtures/input/a.json': '{"a":2}\n' }, 'edit fixture');
  r = gate(repo);
  assert.is(r.layers.fixtures.status, 'refused');
  assert.equal(r.layers.fixtures.violations[0].paths, ['fixtures/input/a.json']);
});

test('text: one decision table and one verdict line; github: annotations', () => {
  const repo = sample();
  repo.commit({ 'src/app.js': 'x\n', 'spec/invariants.yaml': 'version: 1\ninvariants: []\n' }, 'mixed');
  const t = repo.pw(['gate', '--base', 'main']);
  assert.is(t.code, 1);
  assert.match(t.stdout, /^ {2}layer +status +summary$/m);
  assert.match(t.stdout, /^ {2}mixing +refused /m);
  assert.match(t.stdout, /^patchwarden gate: refused \(mixing\)/m);
  const g = repo.pw(['gate', '--base', 'main', '--format', 'github']);
  assert.match(
    g.stdout,
    /^::error file=(src\/app\.js|spec\/invariants\.yaml),title=patchwarden mixing%3A mix::commit [0-9a-f]{12}: /m,
  );
});

test('usage: --base is required, and must name a commit', () => {
  const repo = sample();
  assert.is(repo.pw(['gate']).code, 2);
  const r = repo.pw(['gate', '--base', 'no-such-branch']);
  assert.is(r.code, 2);
  assert.match(r.stderr, 'no such commit: no-such-branch');
});

test.run();
