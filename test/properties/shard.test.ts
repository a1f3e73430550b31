// The revert check over a CI matrix: the recipe's commands run as a local
// matrix of processes (each side, each shard, at once), then --merge, with
// real pytest (sharded by the guard's plugin) and real node --test (sharded
// by --test-shard={shard}). The merged verdict must equal the unsplit check
// case by case; a merge of parts that do not make one check is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, cleanup, tempRepo, type TempRepo } from '../helpers/repo.js';
import { pytestMissing, testUnless } from '../helpers/skip.js';
import { config, registry } from './projects.js';

const IDS = ['bill.a', 'bill.b', 'bill.c', 'bill.d'];
const PYTEST_SHARDED =
  'PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider spec/properties --junitxml={junit}';
const NODE_SHARDED =
  'node --test --test-shard={shard} --test-reporter=junit --test-reporter-destination={junit} spec/properties/';

function pyCase(id: string, fixed: boolean): string {
  const check = fixed ? 'total([1, 2]) == 3' : 'total([]) >= 0';
  return `from bill import total\n\ndef test_case(record_property):\n    record_property("invariant", "${id}")\n    assert ${check}\n`;
}

function jsCase(id: string, fixed: boolean): string {
  const check = fixed ? 'total([1, 2]) === 3' : 'total([]) >= -1';
  return `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../../src/bill.mjs';\n\ntest('case [invariant:${id}]', () => {\n  assert.ok(${check});\n});\n`;
}

/** Four invariants in four files; the patch fixes the first. `split` puts bill.b's cases in two files. */
function matrixProject(
  kind: 'py' | 'js',
  split = false,
  sealed?: string,
): { repo: TempRepo; base: string; head: string } {
  const repo = tempRepo();
  repo.git(['config', 'user.email', 'dev@example.com']);
  repo.git(['config', 'user.name', 'dev']);
  const files: Record<string, string> = {
    '.patchwarden.yml': config(kind === 'py' ? PYTEST_SHARDED : NODE_SHARDED, sealed ? `  sealed: ${sealed}\n` : ''),
    'spec/invariants.yaml': registry(...IDS),
  };
  IDS.forEach((id, i) => {
    files[kind === 'py' ? `spec/properties/test_${i}.py` : `spec/properties/p${i}.test.mjs`] =
      kind === 'py' ? pyCase(id, i === 0) : jsCase(id, i === 0);
  });
  if (split)
    files[kind === 'py' ? 'spec/properties/test_4.py' : 'spec/properties/p4.test.mjs'] =
      kind === 'py' ? pyCase('bill.b', false) : jsCase('bill.b', false);
  if (kind === 'py') {
    files['spec/properties/conftest.py'] =
      'import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))\n';
    files['src/bill.py'] = 'def total(xs):\n    return sum(xs) - 1 if xs else 0\n';
  } else files['src/bill.mjs'] = 'export const total = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) - 1 : 0);\n';
  const base = repo.commit(files, 'base');
  const head = repo.commit(
    kind === 'py'
      ? { 'src/bill.py': 'def total(xs):\n    return sum(xs)\n' }
      : { 'src/bill.mjs': 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n' },
    'fix total',
  );
  return { repo, base, head };
}

function pwAsync(
  repo: TempRepo,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: repo.dir, env: { ...repo.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    child.stdout.resume();
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

/** The recipe's matrix: every side and shard at once, each writing its part. */
async function matrix(repo: TempRepo, base: string, head: string, n: number, env: NodeJS.ProcessEnv = {}) {
  const parts: string[] = [];
  const jobs = ['head', 'base'].flatMap((side) =>
    Array.from({ length: n }, (_, i) => {
      const out = path.join(repo.dir, '.git', `part-${side}-${i + 1}.json`);
      parts.push(out);
      const args = [
        'revert-check',
        '--base',
        base,
        '--head',
        head,
        '--side',
        side,
        '--shard',
        `${i + 1}/${n}`,
        '--out',
        out,
      ];
      return pwAsync(repo, args, env);
    }),
  );
  for (const r of await Promise.all(jobs)) assert.is(r.code, 0, r.stderr);
  return parts;
}

/** Each case's name and state, per invariant. */
function caseStates(out: Record<string, any>): string {
  return JSON.stringify(out.states.map((i: any) => [i.id, i.state, i.cases]));
}

function equalToUnsplit(kind: 'py' | 'js', n: number) {
  return async () => {
    const { repo, base, head } = matrixProject(kind);
    const whole = repo.json(['revert-check', '--base', base, '--head', head]);
    assert.is(whole.out.status, 'describes_patch', whole.stderr);
    const parts = await matrix(repo, base, head, n);
    const merged = repo.json(['revert-check', '--merge', ...parts]);
    assert.is(merged.code, 0, merged.stderr);
    assert.is(merged.out.status, whole.out.status);
    assert.equal(merged.out.failing_on_revert, ['bill.a']);
    assert.is(caseStates(merged.out), caseStates(whole.out));
    // Every shard ran a share: no part holds every invariant's cases.
    for (const p of parts) {
      const part = JSON.parse(readFileSync(p, 'utf8'));
      const held = part.run.mapping.invariants.filter((i: any) => i.outcomes.length).length;
      assert.ok(held < IDS.length, `${p} ran every invariant`);
    }
  };
}

testUnless(pytestMissing)(
  'pytest: a four-shard matrix merged equals the unsplit check, case by case',
  equalToUnsplit('py', 4),
);

test('node --test: a four-shard matrix merged equals the unsplit check, case by case', equalToUnsplit('js', 4));

testUnless(pytestMissing)(
  '--merge refuses a missing shard, a duplicated invariant and parts of another base',
  async () => {
    const { repo, base, head } = matrixProject('py');
    const parts = await matrix(repo, base, head, 2);
    const missing = repo.json(['revert-check', '--merge', ...parts.filter((p) => !p.endsWith('base-2.json'))]);
    assert.is(missing.code, 2);
    assert.match(missing.out.error ?? missing.stderr, /side base lacks shard 2\/2/);
    const twice = repo.json(['revert-check', '--merge', ...parts, parts[0]]);
    assert.is(twice.code, 2);
    assert.match(twice.out.error ?? twice.stderr, /side head has shard 1\/2 twice/);
    // A part from another base: the base of the base.
    const other = path.join(repo.dir, '.git', 'other.json');
    const older = repo.commit({ 'README.md': 'x\n' }, 'docs');
    const r = await pwAsync(repo, [
      'revert-check',
      '--base',
      older,
      '--head',
      older,
      '--side',
      'base',
      '--shard',
      '2/2',
      '--out',
      other,
    ]);
    assert.is(r.code, 0, r.stderr);
    const mixed = repo.json(['revert-check', '--merge', ...parts.filter((p) => !p.endsWith('base-2.json')), other]);
    assert.is(mixed.code, 2);
    assert.match(mixed.out.error ?? mixed.stderr, /the parts disagree on base/);

    const split = matrixProject('py', true);
    const splitParts = await matrix(split.repo, split.base, split.head, 2);
    const dup = split.repo.json(['revert-check', '--merge', ...splitParts]);
    assert.is(dup.code, 2);
    assert.match(dup.out.error ?? dup.stderr, /invariant bill\.b has cases in shards 1\/2 and 2\/2/);
  },
);

testUnless(pytestMissing)('parts edited by hand: a changed seed is refused; under the key any edit is', async () => {
  const { repo, base, head } = matrixProject('py');
  const parts = await matrix(repo, base, head, 2);
  const edit = (file: string, change: (p: any) => void) => {
    const part = JSON.parse(readFileSync(file, 'utf8'));
    change(part);
    writeFileSync(file, JSON.stringify(part));
  };
  edit(parts[3], (p) => (p.seed = '4242'));
  const seed = repo.json(['revert-check', '--merge', ...parts]);
  assert.is(seed.code, 2);
  assert.match(seed.out.error ?? seed.stderr, /the parts disagree on seed/);

  const key = { PATCHWARDEN_SEED_KEY: 'matrix-secret' };
  const signed = await matrix(repo, base, head, 2, key);
  const ok = repo.json(['revert-check', '--merge', ...signed], { env: key });
  assert.is(ok.code, 0, ok.stderr);
  assert.is(ok.out.status, 'describes_patch');
  // Turn the fixed case into a pass on the reverted side: the verdict would change.
  const reverted = signed.find(
    (p) => JSON.parse(readFileSync(p, 'utf8')).run.mapping.invariants[0].outcomes.length && p.includes('base'),
  )!;
  edit(reverted, (p) => {
    for (const o of p.run.mapping.invariants[0].outcomes) o.outcome = 'passed';
  });
  const forged = repo.json(['revert-check', '--merge', ...signed], { env: key });
  assert.is(forged.code, 2);
  assert.match(forged.out.error ?? forged.stderr, /does not carry a valid HMAC/);
  const unsigned = repo.json(['revert-check', '--merge', ...parts.slice(0, 3)], { env: key });
  assert.is(unsigned.code, 2);
});

test("--merge says the sealed mode in its text too: the weakest of the parts' runs", async () => {
  const { repo, base, head } = matrixProject('js', false, 'process');
  const parts = await matrix(repo, base, head, 2);
  const json = repo.json(['revert-check', '--merge', ...parts]);
  assert.is(json.code, 0, json.stderr);
  assert.is(json.out.sealed, 'process');
  const text = repo.pw(['revert-check', '--merge', ...parts]);
  assert.is(text.code, 0, text.stdout + text.stderr);
  assert.match(
    text.stdout,
    /patchwarden: sealed: process \(the weakest of the parts' runs: production code ran in a worker the runtime guard watches/,
  );
  // One part that ran unsealed makes the whole merge say off.
  const part = JSON.parse(readFileSync(parts[1], 'utf8'));
  part.run.sealed = 'off';
  writeFileSync(parts[1], JSON.stringify(part));
  assert.match(repo.pw(['revert-check', '--merge', ...parts]).stdout, /patchwarden: sealed: off \(the weakest/);
});

test.after(cleanup);
test.run();
