// Harness-only pull requests: a change without production code that swaps the
// function under test for a correct one from a root conftest.py, a jest
// setup file or a vitest config, so that a property red on the base turns
// green while the bug stays in. From config version 2 the harness is in the
// guard zone (an agent's change of it is refused at the server and the gate),
// and the gate runs a change without production code on the base's harness
// (the property stays red), except what an admitted owner-signed commit
// changes. Version 1 behaves as before. Real pytest, jest and vitest, real
// pushes into a guarded bare repository, the gate as CI runs it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { AGENT, commitBy, gate } from '../properties/evidence-site.js';
import { BUGGY_PY, PYTEST, pyProperty, registry } from '../properties/projects.js';
import { commitAs, Keys } from '../prereceive/server.js';
import { refused, site } from './range-site.js';
import { ID, JEST, jest, VITEST, vitest } from './runtime-site.js';

test.after.each(cleanup);
const keys = new Keys();
test.after(() => keys.rm());

const OWNER = 'owner@example.com';
const owner = keys.make('owner');
const OWNERS = `owners:\n  signers: .patchwarden/allowed_signers\n  agents: ["*[bot]@*"]\n`;

const configOf = (version: number, command: string, extra = '') =>
  `version: ${version}\nproperties:\n  command: ${JSON.stringify(command)}\n  invariants: spec/invariants.yaml\ntamper:\n  mode: off\n${extra}`;

/** The bug is in on main, and the registered property is red there, with no pending mark. */
const PY_FILES = {
  '.gitignore': '__pycache__/\n*.pyc\n.pytest_cache/\n',
  'pytest.ini': '[pytest]\npythonpath = src\n',
  'spec/invariants.yaml': registry(ID),
  'spec/properties/test_bill.py': pyProperty(ID),
  'src/bill.py': BUGGY_PY,
};
/** A root conftest.py that swaps the function under test for a correct one. */
const SWAP_CONFTEST = 'import bill\n\nbill.total = lambda xs: sum(xs)\n';

/** The property command run straight in the checkout: what a gate that trusts head's harness would see. */
function trusting(work: TempRepo, command: string): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-trusting-'));
  try {
    return sh('sh', ['-c', command.replaceAll('{junit}', path.join(dir, 'r.xml'))], { cwd: work.dir }).code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const stateOf = (layer: any) =>
  (layer.details?.states ?? layer.details?.invariants ?? []).map((i: any) => `${i.id}:${i.state ?? i.status}`);

const py = testUnless(pytestMissing);

py('version 2, no owners: a conftest.py-only change runs on the base harness and the property stays red', () => {
  const s = site(configOf(2, PYTEST), PY_FILES);
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit({ 'conftest.py': SWAP_CONFTEST }, 'tidy the test setup');
  assert.is(trusting(s.work, PYTEST), 0, 'the attack is real: head with its own conftest.py is green');
  const g = gate(s.work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  const p = g.layers.properties;
  assert.is(p.status, 'refused', JSON.stringify(p));
  assert.equal(p.details.harness_from_base, ['conftest.py']);
  assert.not.ok(stateOf(p).includes(`${ID}:holds`), JSON.stringify(p.details));
  assert.match(p.violations.map((v: any) => v.message).join('\n'), ID);
});

py("version 2, no owners: pytest options in pyproject.toml alone are the base's too in the head-only run", () => {
  const { 'pytest.ini': _, ...files } = PY_FILES;
  const s = site(configOf(2, PYTEST), {
    ...files,
    'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
  });
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit(
    {
      'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "tools/test_swap.py"\n',
      'tools/test_swap.py': SWAP_CONFTEST,
    },
    'collect the tools checks too',
  );
  assert.is(trusting(s.work, PYTEST), 0, 'the attack is real: head with its own pyproject.toml is green');
  const g = gate(s.work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.is(g.layers.properties.status, 'refused', JSON.stringify(g.layers.properties));
  assert.equal(g.layers.properties.details.harness_from_base, ['pyproject.toml']);
});

py('version 2, owners configured: an agent pushing the conftest.py is refused at the server and the gate', () => {
  const s = site(configOf(2, PYTEST, OWNERS), {
    ...PY_FILES,
    '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`,
  });
  const before = s.ref('main');
  commitBy(s.work, AGENT, { 'conftest.py': SWAP_CONFTEST }, 'tidy the test setup');
  refused(s.push(['HEAD:refs/heads/topic']), 'owners', 'conftest.py');
  assert.is(s.ref('refs/heads/topic'), null);
  assert.is(s.ref('main'), before);
  const g = gate(s.work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.is(g.layers.owners.status, 'refused', JSON.stringify(g.layers.owners));
  assert.match(JSON.stringify(g.layers.owners.violations), 'conftest.py');
  assert.is.not(g.layers.properties.status, 'pass');
});

py("version 2: an owner-signed conftest.py is admitted, and the head-only run takes head's harness", () => {
  const s = site(configOf(2, PYTEST, OWNERS), {
    ...PY_FILES,
    '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`,
  });
  s.work.git(['checkout', '-q', '-b', 'topic']);
  commitAs(s.work, { 'conftest.py': SWAP_CONFTEST }, 'owner: the harness the team agreed on', {
    sign: owner.file,
    email: OWNER,
  });
  const g = gate(s.work);
  assert.is(g.code, 0, JSON.stringify(g.out));
  assert.is(g.layers.owners.status, 'pass', JSON.stringify(g.layers.owners));
  assert.is(g.layers.properties.status, 'pass', JSON.stringify(g.layers.properties));
  assert.is(g.layers.properties.details.harness_from_base, undefined);
  assert.ok(stateOf(g.layers.properties).includes(`${ID}:holds`), JSON.stringify(g.layers.properties.details));
});

py('version 1 behaves as before: the conftest.py is free and judges itself; doctor names version 2', () => {
  const s = site(configOf(1, PYTEST, OWNERS), {
    ...PY_FILES,
    '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`,
  });
  commitBy(s.work, AGENT, { 'conftest.py': SWAP_CONFTEST }, 'tidy the test setup');
  const r = s.push(['HEAD:refs/heads/topic']);
  assert.is(r.code, 0, r.stderr);
  const g = gate(s.work);
  assert.is(g.code, 0, 'as before: the attack passes the gate');
  assert.is(g.layers.properties.status, 'pass', JSON.stringify(g.layers.properties));
  assert.is(g.layers.properties.details.harness_from_base, undefined);
  const d = s.work.pw(['doctor']);
  assert.match(d.stdout, /WARNING harness: version: 1 leaves the test harness .* `version: 2` in \.patchwarden\.yml/);
});

const JEST_FILES = {
  'package.json': '{"name":"bill","private":true}\n',
  'jest.config.json': '{"transform":{},"setupFiles":["<rootDir>/jest.setup.js"]}\n',
  'jest.setup.js': '// the test setup\n',
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.js': jest.property,
  'src/bill.js': 'exports.total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
};
const SWAP_SETUP = "const bill = require('./src/bill');\n\nbill.total = (xs) => xs.reduce((a, b) => a + b, 0);\n";
const withJest = testUnless(existsSync(JEST) ? null : 'jest is not installed in node_modules (npm ci)');

withJest("version 2, no owners: a change to jest's setup file runs on the base's; doctor names the file", () => {
  const s = site(configOf(2, jest.command), JEST_FILES);
  const d = s.work.pw(['doctor']);
  assert.match(
    d.stdout,
    /PROBLEM harness: setup files .* in no oracle zone.*: jest\.setup\.js; add them to the guard zone/,
  );
  s.work.git(['checkout', '-q', '-b', 'topic']);
  s.work.commit({ 'jest.setup.js': SWAP_SETUP }, 'tidy the test setup');
  assert.is(trusting(s.work, jest.command), 0, 'the attack is real: head with its own setup file is green');
  const g = gate(s.work);
  assert.is(g.code, 1, JSON.stringify(g.out));
  assert.is(g.layers.properties.status, 'refused', JSON.stringify(g.layers.properties));
  assert.equal(g.layers.properties.details.harness_from_base, ['jest.setup.js']);
});

withJest('version 2 with the setup file in zones.guard: an agent changing it is refused at the server', () => {
  const s = site(configOf(2, jest.command, `${OWNERS}zones:\n  guard: [jest.setup.js]\n`), {
    ...JEST_FILES,
    '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`,
  });
  assert.not.match(s.work.pw(['doctor']).stdout, 'PROBLEM harness');
  commitBy(s.work, AGENT, { 'jest.setup.js': SWAP_SETUP }, 'tidy the test setup');
  refused(s.push(['HEAD:refs/heads/topic']), 'owners', 'jest.setup.js');
});

const VITEST_FILES = {
  'package.json': vitest.package,
  'spec/invariants.yaml': registry(ID),
  'spec/properties/bill.test.js': vitest.property,
  'src/bill.js': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n',
};
/** A new vitest config whose setup file mocks the module under test with a correct one. */
const SWAP_VITEST = {
  'vitest.config.mjs': "export default { test: { setupFiles: ['./test-setup.mjs'] } };\n",
  'test-setup.mjs': `import { vi } from 'vitest';\n\nvi.mock('./src/bill.js', () => ({ total: (xs) => xs.reduce((a, b) => a + b, 0) }));\n`,
};
const withVitest = testUnless(existsSync(VITEST) ? null : 'vitest is not installed in node_modules (npm ci)');

withVitest(
  'version 2: a vitest config added by an agent is refused; unsigned without owners, the gate runs without it',
  () => {
    const guarded = site(configOf(2, vitest.command, OWNERS), {
      ...VITEST_FILES,
      '.patchwarden/allowed_signers': `${OWNER} ${owner.pub}\n`,
    });
    commitBy(guarded.work, AGENT, SWAP_VITEST, 'tidy the test setup');
    refused(guarded.push(['HEAD:refs/heads/topic']), 'owners', 'vitest.config.mjs');

    const s = site(configOf(2, vitest.command), VITEST_FILES);
    s.work.git(['checkout', '-q', '-b', 'topic']);
    s.work.commit(SWAP_VITEST, 'tidy the test setup');
    assert.is(trusting(s.work, vitest.command), 0, 'the attack is real: head with its own vitest config is green');
    const g = gate(s.work);
    assert.is(g.code, 1, JSON.stringify(g.out));
    assert.is(g.layers.properties.status, 'refused', JSON.stringify(g.layers.properties));
    assert.equal(g.layers.properties.details.harness_from_base, ['vitest.config.mjs']);
  },
);

test.run();
