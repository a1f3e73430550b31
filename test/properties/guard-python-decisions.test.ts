// The Python runtime guard's decisions, called one by one with real paths and
// real frames (guard_python_decisions.py, beside this file): one pytest run of
// that file, which must collect every case and pass them all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pytestMissing, testUnless } from '../helpers/skip.js';

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'guard_python_decisions.py');
const py = testUnless(pytestMissing);

py('each decision of the Python guard refuses its case and lets its honest case pass', () => {
  const cases = readFileSync(FILE, 'utf8').match(/^def test_/gm)?.length ?? 0;
  const cwd = mkdtempSync(path.join(tmpdir(), 'patchwarden-guard-decisions-'));
  try {
    const r = spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--color=no', FILE], {
      cwd,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      encoding: 'utf8',
    });
    const out = `${r.stdout}${r.stderr}`;
    assert.is(r.status, 0, out);
    assert.ok(cases > 10, `only ${cases} cases found in ${FILE}`);
    assert.match(out, new RegExp(`\\b${cases} passed\\b`), out);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test.run();
