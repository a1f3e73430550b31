// The layer check run as `npm run lint:layers` does: it passes on the tree,
// and on a temporary copy of src/ it fails on an import that climbs, on a
// folder cycle and on a folder the order does not name.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT, sh } from '../helpers/repo.js';

const SCRIPT = path.join(PROJECT, 'scripts/layers.mjs');

function copyOfSrc(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pw-layers-'));
  cpSync(path.join(PROJECT, 'src'), path.join(root, 'src'), { recursive: true });
  return root;
}

function prepend(root: string, file: string, line: string): void {
  const p = path.join(root, 'src', file);
  writeFileSync(p, `${line}\n${readFileSync(p, 'utf8')}`);
}

test('the tree passes: imports run downward only', () => {
  const r = sh(process.execPath, [SCRIPT], { cwd: PROJECT });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /imports run downward only/);
});

test('an upward import from a rule into the outer layer fails, named with its file', () => {
  const root = copyOfSrc();
  try {
    prepend(root, 'owners/rule.ts', "import { parseRefLines } from '../hooks/ref-lines.js';");
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(
      r.stderr,
      "src/owners/rule.ts imports '../hooks/ref-lines.js': owners/ may not import hooks/, which sits above it",
    );
    assert.match(r.stderr, /folder cycle: .*hooks.*owners/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a dynamic or type-only import that climbs fails as well', () => {
  const root = copyOfSrc();
  try {
    prepend(root, 'git/run.ts', "type C = typeof import('../config/schema.js');");
    prepend(root, 'zones/glob.ts', "import type { Config } from '../config/schema.js';");
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(r.stderr, 'git/ may not import config/');
    assert.match(r.stderr, 'zones/ may not import config/');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a folder the order does not name fails until it is placed', () => {
  const root = copyOfSrc();
  try {
    mkdirSync(path.join(root, 'src/extra'));
    writeFileSync(path.join(root, 'src/extra/a.ts'), 'export const a = 1;\n');
    const r = sh(process.execPath, [SCRIPT, root]);
    assert.is(r.code, 1);
    assert.match(r.stderr, 'src/extra/ is not in the layer order');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
