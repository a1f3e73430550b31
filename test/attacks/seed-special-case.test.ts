// Knowing the inputs in advance: with PROP_SEED pinned, the inputs a property
// draws are known, and a patch can special-case exactly those while the bug
// stays. The gate's revert check runs under a fresh seed (an HMAC of
// PATCHWARDEN_SEED_KEY, the base tree and the production diff's digest, or a
// random one), the same on both sides, printed with the line that replays it;
// the key reaches no child process. Real pytest and node --test, real git,
// the real gate; tamper.mode: off, so the static layer is not what holds.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sh, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';

test.after.each(cleanup);
const py = testUnless(pytestMissing);

const KEY = 'ci-secret-7f3a';
const PYTEST = 'python3 -B -m pytest -q -p no:cacheprovider spec --junitxml={junit}';
const BUGGY = 'def double(x):\n    return 2 * x + (x % 2)\n';
const FIXED = 'def double(x):\n    return 2 * x\n';

/** The 20 inputs the property draws under the pinned seed, as Python draws them. */
function pinnedInputs(): number[] {
  const r = sh('python3', [
    '-c',
    'import random; r = random.Random(0); print(sorted({r.randint(0, 10**6) for _ in range(20)}))',
  ]);
  return JSON.parse(r.stdout);
}

/** The patch: right for exactly the pinned inputs, the bug kept for every other odd one. */
const specialCasing = (inputs: number[]) =>
  `_CHECKED = {${inputs.join(', ')}}\n\n\ndef double(x):\n    if x in _CHECKED:\n        return 2 * x\n    return 2 * x + (x % 2)\n`;

/** A property drawing 20 inputs from PROP_SEED; it writes the environment it got to `envDir` (outside the tree). */
function property(envDir: string): string {
  return [
    'import json, os, random',
    'from calc import double',
    '',
    '',
    'def test_double(record_property):',
    '    record_property("invariant", "double.exact")',
    `    with open(os.path.join(${JSON.stringify(envDir)}, os.environ["PATCHWARDEN_SIDE"] + ".json"), "w") as f:`,
    '        json.dump(dict(os.environ), f)',
    '    rng = random.Random(int(os.environ["PROP_SEED"]))',
    '    for _ in range(20):',
    '        x = rng.randint(0, 10**6)',
    '        assert double(x) == 2 * x, x',
    '',
  ].join('\n');
}

/** main: a base whose double is wrong for odd inputs, the invariant marked pending; topic: `patch`. */
function project(patch: string, envDir: string): TempRepo {
  const repo = tempRepo({ env: { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' } });
  repo.commit(
    {
      '.patchwarden.yml': `version: 1\nproperties:\n  command: ${PYTEST}\nsuite:\n  command: ${PYTEST.replace(' spec ', ' tests ')}\ntamper:\n  mode: off\n`,
      'pytest.ini': '[pytest]\npythonpath = src\n',
      'spec/invariants.yaml':
        'version: 1\ninvariants:\n  - id: double.exact\n    description: double is twice its input\n    pending: {since: 2026-12-01, owner: qa-team, reason: odd inputs are off by one}\n',
      'spec/test_double.py': property(envDir),
      'tests/test_env.py': `import json, os\n\n\ndef test_env():\n    with open(os.path.join(${JSON.stringify(envDir)}, "suite.json"), "w") as f:\n        json.dump(dict(os.environ), f)\n`,
      'src/calc.py': BUGGY,
    },
    'base',
  );
  repo.git(['checkout', '-q', '-b', 'topic']);
  repo.commit({ 'src/calc.py': patch }, 'fix double');
  return repo;
}

function layers(out: Record<string, any>): Record<string, any> {
  return Object.fromEntries(out.layers.map((l: { layer: string }) => [l.layer, l]));
}

/** The seed as docs/gate.md says it is derived, computed here on its own. */
function expectedSeed(repo: TempRepo): string {
  const tree = repo.git(['rev-parse', 'main^{tree}']).stdout.trim();
  const raw = repo.git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--abbrev=40', 'main', 'topic', '--', 'src']);
  const parts = raw.stdout.split('\0').filter(Boolean);
  const lines: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const [oldMode, newMode, oldOid, newOid] = parts[i].slice(1).split(' ');
    lines.push(`${parts[i + 1]}\0${oldMode} ${oldOid} ${newMode} ${newOid}\n`);
  }
  const digest = createHash('sha256').update(lines.sort().join('')).digest('hex');
  const mac = createHmac('sha256', KEY).update(`patchwarden-prop-seed\0${tree}\0${digest}`).digest();
  return String((mac.readUInt32BE(0) % 0x7fffffff) + 1);
}

function envDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'pw-seed-env-'));
}

py('pinned seed: the revert check (as pre-push runs it) takes a patch that special-cases the pinned inputs', () => {
  const dir = envDir();
  try {
    const repo = project(specialCasing(pinnedInputs()), dir);
    const r = repo.json(['revert-check', '--base', 'main']);
    assert.is(r.out.status, 'describes_patch', r.stderr);
    assert.is(r.code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

py(
  'gate with PATCHWARDEN_SEED_KEY: the special-casing patch is refused; the seed is derived, printed, replayable; the key reaches no child',
  () => {
    const dir = envDir();
    try {
      const repo = project(specialCasing(pinnedInputs()), dir);
      const r = repo.json(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } });
      const l = layers(r.out);
      assert.is(r.code, 1, r.stderr);
      assert.is(l.revert.status, 'refused', JSON.stringify(l.revert));
      assert.match(l.revert.violations[0].message, /does_not_describe/);
      const seed = l.properties.details.seed;
      assert.is(seed.source, 'keyed');
      assert.is(seed.pinned, '0');
      assert.is(seed.value, expectedSeed(repo));
      assert.is(l.properties.details.env.PROP_SEED, seed.value);
      // Both sides ran under it, and neither (nor the suite) saw the key.
      const seen = Object.fromEntries(
        readdirSync(dir).map((f) => [f.replace('.json', ''), JSON.parse(readFileSync(path.join(dir, f), 'utf8'))]),
      );
      assert.equal(Object.keys(seen).sort(), ['base', 'head', 'suite']);
      assert.is(seen.head.PROP_SEED, seed.value);
      assert.is(seen.base.PROP_SEED, seed.value);
      assert.is(seen.suite.PROP_SEED, '0');
      for (const env of Object.values(seen)) {
        assert.not.ok('PATCHWARDEN_SEED_KEY' in env);
        assert.not.ok(Object.values(env as Record<string, string>).some((v) => v.includes(KEY)));
      }
      // The same key, base and diff: the same seed, printed in the text with the line that replays it.
      const text = repo.pw(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } });
      assert.ok(text.stdout.includes(`PROP_SEED=${seed.value} (derived from PATCHWARDEN_SEED_KEY`), text.stdout);
      const main = repo.git(['rev-parse', 'main']).stdout.trim();
      const replay = `git checkout --detach ${repo.head()} && patchwarden gate --base ${main} --seed ${seed.value}`;
      assert.ok(text.stdout.includes(replay), text.stdout);
      assert.is(seed.replay, replay);
      // The replay, with no key at all: the same seed, the same verdict.
      const again = repo.json(['gate', '--base', main, '--seed', seed.value]);
      const la = layers(again.out);
      assert.equal(la.properties.details.seed.value, seed.value);
      assert.is(la.properties.details.seed.source, 'given');
      assert.is(la.revert.status, 'refused');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

py('gate with a key: an honest fix passes, under another seed than the special-casing diff', () => {
  const dir = envDir();
  try {
    const attack = project(specialCasing(pinnedInputs()), dir);
    const honest = project(FIXED, dir);
    const a = layers(attack.json(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } }).out);
    const r = honest.json(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } });
    const h = layers(r.out);
    assert.is(r.code, 0, JSON.stringify(h));
    assert.is(h.revert.details.status, 'describes_patch');
    assert.is(h.properties.details.seed.source, 'keyed');
    assert.is.not(h.properties.details.seed.value, a.properties.details.seed.value);
    assert.is(h.properties.details.seed.value, expectedSeed(honest));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

py('gate without a key: a random seed for each run refuses the special-casing patch', () => {
  const dir = envDir();
  try {
    const repo = project(specialCasing(pinnedInputs()), dir);
    const r = repo.json(['gate', '--base', 'main']);
    const l = layers(r.out);
    assert.is(r.code, 1, r.stderr);
    assert.is(l.properties.details.seed.source, 'random');
    assert.is.not(l.properties.details.seed.value, '0');
    assert.is(l.revert.status, 'refused');
    assert.match(r.stderr, /PATCHWARDEN_SEED_KEY is not set/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A seeded generator (mulberry32), the property's and the test's own. */
const MULBERRY = `function generator(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}`;

const NODE_PROPERTY = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { double } from '../src/calc.mjs';

${MULBERRY}

test('double is twice its input [invariant:double.exact]', () => {
  const next = generator(Number(process.env.PROP_SEED));
  for (let i = 0; i < 20; i++) {
    const x = Math.floor(next() * 1e6);
    assert.equal(double(x), 2 * x, String(x));
  }
});
`;

function nodePinnedInputs(): number[] {
  const r = sh(process.execPath, [
    '--input-type=module',
    '-e',
    `${MULBERRY}\nconst next = generator(0);\nconsole.log(JSON.stringify(Array.from({ length: 20 }, () => Math.floor(next() * 1e6))));`,
  ]);
  return JSON.parse(r.stdout);
}

test("node --test: a seeded generator's pinned inputs special-cased pass pinned, and are refused by the keyed gate", () => {
  const repo = tempRepo({ env: { PATCHWARDEN_NOW: '2026-12-02T00:00:00Z' } });
  repo.commit(
    {
      '.patchwarden.yml': `version: 1\nproperties:\n  command: node --test --test-reporter=junit --test-reporter-destination={junit} spec/\ntamper:\n  mode: off\n`,
      'spec/invariants.yaml':
        'version: 1\ninvariants:\n  - id: double.exact\n    description: double is twice its input\n    pending: {since: 2026-12-01, owner: qa-team, reason: odd inputs are off by one}\n',
      'spec/double.test.mjs': NODE_PROPERTY,
      'src/calc.mjs': 'export const double = (x) => 2 * x + (x % 2);\n',
    },
    'base',
  );
  repo.git(['checkout', '-q', '-b', 'topic']);
  const inputs = nodePinnedInputs();
  assert.is(inputs.length, 20);
  repo.commit(
    {
      'src/calc.mjs': `const CHECKED = new Set([${inputs.join(', ')}]);\nexport const double = (x) => (CHECKED.has(x) ? 2 * x : 2 * x + (x % 2));\n`,
    },
    'fix double',
  );
  const pinned = repo.json(['revert-check', '--base', 'main']);
  assert.is(pinned.out.status, 'describes_patch', pinned.stderr);
  const r = repo.json(['gate', '--base', 'main'], { env: { PATCHWARDEN_SEED_KEY: KEY } });
  const l = layers(r.out);
  assert.is(r.code, 1, r.stderr);
  assert.is(l.properties.details.seed.source, 'keyed');
  assert.is(l.properties.details.seed.value, expectedSeed(repo));
  assert.is(l.revert.status, 'refused');
  assert.match(l.revert.violations[0].message, /does_not_describe/);
});

test.run();
