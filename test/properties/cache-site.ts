// The projects the revert cache's tests check: a pytest and a node:test
// property of one invariant whose every case appends its side and name to a
// log the test names ($SIDES_LOG), so which cases ran on which side is read
// from outside the trees; and one check of such a project, with that log.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { landlockProbe } from '../../src/properties/sealed/confine.js';
import { PROJECT, type TempRepo } from '../helpers/repo.js';
import { config, NODE_TEST, project, PYTEST, registry } from './projects.js';

export const ID = 'bill.total_non_negative';

/**
 * Logs its side to $SIDES_LOG; fails on the base side while $FLAKE names a
 * file that exists; in the head run, when $FORGE_READY is set, marks it and
 * waits for $FORGE_DONE (a same-user process writes meanwhile).
 */
export const PROPERTY = `import os, time
from bill import total


def _log(name):
    side = os.environ.get("PATCHWARDEN_SIDE")
    with open(os.environ["SIDES_LOG"], "a") as log:
        log.write("%s %s\\n" % (side, name))
    return side


def test_total_non_negative(record_property):
    record_property("invariant", "${ID}")
    side = _log("test_total_non_negative")
    if side == "head" and os.environ.get("FORGE_READY"):
        open(os.environ["FORGE_READY"], "w").close()
        for _ in range(600):
            if os.path.exists(os.environ["FORGE_DONE"]):
                break
            time.sleep(0.05)
    flake = os.environ.get("FLAKE")
    assert not (side == "base" and flake and os.path.exists(flake)), "flaky on the base"
    for xs in ([], [1, 2], [0, 5]):
        assert total(xs) >= 0


def test_total_of_one(record_property):
    record_property("invariant", "${ID}")
    _log("test_total_of_one")
    assert total([5]) >= 0
`;

const scratch: string[] = [];

/** A temporary folder, removed by dropTemps. */
export function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'pw-cache-'));
  scratch.push(d);
  return d;
}

/** Removes the folders tempDir made. */
export function dropTemps(): void {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function pyProject(baseSrc: string, headSrc: string, extra = '') {
  return project(
    {
      '.patchwarden.yml': config(PYTEST, extra),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/test_bill.py': PROPERTY,
      'src/bill.py': baseSrc,
    },
    { 'src/bill.py': headSrc },
  );
}

/** One check: its JSON, stderr, and the sides that ran, in order. */
export function check(repo: TempRepo, base: string, head: string, env: NodeJS.ProcessEnv = {}) {
  const log = path.join(tempDir(), 'sides.log');
  const r = repo.json(['revert-check', '--base', base, '--head', head], { env: { SIDES_LOG: log, ...env } });
  const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  return { ...r, lines, sides: [...new Set(lines.map((l) => l.split(' ')[0]))] };
}

export const cacheDir = (repo: TempRepo) => path.join(repo.dir, '.git/patchwarden/revert-cache');
export const entries = (repo: TempRepo) => readdirSync(cacheDir(repo)).filter((n) => n !== 'index.json');

/**
 * Three node:test cases of ID, one in a describe block; each appends its side
 * and name to $SIDES_LOG as it runs (sends it to the collector on
 * $COLLECTOR_PORT where that is set), and "never negative" fails on the base
 * side while $FLAKE names a file that exists.
 */
/**
 * A base that fails once (while the FLAKE file exists) and then passes: the
 * first check reads the case as fixed, the second must not. Returns the
 * second check, for what each caller asserts of what ran fresh.
 */
export function flakyTwice({ repo, base, head }: { repo: TempRepo; base: string; head: string }) {
  const flake = path.join(tempDir(), 'flake');
  writeFileSync(flake, '');
  const first = check(repo, base, head, { FLAKE: flake });
  assert.is(first.out.status, 'describes_patch', 'the flaky failure reads as fixed the first time');
  rmSync(flake);
  const second = check(repo, base, head, { FLAKE: flake });
  assert.is(second.out.status, 'does_not_describe', second.stderr);
  return second;
}

export const NODE_PROPERTY = `import { appendFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../../src/bill.mjs';

// Fenced (revert.jobs: 2) a side writes nothing outside its tree: the line goes to the test's collector.
const log = async (name) => {
  const side = process.env.PATCHWARDEN_SIDE;
  const line = side + ' ' + name + '\\n';
  if (!process.env.COLLECTOR_PORT) appendFileSync(process.env.SIDES_LOG, line);
  else
    await new Promise((resolve, reject) => {
      const s = net.connect(Number(process.env.COLLECTOR_PORT), '127.0.0.1', () => s.end(line));
      s.on('close', resolve);
      s.on('error', reject);
    });
  return side;
};

test('never negative [invariant:${ID}]', async () => {
  const side = await log('never negative');
  const flake = process.env.FLAKE;
  assert.ok(!(side === 'base' && flake && existsSync(flake)), 'flaky on the base');
  for (const xs of [[], [1, 2], [0, 5], [-3]]) assert.ok(total(xs) >= 0);
});

test('total of one [invariant:${ID}]', async () => {
  await log('total of one');
  assert.ok(total([5]) >= 0);
});

describe('sums', () => {
  it('of two [invariant:${ID}]', async () => {
    await log('of two');
    assert.ok(total([1, 2]) >= 0);
  });
});
`;
export const CLAMPED_JS = 'export const total = (xs) => Math.max(0, xs.reduce((a, b) => a + b, 0));\n';
export const CLAMPED_AGAIN_JS = 'export const total = (xs) => Math.max(0, [...xs].reduce((a, b) => a + b, 0));\n';
export const SUM_JS = 'export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n';

export function nodeProject(baseSrc: string, headSrc: string, extra = '') {
  return project(
    {
      '.patchwarden.yml': config(NODE_TEST, extra),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.mjs': NODE_PROPERTY,
      'src/bill.mjs': baseSrc,
      'package.json': '{"type":"module"}\n',
    },
    { 'src/bill.mjs': headSrc },
  );
}

export const baseLines = (r: { lines: string[] }) => r.lines.filter((l) => l.startsWith('base'));

export const kernelMissing =
  landlockProbe(readFileSync(path.join(PROJECT, 'src/properties/sealed/confine.py'), 'utf8')).abi > 0
    ? null
    : 'Landlock is not available on this kernel: kernel sealing cannot run';
