// The Node runtime guard against production code that leaves the test alone
// and reaches what judges it instead, with the static layer off
// (`tamper.mode: off`): the assertion module the property asserts with, the
// report's folder, a shell that rewrites the report, and the IPC a worker
// sends its results over. Each patch leaves the bug in; each attack turned the
// red property green before the guard covered its route, and each is refused
// now, naming the route and the file and line. Real runners from the
// project's node_modules (and node's own), real git.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, PROJECT } from '../helpers/repo.js';
import { testUnless } from '../helpers/skip.js';
import { config, jsProperty, NODE_TEST, project, registry } from '../properties/projects.js';

const ID = 'bill.total_non_negative';
const BIN = (p: string) => path.join(PROJECT, 'node_modules', p);
const MOCHA = BIN('mocha/bin/mocha.js');
const VITEST = BIN('vitest/vitest.mjs');
const cases = 'for (const xs of [[], [1, 2], [0, 5]])';
const PACKAGE = '{"name":"bill","private":true,"type":"module"}\n';

/** src/bill.js: `prelude`, then total() with the bug left in. */
const buggy = (prelude: string) => `${prelude}\nexport const total = (xs) => xs.reduce((a, b) => a + b, 0) - 1;\n`;

function refused(command: string, property: string, patch: string): string {
  const { repo, base, head } = project(
    {
      '.patchwarden.yml': config(command, 'tamper:\n  mode: off\n'),
      'spec/invariants.yaml': registry(ID),
      'spec/properties/bill.test.js': property,
      'src/bill.js': buggy(''),
      'package.json': PACKAGE,
    },
    { 'src/bill.js': patch },
  );
  const out = repo.json(['revert-check', '--base', base, '--head', head]);
  assert.is(out.code, 1, out.stderr);
  assert.is(out.out.status, 'fails_on_head', out.out.reason);
  assert.match(out.out.reason, /the runtime guard refused the run/);
  return out.out.reason as string;
}

test.after.each(cleanup);

const withMocha = testUnless(existsSync(MOCHA) ? null : 'mocha is not installed in node_modules (npm ci)');
const mocha = {
  command: `node ${MOCHA} --reporter xunit --reporter-option output={junit} spec/properties`,
  property: `import assert from 'node:assert/strict';\nimport { total } from '../../src/bill.js';\n\nit('total is never negative [invariant:${ID}]', () => {\n  ${cases} assert.ok(total(xs) >= 0);\n});\n`,
};

// node:test and mocha properties assert with node:assert: replaced, every case passes.
const noAssert = buggy("import assert from 'node:assert/strict';\nassert.ok = () => {};");
test("node --test: production code replacing node:assert's ok: refused", () => {
  const reason = refused(NODE_TEST, jsProperty(ID, 'bill.js'), noAssert);
  assert.match(reason, /runtime guard: assert\.strict\.ok replaced at src\/bill\.js:2: ok = /, reason);
});
withMocha("mocha: production code replacing node:assert's ok: refused", () => {
  const reason = refused(mocha.command, mocha.property, noAssert);
  assert.match(reason, /runtime guard: assert\.strict\.ok replaced at src\/bill\.js:2: ok = /, reason);
});

// mocha writes its report and exit code in the process production code runs
// in. An exit listener added once mocha has set its own (at beforeExit) runs
// last: it sets the exit code to 0 and puts a report without the failure in
// place through a route the report's own path never names.
const atExit = (rewrite: string) =>
  buggy(`import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
const forge = () => {
  const report = process.env.PATCHWARDEN_JUNIT;
  const xml = fs.readFileSync(report, 'utf8').replace(/<failure[\\s\\S]*?<\\/failure>/g, '').replace(/failures="\\d+"/g, 'failures="0"');
  ${rewrite}
  process.exitCode = 0;
};
process.once('beforeExit', () => process.on('exit', forge));`);

withMocha('mocha: the report rewritten at exit by a shell, exit code 0: refused at the process start', () => {
  const patch = atExit(`execFileSync('sh', ['-c', 'cat > "$PATCHWARDEN_JUNIT"'], { input: xml });`);
  const reason = refused(mocha.command, mocha.property, patch);
  assert.match(reason, /runtime guard: child_process\.execFileSync at src\/bill\.js:8: execFileSync\(sh/, reason);
});

withMocha("mocha: the report's folder swapped for a forged one at exit, exit code 0: refused at the rename", () => {
  const patch = atExit(`const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forged-'));
  fs.writeFileSync(path.join(dir, path.basename(report)), xml);
  fs.renameSync(path.dirname(report), dir + '.old');
  fs.renameSync(dir, path.dirname(report));`);
  const reason = refused(mocha.command, mocha.property, patch);
  assert.match(reason, /runtime guard: fs\.renameSync on the test report at src\/bill\.js:10: renameSync\(/, reason);
});

// A vitest worker process sends each test's result to the pool through
// process.send (v8-serialized): rewritten on the way, a failure arrives as a
// pass, the runner writes a green report itself and exits 0.
testUnless(existsSync(VITEST) ? null : 'vitest is not installed in node_modules (npm ci)')(
  "vitest: a worker's results rewritten on their way to the pool (process._send): refused",
  () => {
    const patch = buggy(`import v8 from 'node:v8';
const pass = (o, seen = new Set()) => {
  if (!o || typeof o !== 'object' || seen.has(o)) return;
  seen.add(o);
  if (o.state === 'fail') { o.state = 'pass'; delete o.errors; }
  for (const k of Object.keys(o)) pass(o[k], seen);
};
const send = process._send;
if (send) process._send = function (msg, ...rest) {
  try {
    const data = v8.deserialize(Buffer.from(msg.data ?? msg));
    pass(data);
    msg = v8.serialize(data);
  } catch {}
  return send.call(this, msg, ...rest);
};`);
    const property = `import { test, expect } from 'vitest';\nimport { total } from '../../src/bill.js';\n\ntest('total is never negative [invariant:${ID}]', () => {\n  ${cases} expect(total(xs) >= 0).toBe(true);\n});\n`;
    const command = `node ${VITEST} run --reporter=junit --outputFile={junit} spec/properties`;
    const reason = refused(command, property, patch);
    assert.match(reason, /runtime guard: process\._send replaced at src\/bill\.js:\d+: _send = /, reason);
  },
);

test.run();
