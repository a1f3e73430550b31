// A sealed node run in process mode: the runtime guard stays in the property
// process and in the worker (the worker's environment carries its
// NODE_OPTIONS preload and PATCHWARDEN_GUARD). The sealed runtime's own acts
// (starting the worker, the worker ending when its channel closes) are the
// runner's, not production code's; Node's module hooks thread, which sealing
// and tsx both start, is no process the guard waits on. An honest property
// passes with no finding, a red one stays red, and production code ending
// the worker is still a finding. Real node --test, the real guard.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type GuardSources, openGuard } from '../../src/properties/guard/session.js';
import { propertyRunEnv } from '../../src/properties/runenv.js';
import { guardSources } from '../../scripts/guard-preload.mjs';
import { PROJECT, sh } from '../helpers/repo.js';
import { cleanupSealed, SealedProject, statusOf } from './sealed-node-site.js';

test.after.each(cleanupSealed);

const SOURCES: GuardSources = await guardSources();

const SPEC =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { total } from '../src/bill.mjs';\ntest('total', () => { assert.equal(total([1, 2]), 3); });\n";

/** A guarded run of the spec, sealed in process mode unless `sealed` is false; its result and the guard's problems. */
async function guarded(src: string, opts: { sealed?: boolean; nodeOptions?: string } = {}) {
  const p = new SealedProject({
    'package.json': '{"type":"module"}\n',
    'src/bill.mjs': src,
    'spec/bill.test.mjs': SPEC,
  });
  const tmp = path.join(p.private, 'tmp');
  mkdirSync(tmp);
  const guard = openGuard(
    {
      tree: p.dir,
      main: null,
      trusted: ['package.json', 'spec/bill.test.mjs'],
      writable: [tmp, p.dir],
      runtime: p.private,
    },
    SOURCES,
  );
  try {
    const run = propertyRunEnv(tmp, path.join(tmp, 'gocache'), guard, {});
    const nodeOptions = [run.NODE_OPTIONS, opts.nodeOptions].filter(Boolean).join(' ');
    const r = p.run(['spec/bill.test.mjs'], {
      sealed: opts.sealed,
      env: { NODE_OPTIONS: nodeOptions, PATCHWARDEN_GUARD: run.PATCHWARDEN_GUARD },
      workerEnv: { NODE_OPTIONS: run.NODE_OPTIONS ?? '', PATCHWARDEN_GUARD: run.PATCHWARDEN_GUARD ?? '' },
    });
    const { problems } = await guard.finish();
    return { r, problems };
  } finally {
    guard.dispose();
  }
}

test('process mode: an honest property passes with the guard in both processes and no finding', async () => {
  const { r, problems } = await guarded('export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n');
  assert.is(statusOf(r, 'total'), 'passed', r.out);
  assert.equal(problems, []);
});

test('process mode: a red property stays red, and is no finding', async () => {
  const { r, problems } = await guarded('export const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n');
  assert.is(statusOf(r, 'total'), 'failed', r.out);
  assert.equal(problems, []);
});

test("process mode: production code's process.exit in the worker is the guard's finding, and the property stays red", async () => {
  const { r, problems } = await guarded('export const total = (xs) => process.exit(0);\n');
  assert.is(statusOf(r, 'total'), 'failed', r.out);
  assert.ok(
    problems.some((x) => /runtime guard: process\.exit at src\/bill\.mjs:1/.test(x)),
    problems.join('\n'),
  );
});

test("unsealed: tsx's module hooks thread is not a process that ended without the guard's final record", async () => {
  const tsx = path.join(PROJECT, 'node_modules/tsx/dist/esm/index.mjs');
  const check = sh(process.execPath, ['-e', `require('node:fs').accessSync(${JSON.stringify(tsx)})`]);
  assert.is(check.code, 0, 'tsx is a dependency of this project');
  const { r, problems } = await guarded('export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n', {
    sealed: false,
    nodeOptions: `--import ${tsx}`,
  });
  assert.is(statusOf(r, 'total'), 'passed', r.out);
  assert.equal(problems, []);
});

test.run();
