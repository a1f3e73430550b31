// Freeze hits kept past the run: the gate writes which row let which failure
// through (`gate --hits FILE`, and the suite layer of its JSON), and `freeze
// list --hits` / `freeze extend --hits` sum them per row, with real pytest.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { gate, NOW, row, sample } from '../gate/sample.js';

const t = testUnless(pytestMissing);
const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider';
const FAILING = 'def skew():\n    return 1\n\n\ndef test_clock():\n    assert skew() == 2, "clock skew"\n';
const out = mkdtempSync(path.join(tmpdir(), 'pw-hits-'));

test.after.each(cleanup);
test.after(() => rmSync(out, { recursive: true, force: true }));

const github = (run: string) => ({
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: run,
  GITHUB_SERVER_URL: 'https://github.example',
  GITHUB_REPOSITORY: 'acme/shop',
});

/** main freezes the clock failure (one row, plus one that never fires); topic changes production code. */
function frozenProject(): { repo: TempRepo; sig: string } {
  const repo = sample(`version: 1\nsuite:\n  command: ${PYTEST} tests --junitxml={junit}\n`, {
    'tests/test_clock.py': FAILING,
  });
  repo.git(['checkout', '-q', 'main']);
  const run = spawnSync('sh', ['-c', `${PYTEST} tests --junitxml=report.xml`], { cwd: repo.dir });
  assert.is(run.status, 1);
  const sig = repo.json(['signatures', 'report.xml']).out.failures[0].sig as string;
  repo.commit(
    {
      'freeze/signatures.yaml': `version: 1\nrecords:\n${row(sig, '    last_name: test_clock\n')}${row('1234567890abcdef')}`,
      '.gitignore': 'report.xml\n',
    },
    'freeze the clock failure',
  );
  repo.git(['checkout', '-q', 'topic']);
  repo.git(['reset', '-q', '--hard', 'main']);
  repo.commit({ 'src/app.js': 'export const a = 2;\n' }, 'code');
  return { repo, sig };
}

t('two gate runs write their hits; freeze list --hits sums them per row', () => {
  const { repo, sig } = frozenProject();
  const files = ['41', '42'].map((id) => {
    const file = path.join(out, `hits-${id}.json`);
    const r = gate(repo, ['--hits', file]);
    assert.is(r.code, 0, JSON.stringify(r.out));
    // The JSON carries the same list.
    assert.equal(
      r.layers.suite.details!.hits.map((h: { sig: string; test: string }) => [h.sig, h.test]),
      [[sig, 'test_clock']],
    );
    return file;
  });
  // Written again under two CI runs: the run is each hit's URL.
  for (const [i, id] of ['41', '42'].entries()) {
    const r = repo.pw(['gate', '--base', 'main', '--hits', files[i]], { env: github(id) });
    assert.is(r.code, 0, r.stdout + r.stderr);
  }
  const written = JSON.parse(readFileSync(files[1], 'utf8'));
  assert.is(written.kind, 'patchwarden-freeze-hits');
  assert.is(written.run, 'https://github.example/acme/shop/actions/runs/42');
  assert.equal(written.hits, [
    { sig, row: 3, test: 'test_clock', run: 'https://github.example/acme/shop/actions/runs/42' },
  ]);

  const listed = repo.json(['freeze', 'list', '--hits', ...files]);
  assert.is(listed.code, 0, listed.stderr);
  const bySig = Object.fromEntries(listed.out.records.map((r: { sig: string }) => [r.sig, r]));
  assert.equal(bySig[sig].fired, { hits: 2, runs: 2, tests: ['test_clock'] });
  assert.equal(bySig['1234567890abcdef'].fired, { hits: 0, runs: 0, tests: [] });
  const text = repo.pw(['freeze', 'list', '--hits', files[0], '--hits', files[1]]);
  assert.match(text.stdout, /2 hits in 2 runs/);
  assert.match(text.stdout, /no hits/);
  assert.match(text.stdout, /hits summed over 2 files/);

  // The gate's own --format json output is read as a hits file too.
  const json = path.join(out, 'gate.json');
  writeFileSync(json, repo.pw(['gate', '--base', 'main', '--format', 'json'], { env: github('43') }).stdout);
  const three = repo.json(['freeze', 'list', '--hits', ...files, json]);
  assert.equal(three.out.records.find((r: { sig: string }) => r.sig === sig).fired.hits, 3);
});

t('freeze extend --hits prints how often the row fired; a bad hits file changes nothing', () => {
  const { repo, sig } = frozenProject();
  const file = path.join(out, 'extend.json');
  assert.is(gate(repo, ['--hits', file]).code, 0);
  const ledger = path.join(repo.dir, 'freeze/signatures.yaml');
  const before = readFileSync(ledger, 'utf8');

  const bad = path.join(out, 'bad.json');
  for (const [content, why] of [
    ['{"not": "hits"', /--hits .*bad\.json: not JSON/],
    ['{"layers": 3}', /neither a file of gate --hits nor the output of gate --format json/],
    ['{"kind": "patchwarden-freeze-hits", "hits": [{"sig": 1}]}', /its hits are not a list of \{sig, row, test, run\}/],
  ] as const) {
    writeFileSync(bad, content);
    const r = repo.pw(['freeze', 'extend', '--sig', sig, '--ttl', '7d', '--hits', bad], {
      env: { PATCHWARDEN_NOW: NOW },
    });
    assert.is(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, why);
    assert.is(readFileSync(ledger, 'utf8'), before, 'nothing written on a bad hits file');
  }

  const r = repo.pw(['freeze', 'extend', '--sig', sig, '--ttl', '7d', '--hits', file], {
    env: { PATCHWARDEN_NOW: NOW },
  });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /it fired 1 hit in 1 run of the 1 hits file read/);
  assert.not.equal(readFileSync(ledger, 'utf8'), before);
});

test.run();
