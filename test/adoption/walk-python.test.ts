// A Flask app with Hypothesis properties under the pre-commit framework,
// walked by a new team from the packed tarball: the owner installs it with
// npm from .patchwarden/vendor/, runs init with their signing key and doctor,
// the server gets the hook, the owner lands a pending invariant, an agent's
// unrelated change and its fix of the invariant pass pre-push and the server,
// a branch rebased onto the fixed main is judged alike by pre-push and the
// gate, a timing flake is frozen from replay's printed line, and action.yml's
// step judges the pull requests. The project's python3 is Debian's, which
// has Flask, Hypothesis and pytest.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEADLINE_FLAKE } from '../helpers/flake.js';
import { ciInstalls, missingUnless, testUnless } from '../helpers/skip.js';
import { Project, removeProjects, tempDir } from './project.js';
import { installVendored, ownerSigns, walk } from './walk.js';

const PYTHON = '/usr/bin/python3';
const missing =
  missingUnless('pre-commit', ['--version'], ciInstalls('pre-commit is not installed')) ??
  missingUnless(
    PYTHON,
    ['-c', 'import flask, hypothesis, pytest'],
    ciInstalls(`${PYTHON} lacks flask, hypothesis or pytest (python3-flask, python3-hypothesis, python3-pytest)`),
  );

test.after.each(removeProjects);

const COUNT = 'bill.count_matches';
const TOTAL = 'bill.total_non_negative';
const TODAY = new Date().toISOString().slice(0, 10);

/** The total is one short on the base (negative for an empty bill). */
const bill = (fixed: boolean) =>
  `"""Bills."""\n\n\ndef total(items):\n    """The sum of the items."""\n    return sum(items)${fixed ? '' : ' - 1'}\n\n\ndef count(items):\n    """How many items."""\n    return len(items)\n`;

const APP = `from flask import Flask, jsonify, request

from shop.bill import total


def create_app():
    app = Flask(__name__)

    @app.get("/total")
    def get_total():
        items = [int(x) for x in request.args.getlist("item")]
        return jsonify(total=total(items))

    return app
`;

/** Hypothesis properties, one pytest case per invariant, through the app's routes where they can be. */
const property = (ids: string[]) => `from hypothesis import HealthCheck, given, settings, strategies as st

from shop import create_app
from shop.bill import count


# record_property keeps nothing between examples.
FIXTURE_OK = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@FIXTURE_OK
@given(st.lists(st.integers(min_value=0, max_value=100)))
def test_count_matches(record_property, items):
    record_property("invariant", "${COUNT}")
    assert count(items) == len(items)
${
  ids.includes(TOTAL)
    ? `

@FIXTURE_OK
@given(st.lists(st.integers(min_value=0, max_value=100), max_size=5))
def test_total_non_negative(record_property, items):
    record_property("invariant", "${TOTAL}")
    client = create_app().test_client()
    assert client.get("/total", query_string=[("item", i) for i in items]).json["total"] >= 0
`
    : ''
}`;

const row = (id: string, pending = false) =>
  `  - id: ${id}\n    description: ${id} holds\n${pending ? `    pending: {since: ${TODAY}, owner: Dana Owner, reason: empty bills total -1}\n` : ''}`;

testUnless(missing)(
  'flask app under pre-commit: from the tarball to a proven fix, a rebase judged alike, a frozen flake, the Action',
  () => {
    // The project's python3 first on PATH, as its virtualenv's would be.
    const bin = path.join(tempDir('pw-python-'), 'bin');
    mkdirSync(bin);
    symlinkSync(PYTHON, path.join(bin, 'python3'));
    const p = new Project(
      {
        '.gitignore': 'node_modules/\n*.count\nreplay.json\n__pycache__/\n',
        'pytest.ini': '[pytest]\n',
        '.pre-commit-config.yaml': "# the team's hooks\nrepos: []\n",
        'shop/__init__.py': 'from shop.app import create_app\n\n__all__ = ["create_app"]\n',
        'shop/app.py': APP,
        'shop/bill.py': bill(false),
        'tests/test_app.py':
          'from shop import create_app\n\n\ndef test_total_route():\n    client = create_app().test_client()\n    assert client.get("/total?item=2&item=3").status_code == 200\n',
        'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}`,
        'spec/properties/test_bill.py': property([COUNT]),
      },
      { PATH: `${bin}:${process.env.PATH}`, PRE_COMMIT_HOME: tempDir('pw-pre-commit-home-') },
    );
    ownerSigns(p);

    // Install from the tarball (npm, the README's line), init with the owner's key, doctor clean.
    installVendored(p, ['npm', 'install', '--save-dev', '--no-audit', '--no-fund']);
    const init = p.ok('npx', [
      'patchwarden',
      'init',
      '--yes',
      '--owner-key',
      p.ownerKey,
      '--codeowners',
      '@acme/owners',
    ]);
    assert.match(init.stdout, /\.pre-commit-config\.yaml: added patchwarden's hooks/);
    assert.match(init.stdout, /src zone: shop\/\*\*: 3 files of production code/);
    // The owner passes the gate's seed to Hypothesis, as doctor asks.
    const file = path.join(p.dir, '.patchwarden.yml');
    const config = readFileSync(file, 'utf8');
    assert.match(config, /^ {2}command: python3 -m pytest -q spec\/properties --junitxml=\{junit\}$/m);
    writeFileSync(
      file,
      config.replace(
        'spec/properties --junitxml={junit}',
        'spec/properties --junitxml={junit} --hypothesis-seed=$PROP_SEED',
      ),
    );
    const doctor = p.ok('npx', ['patchwarden', 'doctor']);
    assert.not.match(doctor.stdout, /^PROBLEM/m, doctor.stdout);
    assert.match(doctor.stdout, /^ok +prop-seed: /m, doctor.stdout);
    assert.match(doctor.stdout, /^ok +pre-push: runs through pre-commit/m, doctor.stdout);
    p.ok('git', ['add', '-A']);
    p.ok('git', ['commit', '-q', '-m', 'patchwarden: config, hooks, owner']);
    p.ok('git', ['push', '-q']);
    walk(p, {
      pw: ['npx', 'patchwarden'],
      // The framework needs `pre-commit install` in each clone (docs/hooks.md).
      agentInstall: [
        ['npm', 'ci', '--no-audit', '--no-fund'],
        ['pre-commit', 'install'],
      ],
      ciSetup: [],
      pending: {
        'spec/invariants.yaml': `version: 1\ninvariants:\n${row(COUNT)}${row(TOTAL, true)}`,
        'spec/properties/test_bill.py': property([COUNT, TOTAL]),
      },
      unrelated: {
        'README.md': '# shop\n\nBills and their totals.\n',
        'tests/test_count.py':
          'from shop.bill import count\n\n\ndef test_count_two():\n    assert count([1, 2]) == 2\n',
      },
      draft: { 'shop/currency.py': '"""The shop\'s currency."""\n\nCURRENCY = "EUR"\n' },
      fix: { 'shop/bill.py': bill(true) },
      states: { [COUNT]: 'holds', [TOTAL]: 'fixed' },
      flake: {
        files: { 'tests/test_deadline.py': DEADLINE_FLAKE },
        name: 'test_deadline',
        failNext: (count) => ({ 'tests/deadline.count': count }),
      },
    });
  },
);

test.run();
